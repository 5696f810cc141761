/**
 * REFERENCE, not Weir code: mockttp, the in-memory request catcher a user might install instead
 * of Weir, started the way its documentation shows for a mock server that records every request
 * (`getLocal()`, `start(port)`, one `forAnyRequest()` rule; traffic recording is on by default,
 * so every request stays readable through `getSeenRequests()`). Nothing reaches a disk.
 * Run with Node, the runtime mockttp is made for (the harness falls back to Bun without Node).
 *
 *   node scripts/bench/reference/mockttp-catcher.mjs <port>
 */
import { getLocal } from "mockttp";

const port = Number(process.argv[2]);
const server = getLocal();
await server.start(port);
await server.forAnyRequest().thenJson(200, { message: "Webhook received", request_id: "mockttp" });

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.stop().finally(() => process.exit(0));
  });
}
