import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import { type Room, subscription } from "../room.ts";
import { renderDeliveryMetrics } from "./delivery.metrics.ts";
import { createPostgresOutboxPorts } from "./delivery.outbox.postgres.ts";
import { createOutboxPorts } from "./delivery.outbox.ts";
import type {
  AttemptObserver,
  AttemptObserverPostgres,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryPorts,
} from "./delivery.ports.ts";
import { createDeliveryPostgresStore } from "./delivery.postgres.ts";
import { createDeliveryRepo } from "./delivery.repo.ts";
import { createRetryNowRepo } from "./delivery.retry-now.repo.ts";
import { createPostgresDeliveryWorker } from "./delivery.worker.postgres.ts";
import { createDeliveryWorker } from "./delivery.worker.ts";
import { type ForwardCause, forwardDeliveries, forwardKey } from "./forwards.model.ts";

export type DeliveryRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "bus" | "outbound" | "scheduler" | "config"
> &
  RoomStorage;

/** How often a PostgreSQL node reads the queue's figures and the breakers not closed. */
export const DELIVERY_STATS_JOB = "delivery.stats";
const STATS_SECONDS = 5;

/** What the delivery room lends: the outbox contract, and capture's way to enqueue forwards. */
export interface DeliveryRoomPorts extends DeliveryPorts {
  /** Writes the forward deliveries of stored captures in the capture batch's transaction. */
  enqueueForwards(tx: TxHandle, captures: readonly ForwardCause[]): number;
  /** `enqueueForwards` in capture's PostgreSQL transaction (PostgreSQL only). */
  enqueueForwardsPostgres?(tx: PostgresTx, captures: readonly ForwardCause[]): Promise<number>;
  /** The outbox's /metrics lines (Prometheus text). */
  metricLines(): string[];
}

/**
 * Builds the delivery room: the durable outbox every outbound webhook goes through (forwards,
 * events, alerts). Its worker starts with the server and stops after the rooms built later.
 */
export function createDeliveryRoom(deps: DeliveryRoomDeps): Room<DeliveryRoomPorts> {
  if (deps.postgres) return createPostgresDeliveryRoom({ ...deps, postgres: deps.postgres });
  const db = sqliteOf(deps);
  const repo = createDeliveryRepo(db);
  // Before any write it follows: the gauges start from what the table holds (after a crash too).
  repo.rebuildGauges();
  const kinds = new Map<DeliveryKind, DeliveryKindHandlers>();
  const observers: AttemptObserver[] = [];
  const worker = createDeliveryWorker({ ...deps, db }, repo, kinds, observers);
  const ports = createOutboxPorts(
    deps,
    repo,
    createRetryNowRepo(db, repo.moveGauges),
    kinds,
    (organizations) => worker.queue.notify(organizations),
    observers,
    (size) => worker.ingestCommitted(size),
  );
  return {
    routes: null,
    jobs: [],
    subscriptions: [
      subscription("server.started", () => worker.queue.start()),
      // The endpoint is gone: its breaker goes now. Its forward deliveries go with its requests,
      // batch by batch, as capture drains them (forgetSubjects); one unindexed statement here
      // would hold every capture up. Until then none is sent: the forward kind finds no endpoint.
      subscription("endpoint.deleted", ({ endpointId }) =>
        db.tx(() => repo.forgetBreaker(forwardKey(endpointId))),
      ),
    ],
    stop: () => worker.stop(),
    ports: {
      ...ports,
      metricLines: () => renderDeliveryMetrics(repo.stats(deps.clock.now()), worker.outcomes()),
      enqueueForwards(tx, captures) {
        const items = forwardDeliveries(captures);
        if (items.length > 0) ports.enqueue(tx, items);
        return items.length;
      },
    },
  };
}

/**
 * The delivery room of a node on PostgreSQL: the same ports and the same attempt as on SQLite,
 * over one outbox every node claims from (delivery.worker.postgres.ts). /metrics reads the
 * queue's figures every 5 s rather than from gauges kept in memory: other nodes move them too.
 */
function createPostgresDeliveryRoom(
  deps: DeliveryRoomDeps & { postgres: PostgresDb },
): Room<DeliveryRoomPorts> {
  const store = createDeliveryPostgresStore(deps.postgres);
  const kinds = new Map<DeliveryKind, DeliveryKindHandlers>();
  const observers: AttemptObserverPostgres[] = [];
  const worker = createPostgresDeliveryWorker(deps, store, kinds, observers);
  const ports = createPostgresOutboxPorts(deps, store, kinds, observers, () => worker);
  let stats: Parameters<typeof renderDeliveryMetrics>[0] = { queued: 0, due: 0, breakers: [] };
  const refresh = async () => {
    stats = await queueFigures(deps.postgres);
    await worker.refreshOpenBreakers();
  };
  return {
    routes: null,
    jobs: [
      // Each node reads them for its own /metrics and health answers.
      {
        name: DELIVERY_STATS_JOB,
        intervalSeconds: STATS_SECONDS,
        runNow: true,
        scope: "node",
        run: refresh,
      },
    ],
    subscriptions: [
      subscription("server.started", () => worker.queue.start()),
      subscription("endpoint.deleted", ({ endpointId }) =>
        worker.forgetBreaker(forwardKey(endpointId)),
      ),
      // Another node enqueued: its announcement reaches this node through the cluster's bridge.
      subscription("delivery.due", ({ node }) => {
        if (node !== worker.node) worker.queue.notify();
      }),
    ],
    stop: () => worker.stop(),
    ports: {
      ...ports,
      metricLines: () => renderDeliveryMetrics(stats, worker.outcomes()),
      enqueueForwards: () => {
        throw new Error("delivery.enqueueForwards takes a SQLite transaction");
      },
      async enqueueForwardsPostgres(tx, captures) {
        const items = forwardDeliveries(captures);
        if (items.length > 0) await ports.enqueuePostgres?.(tx, items);
        return items.length;
      },
    },
  };
}

/** The queue's figures as /metrics shows them, counted on the server's clock. */
async function queueFigures(pg: PostgresDb) {
  const [row] = await pg.sql<{ queued: number; due: number }[]>`
    WITH n AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
    SELECT count(*) FILTER (WHERE next_attempt_at IS NOT NULL)::int AS queued,
           count(*) FILTER (WHERE next_attempt_at <= n.ms
                              AND (locked_until IS NULL OR locked_until <= n.ms))::int AS due
      FROM deliveries, n`;
  const breakers = await pg.sql<{ phase: string; n: string }[]>`
    SELECT phase, n FROM delivery_breaker_phases`;
  return {
    queued: row?.queued ?? 0,
    due: row?.due ?? 0,
    breakers: breakers.map((b) => ({ phase: b.phase, n: Number(b.n) })),
  };
}
