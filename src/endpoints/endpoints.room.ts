import { createRequestsRepo } from "../capture/requests.repo.ts";
import { createForwardsRepo } from "../delivery/forwards.repo.ts";
import type { ForwardsDeps } from "../delivery/forwards.service.ts";
import { createForwarder } from "../delivery/forwards.worker.ts";
import type { AppDeps } from "../deps.ts";
import { createClientIpResolver } from "../http/http.client-ip.ts";
import { createKeyedLimiter, perMinute } from "../shared/token-bucket.ts";
import type { AnonymousDeps } from "./anonymous.service.ts";
import { createEndpointsRepo } from "./endpoints.repo.ts";
import type { EndpointsDeps } from "./endpoints.service.ts";

/** Every second: retries of failed forwards are started once due (deps.clock decides). */
const FORWARD_RETRY_PATTERN = "* * * * * *";
/** Anonymous endpoint creation per client address: 10 at once, then one a minute. */
const ANONYMOUS_CREATION = perMinute(10, 1);

/**
 * Builds the endpoints room once per app: repos, use-case deps, the forwarder listening to
 * `request.captured`, its retry job, and the per-address limiter of anonymous creation.
 */
export function createEndpointsRoom(deps: AppDeps) {
  const repo = createEndpointsRepo(deps.db);
  const requests = createRequestsRepo(deps.db);
  const send = {
    forwards: createForwardsRepo(deps.db),
    clock: deps.clock,
    ids: deps.ids,
    outbound: deps.outbound,
    logger: deps.logger,
    timeoutMs: deps.config.forward_timeout_ms,
  };
  const endpoints: EndpointsDeps = {
    repo,
    checkTarget: (url) => deps.outbound.urlProblem(url),
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    bus: deps.bus,
  };
  const forwards: ForwardsDeps = { endpoints: repo, requests, send };
  const anonymous: AnonymousDeps = { repo, requests, clock: deps.clock, ids: deps.ids };
  const forwarder = createForwarder({ ...send, requests, endpoints: repo });
  deps.bus.on("request.captured", (event) => forwarder.onCaptured(event));
  deps.bus.on("server.stopping", () => forwarder.stop());
  deps.scheduler.every("forwards.retry", FORWARD_RETRY_PATTERN, () => forwarder.runDueRetries());
  return {
    endpoints,
    requests: { endpoints: repo, requests },
    forwards,
    anonymous,
    forwarder,
    anonymousLimiter: createKeyedLimiter(deps.clock, ANONYMOUS_CREATION),
    resolveClientIp: createClientIpResolver(deps.config.trusted_proxies),
    /** The public base URL for a request: base_url, or the request's own host and scheme. */
    publicBaseUrl: deps.publicBaseUrl,
  };
}

export type EndpointsRoom = ReturnType<typeof createEndpointsRoom>;
