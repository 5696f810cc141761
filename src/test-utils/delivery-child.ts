/**
 * A node that only sends deliveries, for the kill -9 tests of the PostgreSQL outbox
 * (src/delivery/delivery.nodes.postgres.test.ts): it prints "ready" once its worker runs, then
 * sends until it is killed.
 *   bun src/test-utils/delivery-child.ts <postgres-url> <sink-url> <signing-secret>
 */
import { startDeliveryNode } from "./delivery-node.ts";

const [url, sinkUrl, secret] = process.argv.slice(2);
if (!url || !sinkUrl || !secret) {
  console.error("usage: delivery-child.ts <postgres-url> <sink-url> <signing-secret>");
  process.exit(2);
}
// Short timeouts make the lease its floor (5 s), as the test's own nodes have it.
await startDeliveryNode(url, sinkUrl, secret, {
  destination_timeout_ms: 2_000,
  forward_timeout_ms: 2_000,
});
console.log("ready");
// Keeps the process alive (the scheduler's timers may not).
setInterval(() => {}, 60_000);
