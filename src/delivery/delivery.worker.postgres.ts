import { createPostgresDueQueue, type PostgresLease } from "../db/db.due-queue.postgres.ts";
import { createPostgresDueRows } from "../db/db.due-rows.postgres.ts";
import type { DueTable } from "../db/db.due-rows.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { SharedDeps } from "../deps.ts";
import { createAttemptRunner, type Recording } from "./delivery.attempt.ts";
import {
  type Admission,
  admit,
  type BreakerState,
  releaseStaleProbe,
} from "./delivery.breaker.model.ts";
import { createPostgresBreakers } from "./delivery.breaker.postgres.ts";
import { createFailureLog, failedTry } from "./delivery.failure-log.ts";
import { createAttemptCounts } from "./delivery.metrics.ts";
import { createPostgresOutcomes } from "./delivery.outcomes.postgres.ts";
import type {
  AttemptObserverPostgres,
  DeliveryKind,
  DeliveryKindHandlers,
} from "./delivery.ports.ts";
import { deliveryOfPgRow } from "./delivery.postgres.ts";
import type { DeliveryStore } from "./delivery.store.ts";
import { leaseFor } from "./delivery.worker.ts";

export type PostgresOutboxDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "bus" | "outbound" | "scheduler" | "config"
> & { postgres: PostgresDb };

/** The outbox's claims: one key per destination, organizations sharing the slots. */
export const DELIVERY_DUE_TABLE: DueTable = {
  table: "deliveries",
  key: "destination_key",
  group: "organization_id",
};

/**
 * The outbox's sending half on PostgreSQL, one per node: the same attempt as on SQLite
 * (delivery.attempt.ts) over claims shared by every node (`FOR UPDATE SKIP LOCKED`, leases on the
 * server's clock, so a killed node's rows are sent by another once its leases lapse, with the
 * webhook-id they were given when enqueued). Outcomes are recorded by
 * delivery.outcomes.postgres.ts: each with its attempt, the destination's breaker (changed under
 * the row's lock, so one half-open probe goes out across nodes) and the kind's and observers'
 * own writes (`onAttemptPostgres`), in batches.
 */
export function createPostgresDeliveryWorker(
  deps: PostgresOutboxDeps,
  store: DeliveryStore,
  kinds: ReadonlyMap<DeliveryKind, DeliveryKindHandlers>,
  observers: readonly AttemptObserverPostgres[],
  options: { node?: string } = {},
) {
  const { sql } = deps.postgres;
  const log = deps.logger.child({ scope: "delivery" });
  const logFailure = createFailureLog(log, deps.clock);
  const openMs = deps.config.breaker_open_ms;
  const leaseMs = leaseFor(deps.config);
  const breakers = createPostgresBreakers({ sql, clock: deps.clock });
  /** Destinations whose breaker this node last saw open or half-open (health reads it). */
  const openKeys = new Set<string>();
  const noteBreaker = (key: string, state: BreakerState) => {
    if (state.phase === "closed") openKeys.delete(key);
    else openKeys.add(key);
  };
  const outcomes = createPostgresOutcomes({
    deps,
    store,
    kinds,
    observers,
    breakers,
    noteBreaker,
    log,
  });

  /** Admission from the shared state, with this node's outcomes not yet committed folded in; a change (a probe going out) is decided under the row's lock. */
  const admitted = async (row: { destination_key: string }, now: number): Promise<Admission> => {
    const key = row.destination_key;
    const known = outcomes.withPending(key, await breakers.read(key));
    const quick = admit(releaseStaleProbe(known, now, openMs), now);
    if (quick.state === known) return quick;
    let decided: Admission = quick;
    await sql.begin((tx) =>
      breakers.update(
        tx,
        key,
        (current) => {
          decided = admit(releaseStaleProbe(current, now, openMs), now);
          return decided.state;
        },
        now,
      ),
    );
    noteBreaker(key, decided.state);
    return decided;
  };

  const attempts = createAttemptCounts();

  const uncommitted = new Set<Promise<unknown>>();
  /** The queue's slot frees at once; the row keeps its lease, and the attempt its share of concurrency, until the commit. */
  const recordLater = (item: Recording<PostgresLease>): void => {
    const committing = outcomes
      .commit(item)
      .then((delivery) => {
        if (item.next.next_attempt_at !== null) queue.notify();
        const attempt = item.attempt;
        if (!delivery || !attempt) return;
        attempts.count(delivery.kind, attempt);
        if (attempt.errorType !== null) logFailure(failedTry(delivery, attempt));
        deps.bus.publish("delivery.attempted", { delivery, attempt });
      })
      .catch((error) =>
        log.error("recording a delivery attempt failed; the row runs again when its lease ends", {
          id: item.row.id,
          error,
        }),
      );
    uncommitted.add(committing);
    committing.finally(() => {
      uncommitted.delete(committing);
      queue.notify(); // its slot counts again (concurrency below)
    });
  };

  const run = createAttemptRunner<PostgresLease>(deps, {
    kinds,
    admit: admitted,
    record: recordLater,
  });
  const node = options.node ?? crypto.randomUUID();
  const queue = createPostgresDueQueue({
    name: "delivery",
    store: createPostgresDueRows({
      sql,
      table: DELIVERY_DUE_TABLE,
      node,
      leaseMs,
      // Due times are the app's (retries, breaker waits): judged by the clock that set them.
      dueNow: () => deps.clock.now(),
    }),
    table: DELIVERY_DUE_TABLE,
    scheduler: deps.scheduler,
    logger: deps.logger,
    run: (row, lease) => run(deliveryOfPgRow(row), lease),
    leaseMs,
    // An attempt holds its slot until its outcome is written: what a crash can have sent and
    // not recorded (and so be sent again) stays within delivery_concurrency, however slow commits are.
    concurrency: () => deps.config.delivery_concurrency - uncommitted.size,
    perKey: deps.config.delivery_per_destination,
    // Bridged by the cluster: the other nodes' queues claim what this node enqueued at once.
    announce: { send: () => deps.bus.publish("delivery.due", { node }), clock: deps.clock },
  });

  return {
    queue,
    node,
    breakerOpen: (key: string) => openKeys.has(key),
    /** As on SQLite (delivery.outbox.ts): an operator's retry lets an open breaker's probe go now. */
    async probeNow(tx: PostgresTx, key: string, now: number) {
      const state = await breakers.update(
        tx,
        key,
        (s) => (s.phase === "open" && (s.openUntil ?? now) > now ? { ...s, openUntil: now } : s),
        now,
      );
      noteBreaker(key, state);
    },
    /** Forgets a destination's breaker on every node (the row) and on this one (its copy). */
    async forgetBreaker(key: string) {
      await breakers.forget(key);
      openKeys.delete(key);
    },
    /** Reads which breakers are not closed, so health on this node sees other nodes' breakers. */
    async refreshOpenBreakers() {
      const rows = await sql<{ destination_key: string }[]>`
        SELECT destination_key FROM delivery_breakers WHERE phase <> 'closed'`;
      openKeys.clear();
      for (const row of rows) openKeys.add(row.destination_key);
    },
    outcomes: attempts.list,
    async stop(): Promise<void> {
      await queue.stop();
      await Promise.all([...uncommitted]);
      await outcomes.close();
    },
  };
}

export type PostgresDeliveryWorker = ReturnType<typeof createPostgresDeliveryWorker>;
