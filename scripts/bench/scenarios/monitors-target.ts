/**
 * The monitors scenario's target: a Bun.serve answering 200 to every check, on the load core.
 *
 *   bun monitors-target.ts <port>
 */
const port = Number(process.argv[2]);
Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("ok") });
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => process.exit(0));
