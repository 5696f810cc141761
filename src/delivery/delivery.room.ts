import type { TxHandle } from "../db/db.tx.ts";
import { type Room, subscription } from "../room.ts";
import { renderDeliveryMetrics } from "./delivery.metrics.ts";
import { createOutboxPorts } from "./delivery.outbox.ts";
import type {
  AttemptObserver,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryPorts,
} from "./delivery.ports.ts";
import { createDeliveryRepo } from "./delivery.repo.ts";
import { createRetryNowRepo } from "./delivery.retry-now.repo.ts";
import { createDeliveryWorker, type OutboxDeps } from "./delivery.worker.ts";
import { type ForwardCause, forwardDeliveries, forwardKey } from "./forwards.model.ts";

export type DeliveryRoomDeps = OutboxDeps;

/** What the delivery room lends: the outbox contract, and capture's way to enqueue forwards. */
export interface DeliveryRoomPorts extends DeliveryPorts {
  /** Writes the forward deliveries of stored captures in the capture batch's transaction. */
  enqueueForwards(tx: TxHandle, captures: readonly ForwardCause[]): number;
  /** The outbox's /metrics lines (Prometheus text). */
  metricLines(): string[];
}

/**
 * Builds the delivery room: the durable outbox every outbound webhook goes through (forwards,
 * events, alerts). Its worker starts with the server and stops after the rooms built later.
 */
export function createDeliveryRoom(deps: DeliveryRoomDeps): Room<DeliveryRoomPorts> {
  const repo = createDeliveryRepo(deps.db);
  // Before any write it follows: the gauges start from what the table holds (after a crash too).
  repo.rebuildGauges();
  const kinds = new Map<DeliveryKind, DeliveryKindHandlers>();
  const observers: AttemptObserver[] = [];
  const worker = createDeliveryWorker(deps, repo, kinds, observers);
  const ports = createOutboxPorts(
    deps,
    repo,
    createRetryNowRepo(deps.db, repo.moveGauges),
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
        deps.db.tx(() => repo.forgetBreaker(forwardKey(endpointId))),
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
