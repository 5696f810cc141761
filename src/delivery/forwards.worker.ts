import type { CapturedRequest } from "../capture/capture.model.ts";
import type { Endpoint } from "../endpoints/endpoints.model.ts";
import type { DomainEvents } from "../events.ts";
import { forwardTarget, isRetryable, retryDelayAfter, shouldForward } from "./forwards.model.ts";
import { type SendDeps, sendForward } from "./forwards.service.ts";

export interface ForwarderDeps extends SendDeps {
  findRequest(endpointId: string, requestId: string): CapturedRequest | null;
  findEndpointById(endpointId: string): Endpoint | null;
  /** Tries running at once; more wait in the queue. */
  maxInFlight?: number;
  /** Queued tries kept; beyond this new ones are dropped and logged. */
  maxQueued?: number;
}

interface Job {
  endpointId: string;
  requestId: string;
  /** The forward_url the try goes to (the sub-path and query are appended when sending). */
  base: string;
  attempt: number;
  /** Present for a first try straight from the bus; queued and retried jobs re-read by id. */
  request?: CapturedRequest;
}

/**
 * Re-sends captures to their endpoint's forward_url off the capture path (decisions.md §6): a
 * capture only enqueues; tries run on later event-loop turns, at most `maxInFlight` at once.
 * Failed tries (no answer, 408, 429, 5xx) are retried after 10 s and 60 s by the `forwards-retry`
 * job; queued jobs hold ids, not bodies, so a burst cannot exhaust memory. Retries live in memory:
 * a restart drops them (documented in docs/api.md).
 */
export function createForwarder(deps: ForwarderDeps) {
  const maxInFlight = deps.maxInFlight ?? 16;
  const maxQueued = deps.maxQueued ?? 10_000;
  const queued: Job[] = [];
  let retries: { dueAt: number; job: Job }[] = [];
  let inFlight = 0;
  let stopped = false;
  const log = deps.logger.child({ scope: "forwards" });

  function submit(job: Job): void {
    if (stopped) return;
    if (inFlight < maxInFlight) start(job);
    else if (queued.length < maxQueued) queued.push({ ...job, request: undefined });
    else log.warn("forward queue full; try dropped", { request_id: job.requestId });
  }

  function start(job: Job): void {
    inFlight += 1;
    // The next turn, so the publisher (the capture answer) never waits for any of this.
    setImmediate(() => {
      run(job)
        .catch((error) => log.error("forward failed", { request_id: job.requestId, error }))
        .finally(() => {
          inFlight -= 1;
          const next = queued.shift();
          if (next) submit(next);
        });
    });
  }

  async function run(job: Job): Promise<void> {
    if (stopped) return;
    const request = job.request ?? deps.findRequest(job.endpointId, job.requestId);
    if (!request) return; // deleted meanwhile: nothing left to send
    const url = forwardTarget(job.base, request.path, request.queryString);
    const record = await sendForward({ request, url, attempt: job.attempt }, deps);
    const delay = isRetryable(record) ? retryDelayAfter(job.attempt) : null;
    if (delay !== null && !stopped) {
      const next = { ...job, request: undefined, attempt: job.attempt + 1 };
      retries.push({ dueAt: deps.clock.now() + delay, job: next });
    }
  }

  return {
    /** The bus subscriber of `request.captured`. */
    onCaptured({ request, endpoint }: DomainEvents["request.captured"]): void {
      if (!shouldForward(request, endpoint.forwardUrl)) return;
      submit({
        endpointId: endpoint.id,
        requestId: request.id,
        base: endpoint.forwardUrl as string,
        attempt: 1,
        request,
      });
    },
    /**
     * Starts the retries that are due. A retry goes to the endpoint's current forward_url; none
     * is sent when the forward_url was removed or the endpoint is gone.
     */
    runDueRetries(): void {
      const now = deps.clock.now();
      const due = retries.filter((retry) => retry.dueAt <= now);
      retries = retries.filter((retry) => retry.dueAt > now);
      for (const { job } of due) {
        const base = deps.findEndpointById(job.endpointId)?.forwardUrl;
        if (base) submit({ ...job, base });
      }
    },
    /** Counts, for tests and metrics. */
    backlog: () => ({ inFlight, queued: queued.length, retries: retries.length }),
    /** Stops starting tries (shutdown); running ones finish. */
    stop(): void {
      stopped = true;
      queued.length = 0;
      retries = [];
    },
  };
}

export type Forwarder = ReturnType<typeof createForwarder>;
