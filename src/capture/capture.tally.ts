import { type Clock, isoAt } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";

/** Refusals of one endpoint since the last flush, as the repo adds them to its counters. */
export interface RefusalDelta {
  endpointId: string;
  rateLimited: number;
  tooLarge: number;
  lastRefusedAt: string;
}

/** Who a capture was for, as the tally names it in the log. */
export interface TalliedEndpoint {
  id: string;
  slug: string;
}

interface Counts {
  slug: string;
  accepted: number;
  rateLimited: number;
  tooLarge: number;
  warned: boolean;
  lastRefusedAt: number;
}

export interface CaptureTallyDeps {
  clock: Clock;
  logger: Logger;
  /** Adds the refusals counted since the last flush to the stored counters. */
  store(deltas: RefusalDelta[]): void;
}

/**
 * What capture tells the operator, without a log line or a write per request: a sender's flood
 * must not flood the log or the disk. Captures are counted per endpoint and summarised at info
 * once per interval (`summarise`); the first refusal (429 or 413) of an endpoint in an interval
 * is logged at warn at once, the rest only in the summary; refusal counts reach the database in
 * one batch per `flush`, where the endpoint's API and UI show them.
 */
export function createCaptureTally(deps: CaptureTallyDeps) {
  let counts = new Map<string, Counts>();
  let pending = new Map<string, RefusalDelta>();
  const entry = (endpoint: TalliedEndpoint) => {
    let found = counts.get(endpoint.id);
    if (!found) {
      found = {
        slug: endpoint.slug,
        accepted: 0,
        rateLimited: 0,
        tooLarge: 0,
        warned: false,
        lastRefusedAt: 0,
      };
      counts.set(endpoint.id, found);
    }
    return found;
  };
  return {
    accepted(endpoint: TalliedEndpoint): void {
      entry(endpoint).accepted += 1;
    },
    refused(endpoint: TalliedEndpoint, status: 413 | 429): void {
      const now = deps.clock.now();
      const counted = entry(endpoint);
      if (status === 429) counted.rateLimited += 1;
      else counted.tooLarge += 1;
      counted.lastRefusedAt = now;
      const delta = pending.get(endpoint.id) ?? {
        endpointId: endpoint.id,
        rateLimited: 0,
        tooLarge: 0,
        lastRefusedAt: "",
      };
      if (status === 429) delta.rateLimited += 1;
      else delta.tooLarge += 1;
      delta.lastRefusedAt = isoAt(now);
      pending.set(endpoint.id, delta);
      if (counted.warned) return;
      counted.warned = true;
      deps.logger.warn("capture refused", {
        endpoint_id: endpoint.id,
        slug: endpoint.slug,
        status,
        error: status === 429 ? "rate_limited" : "payload_too_large",
        note: "further refusals of this endpoint are counted in the next captures summary",
      });
    },
    /** Writes the refusals counted since the last flush; kept for the next one if that fails. */
    flush(): void {
      if (pending.size === 0) return;
      const deltas = [...pending.values()];
      pending = new Map();
      try {
        deps.store(deltas);
      } catch (error) {
        for (const delta of deltas) mergeBack(pending, delta);
        deps.logger.error("storing capture refusal counts failed", { error });
      }
    },
    /** One info line per endpoint that saw traffic since the last summary, then a fresh interval. */
    summarise(): void {
      const finished = counts;
      counts = new Map();
      for (const [endpointId, c] of finished) {
        deps.logger.info("captures", {
          endpoint_id: endpointId,
          slug: c.slug,
          accepted: c.accepted,
          refused_rate_limited: c.rateLimited,
          refused_too_large: c.tooLarge,
        });
      }
    },
  };
}

export type CaptureTally = ReturnType<typeof createCaptureTally>;

function mergeBack(pending: Map<string, RefusalDelta>, delta: RefusalDelta): void {
  const newer = pending.get(delta.endpointId);
  if (!newer) return void pending.set(delta.endpointId, delta);
  newer.rateLimited += delta.rateLimited;
  newer.tooLarge += delta.tooLarge;
}
