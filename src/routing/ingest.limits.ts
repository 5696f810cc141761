import type { Clock } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import type { SharedKeyedLimiter } from "../shared/token-bucket.store.ts";
import { type BucketRule, createTokenBuckets } from "../shared/token-bucket.ts";
import type { Source } from "./sources.model.ts";

/** An ingest refused by its organization's plan. */
export interface IngestRefusal {
  status: number;
  error: "rate_limited" | "event_quota_exceeded";
  /** Seconds, for `Retry-After`. */
  retryAfterSeconds?: number;
}

export interface IngestLimitsDeps {
  clock: Clock;
  plans: PlanTable;
  /** `off` lifts the per-source buckets, as it lifts capture's (decisions.md §10). */
  rateLimit: "plan" | "off";
  /** The organization's plan as stored now. */
  planOf(organizationId: string): Plan;
  /** Bytes of event bodies the organization stores now: one sum, when first asked. */
  storedEventBytes(organizationId: string): number;
  /**
   * On PostgreSQL: a limiter whose buckets every node shares (one per rule), so a source's rate
   * holds for the cluster. Absent: the buckets are this process's memory.
   */
  sharedBuckets?: (name: string, rule: BucketRule) => SharedKeyedLimiter;
  /**
   * On PostgreSQL: the same two reads through the stores, awaited in `admitShared` before the
   * synchronous checks use them (`planOf` and `storedEventBytes` are then never called).
   */
  readsAsync?: {
    planOf(organizationId: string): Promise<Plan>;
    storedEventBytes(organizationId: string): Promise<number>;
  };
}

/** A plan read is kept this long: a plan change applies within a second, not per request. */
const PLAN_TTL_MS = 1_000;
const MIB = 1_048_576;

/**
 * The plan's limits on ingest (decisions.md §3 and §15): each source has the capture bucket of
 * its organization's plan, and an organization stores at most `event_storage_mb` of event
 * bodies. The stored bytes are summed once per organization and then counted in memory: an
 * admitted body counts at once (concurrent ingests cannot pass the quota together) and is taken
 * back when nothing was stored; a retention sweep makes the next ingest sum them again.
 */
export function createIngestLimits(deps: IngestLimitsDeps) {
  const buckets = createTokenBuckets();
  const plans = new Map<string, { plan: Plan; readAt: number }>();
  const storedBytes = new Map<string, number>();

  const { readsAsync } = deps;
  const quotaOf = (organizationId: string) => {
    const now = deps.clock.now();
    let known = plans.get(organizationId);
    // Read through the store in `admitShared` when there is one: its last read holds until then.
    if (!known || (now - known.readAt > PLAN_TTL_MS && !readsAsync)) {
      known = { plan: readsAsync ? "free" : deps.planOf(organizationId), readAt: now };
      plans.set(organizationId, known);
    }
    return deps.plans[known.plan] ?? deps.plans.free;
  };

  const stored = (organizationId: string) => {
    let bytes = storedBytes.get(organizationId);
    if (bytes === undefined) {
      bytes = readsAsync ? 0 : deps.storedEventBytes(organizationId);
      storedBytes.set(organizationId, bytes);
    }
    return bytes;
  };

  /** The plan (when stale) and stored bytes (when unknown), read before the checks use them. */
  const readAhead = async (organizationId: string) => {
    if (!readsAsync) return;
    const now = deps.clock.now();
    const known = plans.get(organizationId);
    if (!known || now - known.readAt > PLAN_TTL_MS) {
      plans.set(organizationId, { plan: await readsAsync.planOf(organizationId), readAt: now });
    }
    if (!storedBytes.has(organizationId)) {
      const bytes = await readsAsync.storedEventBytes(organizationId);
      // An ingest admitted while this was read counted itself already.
      if (!storedBytes.has(organizationId)) storedBytes.set(organizationId, bytes);
    }
  };

  const ruleOf = (source: Source): BucketRule => {
    const quota = quotaOf(source.organizationId);
    return { ratePerSecond: quota.capture_rate_per_second, burst: quota.capture_burst };
  };
  const refusal = (wait: number): IngestRefusal | null =>
    wait > 0 ? { status: 429, error: "rate_limited", retryAfterSeconds: wait } : null;

  const shared = new Map<string, SharedKeyedLimiter>();
  const { sharedBuckets } = deps;
  const sharedLimiterOf = (rule: BucketRule) => {
    // A limiter per rule: the rows of one plan's buckets never refill at another plan's rate.
    const name = `ingest-${rule.ratePerSecond}-${rule.burst}`;
    let limiter = shared.get(name);
    if (!limiter && sharedBuckets) {
      limiter = sharedBuckets(name, rule);
      shared.set(name, limiter);
    }
    return limiter;
  };

  return {
    /** Before the body is read: the source's token bucket. */
    admit(source: Source): IngestRefusal | null {
      if (deps.rateLimit === "off") return null;
      return refusal(buckets.take(source.id, ruleOf(source), deps.clock.now()));
    },
    /** `admit` on the cluster's shared buckets; null when the buckets are in memory. */
    admitShared: sharedBuckets
      ? async (source: Source): Promise<IngestRefusal | null> => {
          await readAhead(source.organizationId);
          if (deps.rateLimit === "off") return null;
          const limiter = sharedLimiterOf(ruleOf(source));
          return limiter ? refusal(await limiter.take(source.id)) : null;
        }
      : null,
    /** Drops the shared buckets that refilled completely; how many went (0 in memory). */
    async sweepShared(): Promise<number> {
      let removed = 0;
      for (const limiter of shared.values()) removed += await limiter.sweep();
      return removed;
    },
    /**
     * With the body read: whether the organization may store `bytes` more. An admitted body is
     * counted now; call `notStored` when the ingest stored nothing (a duplicate, a failure).
     */
    admitBody(source: Source, bytes: number): IngestRefusal | null {
      const limit = quotaOf(source.organizationId).event_storage_mb;
      if (limit === null) return null;
      const now = stored(source.organizationId);
      if (now + bytes > limit * MIB) return { status: 429, error: "event_quota_exceeded" };
      storedBytes.set(source.organizationId, now + bytes);
      return null;
    },
    /** An admitted body was not stored after all: it no longer counts. */
    notStored(source: Source, bytes: number): void {
      const known = storedBytes.get(source.organizationId);
      if (known !== undefined) storedBytes.set(source.organizationId, Math.max(0, known - bytes));
    },
    /** Events were deleted: every organization's bytes are summed again when next needed. */
    forgetStored(): void {
      storedBytes.clear();
    },
  };
}

export type IngestLimits = ReturnType<typeof createIngestLimits>;
