import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { genericPage, pageInfo, parsePageRequest } from "../db/db.pagination.ts";
import { AUTHENTICATED } from "../http/http.openapi.document.ts";
import {
  documentedQuery,
  ErrorBody,
  PAGE_QUERY,
  schemaBody,
  ValidationErrorBody,
} from "../http/http.openapi.ts";
import { RuleCreateBody, RuleUpdateBody } from "./alerts.bodies.ts";
import {
  type AlertsDeps,
  createRule,
  deleteRule,
  getRule,
  listAlerts,
  listRules,
  rotateSecret,
  sendTestAlert,
  updateRule,
} from "./alerts.service.ts";

const tags = ["alert rules"];
const security = AUTHENTICATED;
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };
const Nullable = <T extends Parameters<typeof t.Nullable>[0]>(schema: T) => t.Nullable(schema);

const Condition = t.Object({
  type: t.Union([
    t.Literal("issue_created"),
    t.Literal("occurrence_threshold"),
    t.Literal("open_for_days"),
    t.Literal("high_priority_destination"),
    t.Literal("api_key_created"),
    t.Literal("api_key_revoked"),
    t.Literal("api_key_expiring"),
    t.Literal("api_key_denied_ip"),
    t.Literal("monitor_down"),
    t.Literal("monitor_up"),
    t.Literal("tls_expiring"),
  ]),
  value: t.Optional(
    t.Number({
      description:
        "occurrence_threshold: a count (≥ 1); open_for_days, api_key_expiring and tls_expiring: days (> 0).",
    }),
  ),
  monitor_ids: t.Optional(
    t.Array(t.String(), { description: "Monitor conditions: only these monitors (default all)." }),
  ),
});
const Channel = t.Object(
  {
    type: t.Union([
      t.Literal("slack"),
      t.Literal("discord"),
      t.Literal("telegram"),
      t.Literal("webhook"),
      t.Literal("ntfy"),
      t.Literal("gotify"),
      t.Literal("email"),
    ]),
    signing_secret: t.Optional(
      t.String({
        description:
          "webhook only: the `whsec_` Standard Webhooks secret, only in the answer that makes it.",
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      "slack/discord `{webhook_url}`, telegram `{bot_token, chat_id}`, webhook `{url, headers?}`, ntfy `{server_url, topic, token?}`, gotify `{server_url, token}`, email `{to: [addresses]}` (needs the server's WEIR_SMTP_URL); values may hold `{{SECRET_NAME}}`.",
  },
);
const RuleSchema = t.Object({
  id: t.String(),
  name: t.String(),
  condition: Condition,
  channel: Channel,
  enabled: t.Boolean(),
  created_at: t.String(),
  updated_at: t.String(),
});
const One = t.Object({ data: RuleSchema });
const AlertSchema = t.Object({
  id: t.String(),
  issue_id: Nullable(t.String()),
  api_key_id: t.Optional(t.String()),
  test: t.Boolean(),
  created_at: t.String(),
  delivery: Nullable(
    t.Object({
      id: t.String(),
      status: t.String(),
      attempts: t.Integer(),
      status_code: Nullable(t.Integer()),
      error_type: Nullable(t.String()),
      error_code: Nullable(t.String()),
      error_message: Nullable(t.String()),
      next_attempt_at: Nullable(t.String()),
    }),
  ),
});
const paged = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({ data: t.Array(item), page: t.Integer(), page_size: t.Integer(), total: t.Integer() });

const admin = (principal: Principal) => {
  requirePermission(principal, "write");
  return principal.organizationId;
};

/** `/api/v1/alert-rules` (decisions.md §8, §13): members read, admins write and test. */
export function alertsRoutes(deps: AlertsDeps, guard: AuthPorts["guard"]) {
  return new Elysia({ name: "weir-alerts", prefix: "/api/v1/alert-rules" })
    .use(guard())
    .get(
      "/",
      ({ principal, query }) => {
        const page = parsePageRequest(query);
        const { rules, total } = listRules(principal.organizationId, page, deps);
        return genericPage(rules, pageInfo(page, total));
      },
      {
        response: { 200: paged(RuleSchema), ...errors },
        detail: {
          tags,
          security,
          summary: "List alert rules, newest first (paginated)",
          ...documentedQuery(t.Object(PAGE_QUERY)),
        },
      },
    )
    .post(
      "/",
      ({ principal, body, set }) => {
        const data = createRule(admin(principal), body, deps);
        set.status = 201;
        return { data };
      },
      {
        response: { 201: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Create an alert rule (admin)",
          description:
            "A webhook channel's `signing_secret` appears once, in `data.channel` of this answer.",
          requestBody: schemaBody(RuleCreateBody),
        },
      },
    )
    .get(
      "/:id",
      ({ principal, params }) => ({ data: getRule(principal.organizationId, params.id, deps) }),
      { response: { 200: One, ...errors }, detail: { tags, security, summary: "Get a rule" } },
    )
    .patch(
      "/:id",
      ({ principal, params, body }) => ({
        data: updateRule(admin(principal), params.id, body, deps),
      }),
      {
        response: { 200: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Change a rule (admin): any of name, condition, channel (whole), enabled",
          description:
            "A channel that becomes a webhook gets a new `signing_secret`, shown in this answer only.",
          requestBody: schemaBody(RuleUpdateBody),
        },
      },
    )
    .delete(
      "/:id",
      ({ principal, params, set }) => {
        deleteRule(admin(principal), params.id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Delete a rule (admin)" },
      },
    )
    .post(
      "/:id/test",
      ({ principal, params, set }) => {
        const data = sendTestAlert(admin(principal), params.id, deps);
        set.status = 202;
        return { data };
      },
      {
        response: {
          202: t.Object({ data: t.Object({ alert_id: t.String(), delivery_id: t.String() }) }),
          ...errors,
        },
        detail: {
          tags,
          security,
          summary: "Send a sample alert now (admin)",
          description:
            "Queued in the delivery outbox at once (202) and sent within moments; its outcome is in `GET /api/v1/alert-rules/{id}/alerts`.",
        },
      },
    )
    .post(
      "/:id/rotate-secret",
      ({ principal, params }) => ({ data: rotateSecret(admin(principal), params.id, deps) }),
      {
        response: { 200: t.Object({ data: t.Object({ signing_secret: t.String() }) }), ...errors },
        detail: {
          tags,
          security,
          summary: "New signing secret for a webhook channel (admin), shown once",
          description:
            "The replaced secret keeps signing for 24 h: alerts carry both signatures, new first. A chat channel is a 422.",
        },
      },
    )
    .get(
      "/:id/alerts",
      async ({ principal, params, query }) => {
        const page = parsePageRequest(query);
        const { alerts, total } = await listAlerts(principal.organizationId, params.id, page, deps);
        return genericPage(alerts, pageInfo(page, total));
      },
      {
        response: { 200: paged(AlertSchema), ...errors },
        detail: {
          tags,
          security,
          summary: "Alerts the rule sent, newest first, with each delivery's state (paginated)",
          ...documentedQuery(t.Object(PAGE_QUERY)),
        },
      },
    );
}
