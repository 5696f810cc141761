import { SQL } from "bun";
import type { Cluster } from "../cluster/cluster.model.ts";
import { createCluster } from "../cluster/cluster.node.ts";
import type { AppBus, DomainEvents } from "../events.ts";
import { createBus } from "../shared/bus.ts";
import { createSystemClock } from "../shared/clock.ts";
import { createLogger, type Logger } from "../shared/logger.ts";
import { createScheduler, type Scheduler } from "../shared/scheduler.ts";

/** One node of a test cluster: its own connections, bus, scheduler and cluster membership. */
export interface TestNode {
  id: string;
  sql: SQL;
  bus: AppBus;
  scheduler: Scheduler;
  logger: Logger;
  cluster: Cluster;
  stop(): Promise<void>;
}

/** Starts a node on the database at `url`; a follower tries for the lead every `retrySeconds`. */
export async function startTestNode(
  url: string,
  id: string,
  retrySeconds: number,
): Promise<TestNode> {
  const logger = createLogger({ level: "error", write: () => {} });
  const sql = new SQL(url, { max: 4 });
  const bus = createBus<DomainEvents>(logger);
  const scheduler = createScheduler(logger, createSystemClock());
  const cluster = createCluster({ sql, bus, scheduler, logger, nodeId: id, retrySeconds });
  await cluster.start();
  scheduler.start();
  return {
    id,
    sql,
    bus,
    scheduler,
    logger,
    cluster,
    async stop() {
      await cluster.stop();
      scheduler.stop();
      await sql.close();
    },
  };
}

/** Every listed event each node hears, in order, as `event payload-json`. */
export function recordEvents(node: TestNode, events: readonly (keyof DomainEvents)[]): string[] {
  const heard: string[] = [];
  for (const event of events) {
    node.bus.on(event, (payload) => void heard.push(`${event} ${JSON.stringify(payload)}`));
  }
  return heard;
}
