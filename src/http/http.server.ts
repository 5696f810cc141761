import { Elysia } from "elysia";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { renderError } from "./http.errors.ts";
import type { Metrics } from "./http.metrics.ts";
import { createRequestTracker } from "./http.request-context.ts";

/**
 * The base of every Weir server: request ids on every response, metrics by route pattern, and
 * the one error renderer. Rooms' route plugins are mounted on what this returns.
 */
export function createHttpBase(deps: { ids: Ids; logger: Logger; metrics: Metrics }) {
  const tracker = createRequestTracker(deps.ids);
  const logger = deps.logger.child({ scope: "http" });
  return new Elysia({ name: "weir-http-base" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = tracker.begin(request).id;
    })
    .onError({ as: "global" }, ({ code, error, request, set, path }) => {
      const meta = tracker.get(request);
      const rendered = renderError(code, error, {
        requestId: meta.id,
        logger,
        method: request.method,
        path,
      });
      set.status = rendered.status;
      set.headers["x-request-id"] = meta.id;
      set.headers["content-type"] = "application/json";
      return rendered.body;
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set }) => {
      const meta = tracker.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      const seconds = (performance.now() - meta.startedAt) / 1000;
      deps.metrics.observe(request.method, route || "unmatched", status, seconds);
    });
}
