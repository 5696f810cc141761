#!/usr/bin/env bun
/**
 * A delivery sink for the benchmarks, started as its own process (pinned with the load, never on
 * the server's cpu): answers every request 200 at once and counts them. `GET /_sink` gives
 * `{count, lastAt}` (lastAt: epoch ms of the latest arrival); `POST /_sink/reset` zeroes it.
 *
 *   bun sink-server.ts --port 9100
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } });
let count = 0;
let lastAt = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(values.port),
  async fetch(request) {
    const path = request.url.slice(request.url.indexOf("/", 8));
    if (path === "/_sink") return Response.json({ count, lastAt });
    if (path === "/_sink/reset") {
      count = 0;
      lastAt = 0;
      return Response.json({ count });
    }
    await request.arrayBuffer();
    count += 1;
    lastAt = Date.now();
    return new Response("ok");
  },
});
console.log(`sink listening on ${server.port}`);
