/**
 * A Weir node that only joins a cluster, for the kill -9 test (src/cluster/cluster.postgres.test.ts):
 * it prints "leading" once it holds the lead and then waits to be killed.
 *   bun src/test-utils/cluster-child.ts <postgres-url> <node-id> <retry-seconds>
 */
import { SQL } from "bun";
import { createCluster } from "../cluster/cluster.node.ts";
import type { DomainEvents } from "../events.ts";
import { createBus } from "../shared/bus.ts";
import { createSystemClock } from "../shared/clock.ts";
import { createLogger } from "../shared/logger.ts";
import { createScheduler } from "../shared/scheduler.ts";

const [url, nodeId, retryText] = process.argv.slice(2);
if (!url || !nodeId || !retryText) {
  console.error("usage: cluster-child.ts <postgres-url> <node-id> <retry-seconds>");
  process.exit(2);
}
const logger = createLogger({ level: "error" });
const scheduler = createScheduler(logger, createSystemClock());
const cluster = createCluster({
  sql: new SQL(url, { max: 2 }),
  bus: createBus<DomainEvents>(logger),
  scheduler,
  logger,
  nodeId,
  retrySeconds: Number(retryText),
});
cluster.onLeadershipChange((leader) => console.log(leader ? "leading" : "following"));
await cluster.start();
scheduler.start();
// Keeps the process alive (the scheduler's timers do not).
setInterval(() => {}, 60_000);
