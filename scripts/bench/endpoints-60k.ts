#!/usr/bin/env bun
/**
 * Endpoint reads and deletes with a large history (decisions.md §14, hardening): a real Weir
 * server (port 0, a temp data dir, durability full), one endpoint holding 60,000 stored requests.
 *
 * Prints, each against a baseline measured in the same run:
 * - listing and getting endpoints with the 60k rows, against the same reads while that endpoint
 *   is empty (target: < 5 ms);
 * - capture latency on another endpoint while the 60k endpoint is deleted, against the same
 *   captures with nothing else going on (target: p99 < 50 ms).
 *
 * Usage: bun scripts/bench/endpoints-60k.ts [--rows 60000] [--reads 200]
 * Figures from a busy, shared machine are noisy: compare the ratios, not the milliseconds.
 */
import { parseArgs } from "node:util";
import { createRequestsRepo } from "../../src/capture/requests.repo.ts";
import { signUp, type TestAccount } from "../../src/test-utils/accounts.ts";
import { makeCapturedRequest } from "../../src/test-utils/requests-fixtures.ts";
import { startTestServer, type TestServer } from "../../src/test-utils/test-server.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "60000" },
    reads: { type: "string", default: "200" },
  },
});
const ROWS = Number(values.rows);
const READS = Number(values.reads);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function timed(call: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await call();
  await response.arrayBuffer();
  if (response.status >= 400) throw new Error(`answered ${response.status}`);
  return performance.now() - started;
}

async function readLatencies(server: TestServer, account: TestAccount, paths: string[]) {
  const samples: number[] = [];
  for (let i = 0; i < READS; i++) {
    for (const path of paths) {
      samples.push(await timed(() => server.request(path, { headers: account.headers })));
    }
  }
  return summary(samples);
}

function seed(server: TestServer, endpointId: string, rows: number) {
  const repo = createRequestsRepo(server.deps.db);
  const body = new Uint8Array(1024).fill(120);
  server.deps.db.sqlite.transaction(() => {
    for (let i = 0; i < rows; i++) {
      repo.insert(
        makeCapturedRequest({ id: server.deps.ids.uuid(), endpointId, body, method: "POST" }),
      );
    }
  })();
}

/** Captures on `slug` from `senders` concurrent loops until `until` resolves; their latencies. */
async function captureDuring(server: TestServer, slug: string, until: Promise<unknown>) {
  const samples: number[] = [];
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const sender = async () => {
    while (!done) {
      samples.push(
        await timed(() => server.request(`/w/${slug}`, { method: "POST", body: '{"n":1}' })),
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
  return summary(samples);
}

const server = await startTestServer({
  config: { durability: "full", capture_rate_limit: "off", log_level: "error" },
});
try {
  const account = await signUp(server, { plan: "enterprise" });
  const create = async (name: string) => {
    const response = await server.request("/api/v1/endpoints", {
      method: "POST",
      headers: { ...account.headers, "content-type": "application/json" },
      body: JSON.stringify({ debug_endpoint: { name } }),
    });
    return ((await response.json()) as { data: { id: string; slug: string } }).data;
  };
  const big = await create("Big history");
  const other = await create("Other");
  const reads = ["/api/v1/endpoints", `/api/v1/endpoints/${big.id}`, "/api/v1/debug-endpoints"];

  const emptyReads = await readLatencies(server, account, reads);
  const seedStarted = performance.now();
  seed(server, big.id, ROWS);
  console.log(`seeded ${ROWS.toLocaleString()} rows in ${ms(performance.now() - seedStarted)}`);
  const fullReads = await readLatencies(server, account, reads);

  const quiet = await captureDuring(server, other.slug, Bun.sleep(2000));
  let deleteMs = 0;
  const deletion = (async () => {
    await Bun.sleep(200);
    deleteMs = await timed(() =>
      server.request(`/api/v1/endpoints/${big.id}`, { method: "DELETE", headers: account.headers }),
    );
    await Bun.sleep(200);
  })();
  const during = await captureDuring(server, other.slug, deletion);

  console.log("\nendpoint reads (list both families, get one), per request:");
  console.log(`  baseline, endpoint empty   p50 ${ms(emptyReads.p50)}  p99 ${ms(emptyReads.p99)}`);
  console.log(
    `  ${ROWS.toLocaleString()} rows stored        p50 ${ms(fullReads.p50)}  p99 ${ms(fullReads.p99)}  ratio p50 ${(fullReads.p50 / emptyReads.p50).toFixed(2)}x  target p50 < 5 ms: ${fullReads.p50 < 5 ? "PASS" : "MISS"}`,
  );
  console.log("\ncaptures on another endpoint (8 concurrent senders):");
  console.log(
    `  baseline, nothing else     p50 ${ms(quiet.p50)}  p99 ${ms(quiet.p99)}  (${quiet.n})`,
  );
  console.log(
    `  while deleting the 60k one p50 ${ms(during.p50)}  p99 ${ms(during.p99)}  (${during.n})  ratio p99 ${(during.p99 / quiet.p99).toFixed(2)}x  target p99 < 50 ms: ${during.p99 < 50 ? "PASS" : "MISS"}`,
  );
  console.log(`  the DELETE itself answered in ${ms(deleteMs)}`);
} finally {
  await server.stop();
}
