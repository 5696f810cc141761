#!/usr/bin/env bun
/**
 * The status-page scenario's baseline: raw Bun.serve answering, on every path, the very bytes
 * Weir renders for the seeded page (rendered once here, from a data dir seeded the same way).
 * Usage: bun status-page-raw.ts --port N --dir DIR
 */
import { seedStatusWeir, uncachedRenders } from "./status-page-setup.ts";

const arg = (name: string) => process.argv[process.argv.indexOf(name) + 1] ?? "";
const dir = arg("--dir");
seedStatusWeir({ dir });
const { body } = await uncachedRenders(dir, 1);
const bytes = new TextEncoder().encode(body);
Bun.serve({
  port: Number(arg("--port")),
  hostname: "127.0.0.1",
  fetch: () =>
    new Response(bytes, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "public, max-age=5",
        etag: '"raw"',
      },
    }),
});
