import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import { isoAt } from "../shared/clock.ts";
import { newDeliveryRow, WEBHOOK_ID_CHARS } from "./delivery.outbox.ts";
import type {
  AttemptObserverPostgres,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryPorts,
} from "./delivery.ports.ts";
import { toDeliveryRecord } from "./delivery.repo.ts";
import type { DeliveryStore } from "./delivery.store.ts";
import type { PostgresOutboxDeps } from "./delivery.worker.postgres.ts";

/** What the ports need of the node's worker. */
export interface PostgresOutboxWorker {
  queue: { notifyAll(): void };
  breakerOpen(key: string): boolean;
  /** An open breaker of `key` lets its probe go now (an operator's retry), in `tx`. */
  probeNow(tx: PostgresTx, key: string, now: number): Promise<void>;
}

/** A port whose SQLite form has no meaning on PostgreSQL: the caller must use its twin. */
function useTwin(name: string): never {
  throw new Error(`delivery.${name} takes a SQLite transaction: on PostgreSQL use ${name}Postgres`);
}

/**
 * The outbox's ports on PostgreSQL: rows are written in the caller's `sql.begin` transaction
 * (the `…Postgres` twins), reads go to the store. A kind whose owner writes in the attempt's
 * transaction must give the PostgreSQL form of its hooks, or registering it fails at build time
 * rather than leaving its state unwritten.
 */
export function createPostgresOutboxPorts(
  deps: Pick<PostgresOutboxDeps, "clock" | "ids"> & { postgres: PostgresDb },
  store: DeliveryStore,
  kinds: Map<DeliveryKind, DeliveryKindHandlers>,
  observers: AttemptObserverPostgres[],
  worker: () => PostgresOutboxWorker,
): DeliveryPorts {
  return {
    registerKind(kind, handlers) {
      if (kinds.has(kind)) throw new Error(`delivery kind ${kind} is registered already`);
      if (
        (handlers.onAttempt && !handlers.onAttemptPostgres) ||
        (handlers.onSkipped && !handlers.onSkippedPostgres)
      ) {
        throw new Error(`delivery kind ${kind} has no PostgreSQL form of its attempt hooks`);
      }
      kinds.set(kind, handlers);
    },
    // A room running on either store registers both; on PostgreSQL only the twin is heard.
    observeAttempts() {},
    observeAttemptsPostgres(observer) {
      observers.push(observer);
    },
    enqueue: () => useTwin("enqueue"),
    async enqueuePostgres(tx, items) {
      const now = deps.clock.now();
      const createdAt = isoAt(now);
      const rows = items.map((item) =>
        newDeliveryRow(
          item,
          deps.ids.uuid(),
          `msg_${deps.ids.base62(WEBHOOK_ID_CHARS)}`,
          now,
          createdAt,
        ),
      );
      await store.insert(tx, rows);
      return rows.map((row) => toDeliveryRecord(row, now));
    },
    // Every node may claim what was committed: the others hear of it through the cluster.
    wake: () => worker().queue.notifyAll(),
    ingestCommitted() {},
    breakerOpen: (key) => worker().breakerOpen(key),
    listBySubject: async (kind, subjectIds) => {
      const now = deps.clock.now();
      return (await store.listBySubject(kind, subjectIds)).map((row) => toDeliveryRecord(row, now));
    },
    listAttempts: (deliveryId, limit) => store.listAttempts(deliveryId, limit),
    attemptsOfSubject: (kind, subjectId, page) => store.attemptsOfSubject(kind, subjectId, page),
    requeue: () => useTwin("requeue"),
    requeuePostgres: (tx, kind, subjectId, options) =>
      store.requeue(tx, kind, subjectId, options?.includeEnded ?? false, deps.clock.now()),
    retryNow: () => useTwin("retryNow"),
    async retryNowPostgres(tx, kind, subjectIds, options) {
      const now = deps.clock.now();
      const done = await store.retryNow(tx, kind, subjectIds, options?.destinationKey ?? null, now);
      const touched = new Set(
        done.filter((d) => d.action !== "unchanged").map((d) => d.destinationKey),
      );
      for (const key of touched) await worker().probeNow(tx, key, now);
      return done;
    },
    forgetSubjects: () => useTwin("forgetSubjects"),
    forgetSubjectsPostgres: (tx, kind, subjectIds) => store.forgetSubjects(tx, kind, subjectIds),
  };
}
