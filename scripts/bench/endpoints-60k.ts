#!/usr/bin/env bun
/**
 * Endpoint reads and deletes with a large history (decisions.md §14, hardening): a real Weir
 * server (port 0, a temp data dir, durability full) whose endpoints hold 60,000 stored requests.
 *
 * Prints, each against a baseline measured in the same run, in interleaved rounds:
 * - listing and getting endpoints of an organization whose endpoint holds the 60k rows, against
 *   the same reads of an organization whose endpoint is empty (target: p50 < 5 ms);
 * - capture latency on another endpoint while a 60k endpoint is deleted, and while one is
 *   emptied, each until the background drain has removed every row and the search index's merge
 *   (woken by the drain) has finished, against the same captures with nothing else going on
 *   (target: p99 < 50 ms, close to the quiet figure); the index's size before and after.
 *
 * Usage: bun scripts/bench/endpoints-60k.ts [--rows 60000] [--reads 200] [--rounds 3]
 *        [--fts-deletemerge N] (an experiment: the search index's FTS5 deletemerge percentage,
 *        0 since migration 0019; 10 is FTS5's default, what Weir ran before)
 * Figures from a busy, shared machine are noisy: compare the ratios, not the milliseconds.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createRequestsRepo } from "../../src/capture/requests.repo.ts";
import { signUp, type TestAccount } from "../../src/test-utils/accounts.ts";
import { startTestServer, type TestServer } from "../../src/test-utils/test-server.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "60000" },
    reads: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
    "fts-deletemerge": { type: "string" },
  },
});
const ROWS = Number(values.rows);
const READS = Number(values.reads);
const ROUNDS = Number(values.rounds);
/** Capture senders on the other endpoint, and how long the quiet window lasts. */
const SENDERS = 8;
const QUIET_MS = 3000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
interface Summary {
  p50: number;
  p99: number;
  n: number;
  /** Longest event-loop stall seen during the window (capture windows only). */
  stall?: number;
  /** The captures sent while the search index's merge ran (delete and empty windows only). */
  merge?: Summary;
}
const summary = (samples: number[]): Summary => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
};
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const ms = (n: number) => `${n.toFixed(2)} ms`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

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

/** 60k stored requests of 1 KiB, written straight into the database (and counted, as capture does). */
function seed(server: TestServer, endpointId: string, rows: number) {
  const sqlite = server.deps.db.sqlite;
  const insert = sqlite.prepare(
    `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string,
       raw_headers, body, content_type, size, remote_ip, status, created_at)
     VALUES (?, ?, 'POST', '', '', '[["content-type","application/json"]]', ?,
       'application/json', 1024, '127.0.0.1', 200, ?)`,
  );
  const body = new Uint8Array(1024).fill(120);
  const createdAt = new Date().toISOString();
  sqlite.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(server.deps.ids.uuid(), endpointId, body, createdAt);
    sqlite.run("UPDATE debug_endpoints SET request_count = request_count + ? WHERE id = ?", [
      rows,
      endpointId,
    ]);
  })();
  // Captured rows reach the search index soon after their commit; seeded ones are indexed here,
  // and the seed's WAL goes to the database now, both outside any measured window.
  const requests = createRequestsRepo(server.deps.db);
  while (requests.indexForSearch(5_000) > 0);
  sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
  // The seed's garbage is collected now, not as a pause inside the next measured window.
  Bun.gc(true);
}

/** Rows of the search index's data table: its size in ~4 KB pages. */
const indexPages = (server: TestServer) =>
  (
    server.deps.db.sqlite
      .query("SELECT count(*) AS n FROM captured_requests_search_data")
      .get() as {
      n: number;
    }
  ).n;

/** The search index's merge runs logged so far (one line per run, with its slowest step). */
const mergeRuns = (server: TestServer) =>
  server.logs
    .filter((line) => line.includes("merged the search index"))
    .map((line) => JSON.parse(line) as { steps: number; slowest_step_ms: number });

const storedRows = (server: TestServer, endpointId: string) =>
  (
    server.deps.db.sqlite
      .query("SELECT count(*) AS n FROM captured_requests WHERE endpoint_id = ?")
      .get(endpointId) as { n: number }
  ).n;

/** Captures on `slug` from SENDERS concurrent loops until `until` resolves; their latencies. */
async function captureDuring(
  server: TestServer,
  slug: string,
  until: Promise<unknown>,
  /** Where the window's second phase (the search index's merge) starts, once known. */
  phase: { mergeFrom?: number } = {},
) {
  const samples: number[] = [];
  const mergeSamples: number[] = [];
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const sender = async () => {
    while (!done) {
      const sent = performance.now();
      const took = await timed(() =>
        server.request(`/w/${slug}`, { method: "POST", body: '{"n":1}' }),
      );
      samples.push(took);
      if (phase.mergeFrom !== undefined && sent >= phase.mergeFrom) mergeSamples.push(took);
    }
  };
  // The event loop's longest stall in the window: what a capture can wait behind at most.
  let stall = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  await Promise.all(Array.from({ length: SENDERS }, sender));
  clearInterval(probe);
  return { ...summary(samples), stall, merge: summary(mergeSamples) };
}

const server = await startTestServer({
  config: { durability: "full", capture_rate_limit: "off", log_level: "error" },
});
try {
  const big = await signUp(server, { plan: "enterprise" });
  const quiet = await signUp(server, { plan: "enterprise" });
  const create = async (account: TestAccount, name: string) => {
    const response = await server.request("/api/v1/endpoints", {
      method: "POST",
      headers: { ...account.headers, "content-type": "application/json" },
      body: JSON.stringify({ debug_endpoint: { name } }),
    });
    return ((await response.json()) as { data: { id: string; slug: string } }).data;
  };
  const history = await create(big, "Big history");
  const empty = await create(quiet, "Empty");
  const other = await create(big, "Other");
  const readsOf = (id: string) => [
    "/api/v1/endpoints",
    `/api/v1/endpoints/${id}`,
    "/api/v1/debug-endpoints",
  ];
  if (values["fts-deletemerge"] !== undefined) {
    // An experiment, not Weir's setting: FTS5 rewrites a segment once this percentage of its
    // rows is deleted (default 10), which is where the drain's slowest batches come from.
    const percent = Number(values["fts-deletemerge"]);
    server.deps.db.sqlite.run(
      "INSERT INTO captured_requests_search (captured_requests_search, rank) VALUES ('deletemerge', ?)",
      [percent],
    );
    console.log(`experiment: the search index's deletemerge set to ${percent}`);
  }
  console.log(`load average before the run: ${load()}`);
  const started = performance.now();
  seed(server, history.id, ROWS);
  console.log(`seeded ${ROWS.toLocaleString()} rows in ${ms(performance.now() - started)}`);

  const reads = { empty: [] as Summary[], full: [] as Summary[] };
  const captures = { quiet: [] as Summary[], delete: [] as Summary[], empty: [] as Summary[] };
  const answers = { delete: [] as number[], empty: [] as number[] };
  const drains = { delete: [] as number[], empty: [] as number[] };
  const merges = { delete: [] as string[], empty: [] as string[] };

  /** Deletes (or empties) a freshly seeded 60k endpoint; resolves once the drain left no row. */
  const removal = async (kind: "delete" | "empty") => {
    const victim = await create(big, `Victim ${kind}`);
    const pagesWithout = indexPages(server);
    seed(server, victim.id, ROWS);
    const path = `/api/v1/endpoints/${victim.id}${kind === "empty" ? "/requests" : ""}`;
    const phase: { mergeFrom?: number } = {};
    const run = (async () => {
      await Bun.sleep(200);
      const t0 = performance.now();
      answers[kind].push(
        await timed(() => server.request(path, { method: "DELETE", headers: big.headers })),
      );
      const runsBefore = mergeRuns(server).length;
      const pagesSeeded = indexPages(server);
      while (storedRows(server, victim.id) > 0) await Bun.sleep(20);
      const pagesDrained = indexPages(server);
      drains[kind].push(performance.now() - t0);
      // The drain wakes the search index's merge: the window lasts until it has finished too.
      const t1 = performance.now();
      phase.mergeFrom = t1;
      const deadline = t1 + 120_000;
      while (mergeRuns(server).length === runsBefore && performance.now() < deadline) {
        await Bun.sleep(20);
      }
      const run = mergeRuns(server).at(runsBefore);
      merges[kind].push(
        run
          ? `merge ${ms(performance.now() - t1)} in ${run.steps} steps, slowest ${ms(run.slowest_step_ms)}, index pages ${pagesWithout} before the seed, ${pagesSeeded} seeded, ${pagesDrained} drained, ${indexPages(server)} merged`
          : "merge did not finish within 120 s",
      );
      await Bun.sleep(200);
    })();
    captures[kind].push(await captureDuring(server, other.slug, run, phase));
    if (kind === "empty") {
      await timed(() =>
        server.request(`/api/v1/endpoints/${victim.id}`, {
          method: "DELETE",
          headers: big.headers,
        }),
      );
      while (storedRows(server, victim.id) > 0) await Bun.sleep(20);
    }
  };

  for (let round = 0; round < ROUNDS; round++) {
    console.log(`round ${round + 1}/${ROUNDS}, load average ${load()}`);
    // Alternate who goes first, so drift on the machine hits every window alike.
    const readOrder = round % 2 === 0 ? (["empty", "full"] as const) : (["full", "empty"] as const);
    for (const which of readOrder) {
      reads[which].push(
        which === "empty"
          ? await readLatencies(server, quiet, readsOf(empty.id))
          : await readLatencies(server, big, readsOf(history.id)),
      );
    }
    const windows = ["quiet", "delete", "empty"] as const;
    for (let i = 0; i < windows.length; i++) {
      const which = windows[(i + round) % windows.length] as (typeof windows)[number];
      if (which === "quiet")
        captures.quiet.push(await captureDuring(server, other.slug, Bun.sleep(QUIET_MS)));
      else await removal(which);
    }
  }

  const med = (list: Summary[], key: "p50" | "p99") => median(list.map((s) => s[key]));
  const stalls = (list: Summary[]) => list.map((s) => `${(s.stall ?? 0).toFixed(0)} ms`).join(", ");
  const emptyP50 = med(reads.empty, "p50");
  const fullP50 = med(reads.full, "p50");
  console.log(`\nload average after the run: ${load()}`);
  console.log(
    `\nendpoint reads (list both families, get one), per request, medians of ${ROUNDS} rounds:`,
  );
  console.log(
    `  baseline, endpoint empty   p50 ${ms(emptyP50)}  p99 ${ms(med(reads.empty, "p99"))}`,
  );
  console.log(
    `  ${ROWS.toLocaleString()} rows stored        p50 ${ms(fullP50)}  p99 ${ms(med(reads.full, "p99"))}  ratio p50 ${(fullP50 / emptyP50).toFixed(2)}x  target p50 < 5 ms: ${fullP50 < 5 ? "PASS" : "MISS"}`,
  );
  console.log(
    `\ncaptures on another endpoint (${SENDERS} concurrent senders), medians of ${ROUNDS} rounds:`,
  );
  const quietP99 = med(captures.quiet, "p99");
  console.log(
    `  baseline, nothing else       p50 ${ms(med(captures.quiet, "p50"))}  p99 ${ms(quietP99)}  rounds p99 ${captures.quiet.map((s) => s.p99.toFixed(1)).join(", ")}  longest loop stall ${stalls(captures.quiet)}`,
  );
  for (const kind of ["delete", "empty"] as const) {
    const p99 = med(captures[kind], "p99");
    console.log(
      `  while ${kind === "delete" ? "deleting" : "emptying"} + draining 60k p50 ${ms(med(captures[kind], "p50"))}  p99 ${ms(p99)}  ratio p99 ${(p99 / quietP99).toFixed(2)}x  target p99 < 50 ms: ${p99 < 50 ? "PASS" : "MISS"}  rounds p99 ${captures[kind].map((s) => s.p99.toFixed(1)).join(", ")}  longest loop stall ${stalls(captures[kind])}`,
    );
    console.log(
      `    the DELETE answered in ${ms(median(answers[kind]))} (median), the drain finished ${ms(median(drains[kind]))} after it`,
    );
    const mergeP99 = median(captures[kind].map((s) => s.merge?.p99 ?? Number.NaN));
    console.log(
      `    captures sent after the drain (the merge, then 200 ms): p99 ${ms(mergeP99)}  ratio p99 ${(mergeP99 / quietP99).toFixed(2)}x  rounds p99 ${captures[kind].map((s) => `${s.merge?.p99.toFixed(1)} (n ${s.merge?.n})`).join(", ")}`,
    );
    for (const line of merges[kind]) console.log(`    ${line}`);
  }
} finally {
  await server.stop();
}
