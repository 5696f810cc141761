import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { AppBus, DomainEvents } from "../events.ts";
import type { Logger } from "../shared/logger.ts";
import type { Scheduler } from "../shared/scheduler.ts";
import { createBusBridge } from "./cluster.bridge.ts";
import { createLeadership, DEFAULT_LEADERSHIP_RETRY_SECONDS } from "./cluster.leadership.ts";
import type { Cluster } from "./cluster.model.ts";
import { createClusterPostgresStore } from "./cluster.postgres.ts";

/**
 * The events every node must hear, whichever node published them: they drive live sockets and
 * caches. Not here: `server.started` and `server.stopping` (one node's life) and
 * `delivery.attempted` (heard by nothing outside the node that delivered).
 */
export const BRIDGED_EVENTS = [
  // A socket on another node watches the endpoint.
  "request.captured",
  "actions.completed",
  // Sockets opened on another node close, caches of the endpoint elsewhere go stale.
  "endpoint.deleted",
  "endpoint.updated",
  "api_key.revoked",
  "membership.changed",
  // Each node keeps its own renders of status pages: a write on one node empties them on all.
  "status_page.changed",
  // Each node caches route plans and opened signing secrets: an edit on one node reaches all.
  "routes.changed",
  // Each node answers "in maintenance?" from memory: a window written on one node holds on all.
  "maintenance.changed",
  // Deliveries enqueued on one node are claimed by any node's outbox at once, not at its poll.
  "delivery.due",
] as const satisfies readonly (keyof DomainEvents)[];

export interface PostgresClusterDeps {
  /** Bun's SQL client on the shared database (the lock holds one of its connections). */
  sql: PostgresDb["sql"];
  bus: AppBus;
  /** Times the tries for the lead (the app's scheduler, so a node's timers stay in one place). */
  scheduler: Scheduler;
  logger: Logger;
  nodeId?: string;
  retrySeconds?: number;
}

/** This node in a cluster of Weir nodes on one PostgreSQL database. */
export function createCluster(deps: PostgresClusterDeps): Cluster {
  const nodeId = deps.nodeId ?? crypto.randomUUID();
  const store = createClusterPostgresStore(deps.sql);
  const logger = deps.logger.child({ node: nodeId });
  const leadership = createLeadership({
    store,
    scheduler: deps.scheduler,
    logger,
    retrySeconds: deps.retrySeconds ?? DEFAULT_LEADERSHIP_RETRY_SECONDS,
  });
  const bridge = createBusBridge({ store, bus: deps.bus, events: BRIDGED_EVENTS, nodeId, logger });
  return {
    nodeId,
    isLeader: leadership.isLeader,
    onLeadershipChange: leadership.onChange,
    async start() {
      // Leadership first: it retries by itself, so a failing LISTEN does not keep a node from leading.
      leadership.start();
      await bridge.start();
    },
    async stop() {
      await leadership.stop();
      await bridge.stop();
    },
  };
}
