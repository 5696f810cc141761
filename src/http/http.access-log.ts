import type { Logger } from "../shared/logger.ts";

/** What a request's context may carry once the auth guard has run. */
interface MaybeAuthenticated {
  principal?: { organizationId?: string; authMethod?: string };
}

/**
 * One info line per management request (`/api/…`): method, route pattern, status, duration,
 * organization and request id. Never the body, the query or a header: they can hold tokens and
 * payloads. Captures and ingests are summarised by their rooms instead of a line each (a
 * sender's flood must not flood the log); the UI's files, /healthz and /metrics are not logged.
 */
export function createAccessLog(logger: Logger) {
  return (
    request: Request,
    route: string,
    status: number,
    ms: number,
    requestId: string,
    context: object,
  ) => {
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    if (!url.startsWith("/api/", pathStart)) return;
    // An ingest URL takes no credentials, like a capture URL: summarised by the routing room.
    if (route === "/api/v1/sources/:id/ingest") return;
    const principal = (context as MaybeAuthenticated).principal;
    const fields = {
      method: request.method,
      // Rooms mount their lists as `<prefix>/`; the log shows the path people type.
      route: route ? route.replace(/(.)\/$/, "$1") : "unmatched",
      status,
      ms: Math.round(ms * 10) / 10,
      org: principal?.organizationId ?? null,
      request_id: requestId,
    };
    if (status >= 500) logger.error("request", fields);
    else logger.info("request", fields);
  };
}
