import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { parsePageRequest } from "../db/db.pagination.ts";
import type { PublicBaseUrl } from "../http/http.public-url.ts";
import {
  type ChecksDeps,
  checkNow,
  listChecks,
  listRollups,
  listStateEvents,
  recordPush,
  responseSparkline,
} from "./checks.service.ts";
import { reportCsv } from "./monitors.report.ts";
import {
  CheckSchema,
  errorResponses,
  MonitorBody,
  MonitorSchema,
  ReportQuery,
  ReportSchema,
  RollupBucketSchema,
  requestBody,
  StateEventSchema,
  security,
} from "./monitors.schemas.ts";
import {
  createMonitor,
  deleteMonitor,
  getMonitor,
  listMonitors,
  type MonitorsDeps,
  monitorForPush,
  monitorReport,
  requireMonitor,
  updateMonitor,
} from "./monitors.service.ts";

export interface MonitorsRouteDeps {
  guard: AuthPorts["guard"];
  monitors: MonitorsDeps;
  checks: ChecksDeps;
  publicBaseUrl: PublicBaseUrl;
}

const tags = ["uptime monitors"];
const One = t.Object({ data: MonitorSchema });
const Paged = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({ data: t.Array(item), page: t.Integer(), page_size: t.Integer(), total: t.Integer() });
const BODY_DOC =
  "Flat fields: `name`, `type` (http|tcp|dns|push|docker|ping), `interval_seconds`, `timeout_seconds`, `retries`, and the type's own settings.";

/** `/api/v1/uptime-monitors` (decisions.md §9, §13, §15): members read, admins write. */
export function monitorsRoutes(room: MonitorsRouteDeps) {
  const { monitors, checks } = room;
  return new Elysia({ prefix: "/api/v1/uptime-monitors" })
    .use(room.guard())
    .derive(({ request, server }) => ({ base: room.publicBaseUrl(request, server) }))
    .get(
      "/",
      async ({ principal, base, query }) => {
        const page = await listMonitors(principal, parsePageRequest(query), base, monitors);
        const data = [];
        for (const m of page.data) {
          data.push({ ...m, response_sparkline: await responseSparkline(m.id, checks) });
        }
        return { ...page, data };
      },
      {
        response: { 200: Paged(MonitorSchema), ...errorResponses },
        detail: {
          tags,
          security,
          summary: "List monitors with their state and uptime, newest first",
        },
      },
    )
    .post(
      "/",
      async ({ principal, base, body, set }) => {
        set.status = 201;
        return { data: await createMonitor(principal, body, base, monitors) };
      },
      {
        // Before the body is validated: a member learns nothing about the fields it may not write.
        transform: ({ principal }) => requirePermission(principal, "write"),
        body: MonitorBody,
        response: { 201: One, ...errorResponses },
        detail: {
          tags,
          security,
          summary: "Create a monitor (admin); 403 monitor_limit_reached past the plan's quota",
          requestBody: requestBody(BODY_DOC, MonitorBody),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, base, params }) => ({
        data: await getMonitor(principal, params.id, base, monitors),
      }),
      {
        response: { 200: One, ...errorResponses },
        detail: { tags, security, summary: "Get a monitor" },
      },
    )
    .put(
      "/:id",
      async ({ principal, base, params, body }) => {
        return { data: await updateMonitor(principal, params.id, body, base, monitors) };
      },
      {
        transform: ({ principal }) => requirePermission(principal, "write"),
        body: MonitorBody,
        response: { 200: One, ...errorResponses },
        detail: {
          tags,
          security,
          summary: "Update a monitor (admin); fields not sent keep their value",
          requestBody: requestBody(BODY_DOC, MonitorBody),
        },
      },
    )
    .patch(
      "/:id",
      async ({ principal, base, params, body }) => {
        return { data: await updateMonitor(principal, params.id, body, base, monitors) };
      },
      {
        transform: ({ principal }) => requirePermission(principal, "write"),
        body: MonitorBody,
        response: { 200: One, ...errorResponses },
        detail: {
          tags,
          security,
          summary: "Change some fields of a monitor (admin), e.g. `{paused: true}`",
          requestBody: requestBody("Any subset of the fields, e.g. `{paused: true}`.", MonitorBody),
        },
      },
    )
    .delete(
      "/:id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deleteMonitor(principal, params.id, monitors);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errorResponses },
        detail: { tags, security, summary: "Delete a monitor with its checks and rollups (admin)" },
      },
    )
    .get(
      "/:id/checks",
      async ({ principal, params, query }) => {
        await requireMonitor(principal.organizationId, params.id, monitors);
        return listChecks(params.id, parsePageRequest(query), checks);
      },
      {
        response: { 200: Paged(CheckSchema), ...errorResponses },
        detail: { tags, security, summary: "A monitor's checks, newest first (paginated)" },
      },
    )
    .post(
      "/:id/check",
      async ({ principal, params }) => {
        requirePermission(principal, "write");
        const monitor = await requireMonitor(principal.organizationId, params.id, monitors);
        return { data: await checkNow(monitor, checks) };
      },
      {
        response: { 200: t.Object({ data: CheckSchema }), ...errorResponses },
        detail: { tags, security, summary: "Run one check now and store it (admin)" },
      },
    )
    .get(
      "/:id/rollups",
      async ({ principal, params, query }) => {
        await requireMonitor(principal.organizationId, params.id, monitors);
        return { data: await listRollups(params.id, query.range ?? "24h", checks) };
      },
      {
        query: t.Object({
          range: t.Optional(
            t.Union([t.Literal("24h"), t.Literal("7d"), t.Literal("30d")], {
              description: "24h and 7d: hourly buckets; 30d: daily buckets. Default 24h.",
            }),
          ),
        }),
        response: { 200: t.Object({ data: t.Array(RollupBucketSchema) }), ...errorResponses },
        detail: {
          tags,
          security,
          summary:
            "A monitor's hourly or daily buckets (checks by state, response times), oldest first",
        },
      },
    )
    .get(
      "/:id/events",
      async ({ principal, params }) => {
        await requireMonitor(principal.organizationId, params.id, monitors);
        return { data: await listStateEvents(params.id, checks) };
      },
      {
        response: { 200: t.Object({ data: t.Array(StateEventSchema) }), ...errorResponses },
        detail: { tags, security, summary: "A monitor's state changes, newest first" },
      },
    )
    .get(
      "/:id/report",
      async ({ principal, params, query }) => {
        const { report, format, monitorId } = await monitorReport(
          principal,
          params.id,
          query,
          monitors,
        );
        if (format === "json") return { data: report };
        const csv = new Response(reportCsv(report), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="uptime-${monitorId}-${report.from}-${report.to}.csv"`,
          },
        });
        // Elysia types an async handler's answer as one shape; a Response is sent as it is.
        return csv as unknown as { data: typeof report };
      },
      {
        query: ReportQuery,
        response: { 200: t.Object({ data: ReportSchema }), ...errorResponses },
        detail: {
          tags,
          security,
          summary:
            "SLA report per UTC day from the daily rollups (`?from&to` ≤ 400 days, `format=json|csv`)",
        },
      },
    );
}

const PUSH_SUMMARY = "Push a heartbeat (public: the token is the credential)";
const PushAnswer = t.Object({ ok: t.Literal(true) });
const PushQuery = t.Object({
  status: t.Optional(t.String({ description: "`down` reports a failure; anything else is up." })),
  msg: t.Optional(t.String()),
  ping: t.Optional(t.String({ description: "A response time to record, in ms." })),
});

/** `/api/push/{token}` (decisions.md §15): no credentials; the token is the secret. */
export function pushRoutes(room: Pick<MonitorsRouteDeps, "monitors" | "checks">) {
  const handle = async ({
    params,
    query,
  }: {
    params: { token: string };
    query: Record<string, string | undefined>;
  }) => {
    const monitor = await monitorForPush(params.token, room.monitors);
    // A paused monitor hears nothing, pushes included; the sender still gets its answer.
    if (!monitor.paused) await recordPush(monitor, query, room.checks);
    return { ok: true as const };
  };
  const hooks = {
    query: PushQuery,
    response: { 200: PushAnswer, 404: errorResponses[404] },
  };
  return new Elysia({ prefix: "/api/push" })
    .get("/:token", handle, { ...hooks, detail: { tags, security: [], summary: PUSH_SUMMARY } })
    .post("/:token", handle, { ...hooks, detail: { tags, security: [], summary: PUSH_SUMMARY } });
}

/** The room's whole HTTP surface: the management API and the public push URLs, side by side. */
export function monitorsRoomRoutes(room: MonitorsRouteDeps) {
  return new Elysia().use(monitorsRoutes(room)).use(pushRoutes(room));
}
