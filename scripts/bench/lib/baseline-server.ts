/**
 * The baseline every figure is divided by: raw `Bun.serve` that reads the request body (so body
 * size costs the same as in the subject) and answers small JSON, as any webhook catcher must.
 * Run as its own process, like the subject, so both pay the same process and scheduling costs.
 *
 *   bun scripts/bench/lib/baseline-server.ts --port 8080 [--host 127.0.0.1]
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { port: { type: "string" }, host: { type: "string", default: "127.0.0.1" } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port <= 0) {
  console.error("baseline-server: --port <n> is required");
  process.exit(2);
}

const server = Bun.serve({
  port,
  hostname: values.host,
  async fetch(request) {
    await request.arrayBuffer();
    return Response.json({ message: "ok", request_id: crypto.randomUUID() });
  },
});

// The harness stops servers with SIGTERM; exit promptly so no port or process lingers.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    server.stop(true);
    process.exit(0);
  });
}
