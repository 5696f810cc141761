import { t } from "elysia";

/** A forward or replay try as the `endpoints` family shows it (decisions.md §6). */
export const ForwardSchema = t.Object({
  id: t.String(),
  request_id: t.String(),
  url: t.String(),
  method: t.String(),
  status_code: t.Nullable(t.Integer()),
  response_headers: t.Nullable(t.Record(t.String(), t.String())),
  response_body: t.Nullable(t.String({ description: "First 64 KiB of the answer." })),
  latency_ms: t.Nullable(t.Integer()),
  error: t.Nullable(t.String()),
  attempt: t.Integer(),
  created_at: t.String(),
});
