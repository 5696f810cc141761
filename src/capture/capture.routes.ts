import { Elysia, t } from "elysia";
import { CAPTURE_SAFETY_HEADERS } from "../endpoints/endpoints.model.ts";
import { readBoundedBody } from "../http/http.body-limit.ts";
import type { DirectRoutes } from "../http/http.direct-routes.ts";
import { ErrorBody } from "../http/http.openapi.ts";
import {
  type CaptureAnswer,
  type CaptureRefusal,
  type HeaderValues,
  headerViews,
  locateCapture,
  REFUSALS,
} from "./capture.model.ts";
import type { CaptureParts } from "./capture.room.ts";

/** What capture needs of the Bun server: the socket peer of a request. */
interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

/** Statuses whose responses carry no body (fetch spec "null body status"). */
const NULL_BODY = new Set([204, 205, 304]);

function refusalResponse(refusal: CaptureRefusal): Response {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "access-control-allow-origin": "*",
    ...CAPTURE_SAFETY_HEADERS,
  };
  if (refusal.retryAfterSeconds !== undefined) {
    headers["retry-after"] = String(refusal.retryAfterSeconds);
  }
  return new Response(`{"error":"${refusal.error}"}`, { status: refusal.status, headers });
}

function answerResponse(answer: CaptureAnswer): Response {
  const body = NULL_BODY.has(answer.status) ? null : answer.body;
  return new Response(body, { status: answer.status, headers: answer.headers });
}

/** One capture: admit by slug, read the raw body, store durably, answer (interface.md, Capture). */
async function capture(room: CaptureParts, request: Request, server: PeerSource | null) {
  const location = locateCapture(request.url);
  if (!location) return refusalResponse(REFUSALS.notFound);
  const admission = room.service.admitRequest(location.slug);
  if ("refusal" in admission) {
    if (admission.endpoint && admission.refusal.status === 429)
      room.tally.refused(admission.endpoint, 429);
    return refusalResponse(admission.refusal);
  }
  const { headers, rawHeaders } = headerViews(request.headers.toJSON() as HeaderValues);
  const body = await readBoundedBody(request, headers["content-length"], room.maxBodyBytes);
  if (body === null) {
    room.tally.refused(admission.endpoint, 413);
    return refusalResponse(REFUSALS.tooLarge);
  }
  const peer = server?.requestIP(request)?.address ?? null;
  const stored = await room.service.storeRequest(admission.endpoint, {
    method: request.method,
    path: location.path,
    queryString: location.queryString,
    headers,
    rawHeaders,
    body,
    remoteIp: room.resolveClientIp(peer, headers["x-forwarded-for"] ?? null),
  });
  if ("refusal" in stored) {
    if (stored.refusal.status === 429) room.tally.refused(admission.endpoint, 429);
    return refusalResponse(stored.refusal);
  }
  if (stored.delayMs > 0) await Bun.sleep(stored.delayMs);
  return answerResponse(stored.answer);
}

/** One capture, chosen when the room is built: straight through, or after the room's prefetch. */
function captureHandler(room: CaptureParts) {
  const prefetch = room.prefetch;
  if (!prefetch) {
    return (request: Request, server: PeerSource | null) => capture(room, request, server);
  }
  return (request: Request, server: PeerSource | null) => {
    const location = locateCapture(request.url);
    if (!location) return Promise.resolve(refusalResponse(REFUSALS.notFound));
    return prefetch(location.slug, () => capture(room, request, server));
  };
}

/**
 * The capture URLs as Bun.serve answers them itself, ahead of the Elysia app: the hot path pays
 * for no framework hook (docs/performance.md). The Elysia routes below stay for the API docs and
 * for methods Bun.serve does not dispatch per route; both call the same `capture`.
 */
export function captureDirectRoutes(room: CaptureParts): DirectRoutes {
  const handle: (request: Request, server: PeerSource) => Promise<Response> = captureHandler(room);
  return {
    "/debug/:slug": handle,
    "/debug/:slug/*": handle,
    "/w/:slug": handle,
    "/w/:slug/*": handle,
  };
}

const CaptureAccepted = t.Object({ message: t.String(), request_id: t.String() });

/**
 * Capture URLs `/debug/{slug}` and `/w/{slug}` with any sub-path and any method, no auth.
 * `parse: "none"` keeps Elysia away from the body, which is read raw here; no hook is added,
 * so the hot path pays for nothing else (docs/performance.md).
 */
export function captureRoutes(room: CaptureParts) {
  // The Bun server is taken once at start: naming `server` in the handler's context makes Elysia
  // define a getter on every request's context (Object.defineProperty, measurable here).
  let server: PeerSource | null = null;
  const run = captureHandler(room);
  const handle = ({ request }: { request: Request }) => run(request, server);
  const documented = {
    parse: "none" as const,
    response: {
      200: CaptureAccepted,
      404: ErrorBody,
      413: ErrorBody,
      429: ErrorBody,
      503: ErrorBody,
      507: ErrorBody,
    },
    detail: {
      tags: ["capture"],
      summary: "Capture a webhook: any method, any body, any sub-path; no authentication",
      security: [],
      description:
        "Stores the request byte-exact and answers 200 `{message, request_id}` once it is durably committed (or the endpoint's custom response). 404 `not_found` for an unknown, paused or expired endpoint; 413 `payload_too_large` past max_body_bytes; 429 `rate_limited` with Retry-After, or `webhook_limit_reached` for a full anonymous endpoint; 503 `anonymous_capacity_reached` once anonymous endpoints together store the instance's allowance; 507 `insufficient_storage` while the data dir is below min_free_disk_mb.",
    },
  };
  const hidden = { parse: "none" as const, detail: { hide: true } };
  // GET is routed on its own too: Elysia prefers a method's own routes (the UI's GET /*) to ALL.
  return new Elysia({ name: "weir-capture" })
    .all("/debug/:slug", handle, documented)
    .all("/debug/:slug/*", handle, hidden)
    .all("/w/:slug", handle, documented)
    .all("/w/:slug/*", handle, hidden)
    .get("/debug/:slug", handle, hidden)
    .get("/debug/:slug/*", handle, hidden)
    .get("/w/:slug", handle, hidden)
    .get("/w/:slug/*", handle, hidden)
    .onStart((app) => {
      server = app.server;
    });
}
