/**
 * A node whose PostgreSQL outbox sends event deliveries and whose issues room hears every
 * attempt, for the kill -9 test of the observer path (src/issues/issues.crash.postgres.test.ts):
 * it prints "ready" once the observer is registered, then sends until it is killed.
 *   bun src/test-utils/issues-delivery-child.ts <postgres-url> <sink-url> <data-dir>
 */
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { generateSigningSecret } from "../delivery/delivery.signing.ts";
import { createIssuesRoom } from "../issues/issues.room.ts";
import { createSystemClock } from "../shared/clock.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { startDeliveryNode } from "./delivery-node.ts";
import { CRASH_ROUTE } from "./issues-observer.ts";

const [url, sinkUrl, dataDir] = process.argv.slice(2);
if (!url || !sinkUrl || !dataDir) {
  console.error("usage: issues-delivery-child.ts <postgres-url> <sink-url> <data-dir>");
  process.exit(2);
}
// Short waits keep failures (retries, half-open probes) flowing rather than waiting 30 s.
const node = await startDeliveryNode(url, sinkUrl, generateSigningSecret(), {
  destination_timeout_ms: 2_000,
  forward_timeout_ms: 2_000,
  retry_base_ms: 20,
  retry_cap_ms: 50,
  breaker_open_ms: 50,
});
createIssuesRoom(
  {
    postgres: node.postgres,
    clock: createSystemClock(),
    ids: createIds(),
    logger: createLogger({ level: "error", write: () => {} }),
    config: loadConfig({ env: {}, flags: { data_dir: dataDir } }).config,
  },
  {
    guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
    observeAttempts: node.ports.observeAttempts,
    observeAttemptsPostgres: node.ports.observeAttemptsPostgres,
    describeDestination: (id) => (id === CRASH_ROUTE.destinationId ? CRASH_ROUTE : null),
  },
);
console.log("ready");
// Keeps the process alive (the scheduler's timers may not).
setInterval(() => {}, 60_000);
