import { type TSchema, t } from "elysia";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

/**
 * The body of create, update and PATCH: every field optional to the schema (an update names
 * only what changes); what a create requires, and the rules across fields, are checked after.
 */
export const MonitorBody = t.Object(
  {
    name: t.Optional(t.String({ description: "Required on create." })),
    type: t.Optional(
      t.String({ description: "http | tcp | dns | push | docker | ping; required on create." }),
    ),
    url: t.Optional(
      t.String({ description: "http: http(s) URL ({{SECRET}} allowed); tcp: tcp://host:port." }),
    ),
    method: t.Optional(t.String({ description: "http: GET (default), HEAD, POST, PUT, ..." })),
    headers: t.Optional(
      t.Record(t.String(), t.String(), { description: "http: values may use {{SECRET}}." }),
    ),
    body: t.Optional(Nullable(t.String())),
    interval_seconds: t.Optional(t.Integer({ description: "At least 10; default 60." })),
    timeout_seconds: t.Optional(t.Integer({ description: "1–300; default 30." })),
    retries: t.Optional(t.Integer({ description: "Consecutive failures before down; default 0." })),
    parent_id: t.Optional(
      Nullable(
        t.String({ description: "A monitor this one depends on: its down alerts wait for it." }),
      ),
    ),
    expected_status: t.Optional(t.String({ description: 'e.g. "200-299,301" (default 200-299).' })),
    keyword: t.Optional(Nullable(t.String())),
    keyword_absent: t.Optional(t.Boolean()),
    json_path: t.Optional(Nullable(t.String({ description: "Path in the JSON answer." }))),
    json_expected: t.Optional(
      t.Unknown({ description: "A value, or a filter operator object such as {$gte: 1}." }),
    ),
    degraded_after_ms: t.Optional(Nullable(t.Integer())),
    hostname: t.Optional(
      t.String({ description: "dns: the name to resolve; ping: the host name or IP to ping." }),
    ),
    record_type: t.Optional(t.String({ description: "dns: A, AAAA, CNAME, MX, TXT or NS." })),
    expected: t.Optional(
      Nullable(t.String({ description: "dns: a record that must be among the answers." })),
    ),
    container: t.Optional(t.String({ description: "docker: the container's name or id." })),
    docker_host: t.Optional(
      t.String({
        description:
          "docker: the daemon, unix:///var/run/docker.sock (default) or tcp://host:2375 (plain HTTP).",
      }),
    ),
    group: t.Optional(
      Nullable(t.String({ description: "Any type: the heading a status page shows it under." })),
    ),
    paused: t.Optional(t.Boolean()),
  },
  { additionalProperties: true },
);

/** A monitor as answered: its settings flat beside its figures. */
export const MonitorSchema = t.Object(
  {
    id: t.String(),
    name: t.String(),
    type: t.String(),
    interval_seconds: t.Integer(),
    timeout_seconds: t.Integer(),
    retries: t.Integer(),
    paused: t.Boolean(),
    status: t.String({ description: "up | down | degraded | pending | paused" }),
    last_checked_at: Nullable(t.String()),
    uptime_24h: Nullable(t.Number()),
    uptime_7d: Nullable(t.Number()),
    uptime_30d: Nullable(t.Number()),
    uptime_90d: Nullable(t.Number()),
    avg_response_ms: Nullable(t.Number()),
    response_sparkline: t.Optional(
      t.Array(Nullable(t.Integer()), {
        description:
          "List only: the average response time (ms) of each of the last 24 hours, oldest first; null for an hour without a timed check.",
      }),
    ),
    created_at: t.String(),
    updated_at: t.String(),
  },
  { additionalProperties: true },
);

export const CheckSchema = t.Object({
  id: t.String(),
  monitor_id: t.String(),
  status: t.String({ description: "up | down | degraded" }),
  status_code: Nullable(t.Integer()),
  response_time_ms: Nullable(t.Integer()),
  error: Nullable(t.String()),
  checked_at: t.String(),
  tls_days_remaining: Nullable(t.Integer()),
  maintenance: t.Boolean({ description: "Taken inside a maintenance window (not in uptime)." }),
});

const ReportFiguresSchema = {
  uptime_percent: Nullable(t.Number({ description: "Null on a day without counted checks." })),
  downtime_minutes: t.Number({ description: "Down checks × the interval." }),
  maintenance_minutes: t.Number({ description: "Checks in maintenance × the interval." }),
  checks: t.Integer(),
};

export const ReportSchema = t.Object({
  from: t.String(),
  to: t.String(),
  days: t.Array(t.Object({ date: t.String(), ...ReportFiguresSchema })),
  overall: t.Object(ReportFiguresSchema),
});

export const ReportQuery = t.Object({
  from: t.Optional(t.String({ description: "YYYY-MM-DD (UTC); default 29 days before `to`." })),
  to: t.Optional(t.String({ description: "YYYY-MM-DD (UTC), included; default today." })),
  format: t.Optional(t.String({ description: "json (default) or csv." })),
});

export const RollupBucketSchema = t.Object({
  start: t.String({ description: "Start of the hour or UTC day." }),
  checks: t.Integer(),
  up: t.Integer(),
  down: t.Integer(),
  degraded: t.Integer(),
  avg_response_ms: Nullable(t.Integer()),
  max_response_ms: Nullable(t.Integer()),
});

export const StateEventSchema = t.Object({
  from: t.String(),
  to: t.String(),
  at: t.String(),
  reason: Nullable(t.String()),
  held_by_parent_id: Nullable(
    t.String({ description: "Set when this change's down alert was held: its parent was down." }),
  ),
});

export const errorResponses = {
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  422: ValidationErrorBody,
};
export const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

/** An OpenAPI request body from a TypeBox schema (plain JSON Schema, no symbol metadata). */
export const requestBody = (description: string, schema: TSchema) => ({
  required: true,
  description,
  content: { "application/json": { schema: JSON.parse(JSON.stringify(schema)) } },
});
