import { Elysia, t } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import { parseReportQuery } from "../monitors/monitors.report.ts";
import type { IncidentsStore } from "./incidents.store.ts";
import { type PageReport, pageReport, pageReportCsv } from "./status-pages.report.ts";
import { requirePage, type StatusPagesDeps } from "./status-pages.service.ts";

const DAY_MS = 86_400_000;
const tags = ["status pages"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };

const Figures = {
  uptime_percent: t.Union([t.Number(), t.Null()]),
  downtime_minutes: t.Number(),
  maintenance_minutes: t.Number(),
  checks: t.Integer(),
};
const PageReportSchema = t.Object({
  from: t.String(),
  to: t.String(),
  monitors: t.Array(t.Object({ monitor_id: t.String(), name: t.String() })),
  days: t.Array(
    t.Object({
      date: t.String(),
      ...Figures,
      worst_monitor: t.Union([
        t.Object({ monitor_id: t.String(), name: t.String(), uptime_percent: t.Number() }),
        t.Null(),
      ]),
      incidents: t.Array(
        t.Object({
          id: t.String(),
          title: t.String(),
          impact: t.String(),
          status: t.String(),
          created_at: t.String(),
          resolved_at: t.Union([t.String(), t.Null()]),
        }),
      ),
    }),
  ),
  overall: t.Object(Figures),
});

/** The page's report over `?from&to` (whole UTC days, 400 at most), its monitors together. */
export async function statusPageReport(
  organizationId: string,
  pageId: string,
  query: { from?: string; to?: string; format?: string },
  deps: StatusPagesDeps & { incidents: IncidentsStore },
): Promise<{ report: PageReport; format: "json" | "csv"; slug: string }> {
  const page = await requirePage(organizationId, pageId, deps);
  const now = deps.clock.now();
  const range = parseReportQuery(query, now);
  // The port reads back from today: enough days to reach `from`, then keep the range.
  const today = now - (now % DAY_MS);
  const days = Math.max(1, Math.floor((today - range.from) / DAY_MS) + 1);
  const monitors = [];
  for (const shown of await deps.repo.monitors(page.id)) {
    const summary = await deps.reads.monitorSummary(organizationId, shown.monitorId);
    const daily = await deps.reads.dailyBuckets(shown.monitorId, days);
    monitors.push({
      monitor_id: shown.monitorId,
      name: shown.displayName ?? summary?.name ?? shown.monitorId,
      buckets: daily.filter((bucket) => bucket.start >= range.from && bucket.start <= range.to),
    });
  }
  const report = pageReport(range, monitors, await deps.incidents.list(page.id));
  return { report, format: range.format, slug: page.slug };
}

/** `GET /api/v1/status-pages/{id}/report`: members read. */
export function statusPageReportRoutes(room: {
  guard: AuthPorts["guard"];
  deps: StatusPagesDeps & { incidents: IncidentsStore };
}) {
  return new Elysia({ prefix: "/api/v1/status-pages" }).use(room.guard()).get(
    "/:id/report",
    async ({ principal, params, query }) => {
      const { report, format, slug } = await statusPageReport(
        principal.organizationId,
        params.id,
        query,
        room.deps,
      );
      if (format === "json") return { data: report };
      const csv = new Response(pageReportCsv(report), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="status-${slug}-${report.from}-${report.to}.csv"`,
        },
      });
      // Elysia types an async handler's answer as one shape; a Response is sent as it is.
      return csv as unknown as { data: typeof report };
    },
    {
      query: t.Object({
        from: t.Optional(
          t.String({ description: "YYYY-MM-DD (UTC); default 29 days before `to`." }),
        ),
        to: t.Optional(t.String({ description: "YYYY-MM-DD (UTC), included; default today." })),
        format: t.Optional(t.String({ description: "json (default) or csv." })),
      }),
      response: { 200: t.Object({ data: PageReportSchema }), ...errors },
      detail: {
        tags,
        security,
        summary:
          "SLA report of the page per UTC day: its monitors together, the worst one, incidents (`?from&to` ≤ 400 days, `format=json|csv`)",
      },
    },
  );
}
