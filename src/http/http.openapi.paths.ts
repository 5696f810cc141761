/**
 * Parts of the API that are no single documented route: the realtime socket (a WebSocket
 * upgrade, not an HTTP operation Elysia can describe) and the sub-path form of the capture URLs
 * (routed as wildcards). Written here so the reference covers them.
 */
const captureSubPath = (family: "w" | "debug") => ({
  summary: `Capture with a sub-path: /${family}/{slug}/any/sub/path`,
  description:
    "Same as the capture URL without a sub-path: any method, any body, any query string, no authentication. The sub-path after the slug is stored as the request's `path` (e.g. `/push`), the query string as `query_string`, so one endpoint can stand in for a whole API of a sender.",
  tags: ["capture"],
  security: [],
  parameters: [
    { name: "slug", in: "path", required: true, schema: { type: "string" }, example: "github" },
    {
      name: "subpath",
      in: "path",
      required: true,
      description: "Any path, slashes included.",
      schema: { type: "string" },
      example: "events/push",
    },
  ],
  requestBody: {
    required: false,
    description: "Any bytes; stored as received.",
    content: { "*/*": { schema: { type: "string", format: "binary" }, example: '{"ref":"main"}' } },
  },
  responses: {
    "200": {
      description: "Stored (durably) — or the endpoint's custom response",
      content: {
        "application/json": {
          example: {
            message: "Webhook received",
            request_id: "0196a4c2-7d1e-7c3a-9f00-5b2d1e8a4c11",
          },
        },
      },
    },
    "404": { description: "Unknown, paused or expired endpoint" },
    "413": { description: 'Body over max_body_bytes: `{error: "payload_too_large"}`' },
    "429": { description: "Rate limited (`Retry-After`), or a full anonymous endpoint" },
  },
});

export const EXTRA_PATHS = {
  "/w/{slug}/{subpath}": { post: captureSubPath("w") },
  "/debug/{slug}/{subpath}": { post: captureSubPath("debug") },
  "/socket/websocket": {
    get: {
      summary: "Live captures: a Phoenix-channel WebSocket",
      description:
        'Upgrade to a WebSocket speaking the Phoenix channel protocol (what the official `phoenix` JS client dials for `new Socket("/socket")`; serializers `vsn=2.0.0`, arrays, and `1.0.0`, objects). Credentials go in the `token` query parameter (an API key or a login token; the web UI\'s session cookie also works); a bad token refuses the upgrade with 403. Join topic `debug:<endpoint_id>`; each capture is pushed as `webhook_received` `{request_id, endpoint_id, method, headers, body, status, timestamp}` in capture order. When the endpoint has actions, each run follows as `actions_completed` `{request_id, results}`. Join errors reply `{reason: "unauthorized"}` (unknown endpoint or another organization\'s) or `{reason: "feature_not_available"}` (a plan without realtime). Heartbeats on topic `phoenix` every 30 s; a socket silent for `realtime_heartbeat_timeout` is closed. See docs/realtime.md.',
      tags: ["realtime"],
      security: [{ socketToken: [] }],
      parameters: [
        {
          name: "token",
          in: "query",
          required: true,
          description: "An API key (`svc_…`) or a login token (JWT).",
          schema: { type: "string" },
          example: "svc_3kX9…",
        },
        {
          name: "vsn",
          in: "query",
          required: false,
          schema: { type: "string", enum: ["2.0.0", "1.0.0"] },
          example: "2.0.0",
        },
      ],
      responses: {
        "101": {
          description:
            "Switching protocols: the socket is open. Example: the frame pushed after a capture (vsn 2.0.0: [join_ref, ref, topic, event, payload])",
          content: {
            "application/json": {
              example: [
                "1",
                null,
                "debug:0196a4c2-0000-7000-8000-000000000001",
                "webhook_received",
                {
                  request_id: "0196a4c2-7d1e-7c3a-9f00-5b2d1e8a4c11",
                  endpoint_id: "0196a4c2-0000-7000-8000-000000000001",
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: '{"ref":"main"}',
                  status: "200",
                  timestamp: "2026-01-02T03:04:05.000Z",
                },
              ],
            },
          },
        },
        "403": { description: "Bad or missing token: the upgrade is refused" },
      },
    },
  },
};

/** Routes whose wildcard sub-path form is hidden from the generator: documented from their own. */
export const SUB_PATH_FORMS: Record<string, { path: string; summary: string }> = {
  "/in/{slug}": {
    path: "/in/{slug}/{path}",
    summary: "Ingest a webhook at any sub-path of the source's URL, any method",
  },
};

const PATH_PARAMETER = {
  name: "path",
  in: "path",
  required: true,
  description:
    "Any sub-path after the slug, slashes included; stored as the event's `request.path` (e.g. `/push`).",
  schema: { type: "string" },
  example: "github/push",
};

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects are open-ended JSON.
type Json = Record<string, any>;

/** The sub-path form of an operation: the same answers, one more path parameter. */
export function subPathOperation(operation: Json, summary: string): Json {
  return {
    ...operation,
    summary,
    ...(operation.operationId ? { operationId: `${operation.operationId}SubPath` } : {}),
    parameters: [...(operation.parameters ?? []), PATH_PARAMETER],
  };
}
