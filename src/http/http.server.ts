import { Elysia } from "elysia";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { renderError } from "./http.errors.ts";
import type { Metrics } from "./http.metrics.ts";
import { createRequestTracker } from "./http.request-context.ts";

/**
 * The base of every Weir server: request ids on every response, metrics by route pattern, and
 * the one error renderer. Rooms' route plugins are mounted on what this returns.
 *
 * Metrics are recorded in afterHandle (answers) and onError (failures) rather than in
 * afterResponse: Elysia's afterResponse hook cost ~35 % of the request rate in our benchmark.
 * The latency therefore excludes writing the response body, which Bun does after we return.
 */
export function createHttpBase(deps: { ids: Ids; logger: Logger; metrics: Metrics }) {
  const tracker = createRequestTracker(deps.ids);
  const logger = deps.logger.child({ scope: "http" });
  const observe = (request: Request, route: string, status: unknown) => {
    const seconds = (performance.now() - tracker.get(request).startedAt) / 1000;
    deps.metrics.observe(
      request.method,
      route || "unmatched",
      typeof status === "number" ? status : 200,
      seconds,
    );
  };
  return new Elysia({ name: "weir-http-base" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = tracker.begin(request).id;
    })
    .onAfterHandle({ as: "global" }, ({ request, route, set, responseValue }) => {
      const status = responseValue instanceof Response ? responseValue.status : set.status;
      observe(request, route, status);
    })
    .onError({ as: "global" }, ({ code, error, request, set, path, route }) => {
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
      observe(request, route, rendered.status);
      return rendered.body;
    });
}
