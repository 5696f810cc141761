import { Elysia } from "elysia";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { createAccessLog } from "./http.access-log.ts";
import { createAllowedMethods } from "./http.allowed-methods.ts";
import { limitRequestBody } from "./http.body-limit.ts";
import { bunRoutes, type DirectRoutes } from "./http.direct-routes.ts";
import { renderError } from "./http.errors.ts";
import type { Metrics } from "./http.metrics.ts";
import { createRequestTracker } from "./http.request-context.ts";

export interface HttpBaseDeps {
  ids: Ids;
  logger: Logger;
  metrics: Metrics;
  /** Largest body of any request not under `rawBodyPrefixes` (decisions.md §14); 1 MiB if unset. */
  maxJsonBytes?: number;
  /** Paths that read and bound their raw bodies themselves (captures, ingest). */
  rawBodyPrefixes?: readonly string[];
  /**
   * Routes Bun.serve answers itself, ahead of the Elysia app (captures): same request id,
   * metrics and error renderer, no framework hooks (see http.direct-routes.ts).
   */
  directRoutes?: DirectRoutes;
  /** Told of every answer with the caller the guard found, if any (an API key's usage counts). */
  onAnswered?: (principal: { apiKeyId?: string | null } | undefined, status: number) => void;
}

const DEFAULT_MAX_JSON_BYTES = 1_048_576;

/** The path of a request URL without building a URL object (onRequest runs on every request). */
function pathStart(url: string): number {
  return url.indexOf("/", url.indexOf("//") + 2);
}

/**
 * The base of every Weir server: request ids on every response, metrics by route pattern, an
 * access log line per management request, 405 for a known path with a wrong method, and the one
 * error renderer. Rooms' route plugins are mounted on what this returns. Every body but a
 * capture's is held to `maxJsonBytes` here, before anything reads it.
 *
 * Metrics are recorded in afterHandle (answers) and onError (failures) rather than in
 * afterResponse: Elysia's afterResponse hook cost ~35 % of the request rate in our benchmark.
 * The latency therefore excludes writing the response body, which Bun does after we return.
 */
export function createHttpBase(deps: HttpBaseDeps) {
  const maxJsonBytes = deps.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES;
  const rawBodyPrefixes = deps.rawBodyPrefixes ?? [];
  const tracker = createRequestTracker(deps.ids);
  const logger = deps.logger.child({ scope: "http" });
  const accessLog = createAccessLog(logger);
  const observe = (request: Request, route: string, status: unknown, context: object) => {
    const meta = tracker.get(request);
    const ms = performance.now() - meta.startedAt;
    const code = typeof status === "number" ? status : 200;
    deps.metrics.observe(request.method, route || "unmatched", code, ms / 1000);
    accessLog(request, route, code, ms, meta.id, context);
    deps.onAnswered?.((context as { principal?: { apiKeyId?: string | null } }).principal, code);
  };
  const base = new Elysia({
    name: "weir-http-base",
    // Elysia merges these over its own Bun routes for the same patterns, method by method.
    serve: deps.directRoutes ? { routes: bunRoutes(deps.directRoutes, deps) } : undefined,
  });
  const allowedMethods = createAllowedMethods(() => base.routes);
  return base
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = tracker.begin(request).id;
      const url = request.url;
      const start = pathStart(url);
      if (!rawBodyPrefixes.some((prefix) => url.startsWith(prefix, start))) {
        // Before routing, parsing and the auth guard: an oversized body costs the server nothing.
        limitRequestBody(request, maxJsonBytes);
      }
    })
    .onAfterHandle({ as: "global" }, (context) => {
      const { request, route, set, responseValue } = context;
      const status = responseValue instanceof Response ? responseValue.status : set.status;
      observe(request, route, status, context);
    })
    .onError({ as: "global" }, (context) => {
      const { code, error, request, set, path, route } = context;
      const meta = tracker.get(request);
      const allowed = code === "NOT_FOUND" ? allowedMethods(path) : [];
      const rendered =
        allowed.length > 0
          ? { status: 405, body: { error: "method_not_allowed", allow: allowed } }
          : renderError(code, error, { requestId: meta.id, logger, method: request.method, path });
      if (allowed.length > 0) set.headers.allow = allowed.join(", ");
      set.status = rendered.status;
      set.headers["x-request-id"] = meta.id;
      set.headers["content-type"] = "application/json";
      observe(request, route, rendered.status, context);
      return rendered.body;
    });
}
