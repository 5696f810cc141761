import type { Server } from "bun";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { renderError } from "./http.errors.ts";
import type { Metrics } from "./http.metrics.ts";
import { requestIdOf } from "./http.request-context.ts";

/** What a route served by Bun.serve itself is handed: the request and the server (its peer). */
export type DirectHandler = (
  request: Request,
  server: Pick<Server<unknown>, "requestIP">,
) => Response | Promise<Response>;

/** Route pattern (`/w/:slug`, `/w/:slug/*`) → handler, served ahead of the Elysia app. */
export type DirectRoutes = Readonly<Record<string, DirectHandler>>;

/**
 * The methods Bun.serve dispatches per route. Any other method on these paths still reaches the
 * Elysia app, which routes it to the same use case (the slow path, for rare methods only).
 */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

type BunRoute = Record<(typeof METHODS)[number], DirectHandler>;

export interface DirectRoutesDeps {
  ids: Ids;
  logger: Logger;
  metrics: Metrics;
}

/**
 * Turns direct routes into Bun.serve `routes`, each wrapped with what the HTTP base gives every
 * request (docs/performance.md, capture): an `x-request-id` on the answer, the request counted
 * in the metrics under its route pattern, and the one error renderer for anything thrown. No
 * framework hook runs on these paths: they are the product's hot path.
 */
export function bunRoutes(routes: DirectRoutes, deps: DirectRoutesDeps): Record<string, BunRoute> {
  const logger = deps.logger.child({ scope: "http" });
  const served: Record<string, BunRoute> = {};
  for (const [pattern, handler] of Object.entries(routes)) {
    const wrapped = wrap(pattern, handler, deps, logger);
    served[pattern] = Object.fromEntries(METHODS.map((m) => [m, wrapped])) as BunRoute;
  }
  return served;
}

function wrap(
  pattern: string,
  handler: DirectHandler,
  deps: DirectRoutesDeps,
  logger: Logger,
): DirectHandler {
  return async (request, server) => {
    const startedAt = performance.now();
    const requestId = requestIdOf(request, deps.ids);
    let response: Response;
    try {
      response = await handler(request, server);
    } catch (error) {
      response = errorResponse(request, error, requestId, logger);
    }
    response.headers.set("x-request-id", requestId);
    const seconds = (performance.now() - startedAt) / 1000;
    deps.metrics.observe(request.method, pattern, response.status, seconds);
    return response;
  };
}

function errorResponse(request: Request, error: unknown, requestId: string, logger: Logger) {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2)).split("?")[0] ?? "";
  const rendered = renderError("UNKNOWN", error, {
    requestId,
    logger,
    method: request.method,
    path,
  });
  return Response.json(rendered.body, { status: rendered.status });
}
