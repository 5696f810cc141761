import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { MONITORS_PATH } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import {
  registerOperator,
  startWeirProcess,
  type WeirProcess,
} from "../test-utils/weir-process.ts";
import { MIN_INTERVAL_SECONDS } from "./monitors.model.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-monitor-nodes-");
const running: Subprocess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const MONITORS = 30;
const INTERVAL_MS = MIN_INTERVAL_SECONDS * 1000;
const TIMEOUT_SECONDS = 2;
/**
 * How long a check claimed by a killed node stays leased (the check's timeout plus the 30 s slack
 * of monitors.storage.ts) before a survivor may take it; a margin for a slow machine on top.
 */
const LEASE_MS = TIMEOUT_SECONDS * 1000 + 30_000 + 3_000;
/** Slots are claimed by a 1 s job on each node: a check may land up to ~1 s (plus load) late. */
const JITTER_MS = 3_000;

/** The stretch watched before and after the kill: three intervals. */
const WINDOW_MS = INTERVAL_MS * 3;

/** Waits until every monitor has been checked at or after `after` (the watched stretch is over). */
function everyMonitorHitAfter(
  hits: Map<string, number[]>,
  paths: string[],
  after: number,
  timeoutMs: number,
) {
  return pollUntil(() => paths.every((path) => (hits.get(path) ?? []).some((at) => at >= after)), {
    timeoutMs,
    intervalMs: 200,
    what: `every monitor checked after ${new Date(after).toISOString()}`,
  });
}

/** One local target: every monitor checks its own path; the time of each hit is kept. */
function startCountingSink() {
  const hits = new Map<string, number[]>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.set(path, [...(hits.get(path) ?? []), Date.now()]);
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, hits, stop: () => server.stop(true) };
}

/**
 * Every monitor's hits within [from, to): never two in one interval (a gap well under the
 * interval), never a slot skipped (a gap, or the window's edges, well over it). Returns the
 * problems found, one line per monitor, so a failure says which monitors and how.
 */
function problemsIn(hits: Map<string, number[]>, paths: string[], from: number, to: number) {
  const problems: string[] = [];
  for (const path of paths) {
    const times = (hits.get(path) ?? []).filter((at) => at >= from && at < to);
    const edges = [from, ...times, to];
    const gaps = edges.slice(1).map((at, i) => at - (edges[i] as number));
    const twice = gaps.slice(1, -1).filter((gap) => gap < INTERVAL_MS - JITTER_MS);
    const skipped = gaps.filter((gap) => gap > INTERVAL_MS + JITTER_MS);
    if (twice.length > 0 || skipped.length > 0) {
      problems.push(`${path}: gaps ${gaps.map((gap) => Math.round(gap / 100) / 10).join("s, ")}s`);
    }
  }
  return problems;
}

test("three nodes on one PostgreSQL check each of 30 monitors once per interval, and keep doing so after one is killed", async () => {
  const sink = startCountingSink();
  try {
    const db = await databases.create();
    const env = {
      WEIR_DATABASE_URL: db.url,
      WEIR_SECRET_KEY: "ef".repeat(32),
      WEIR_PLANS: JSON.stringify({ free: { monitors: 100 } }),
    };
    // One after another: the first applies the migrations, the others find them applied.
    const nodes: WeirProcess[] = [];
    for (let i = 0; i < 3; i++) nodes.push(await startWeirProcess(tempDir(), env, running));
    const token = await registerOperator((nodes[0] as WeirProcess).url);

    const paths: string[] = [];
    for (let i = 0; i < MONITORS; i++) {
      const path = `/monitor-${i}`;
      const created = await apiCall(nodes[i % 3] as WeirProcess, "POST", MONITORS_PATH, {
        headers: { authorization: `Bearer ${token}` },
        body: {
          name: `monitor ${i}`,
          type: "http",
          url: `${sink.url}${path}`,
          interval_seconds: MIN_INTERVAL_SECONDS,
          timeout_seconds: TIMEOUT_SECONDS,
        },
      });
      expect(created.status).toBe(201);
      paths.push(path);
    }
    // A new monitor is checked at once, off its phase; the steady rhythm starts one slot later.
    await pollUntil(() => paths.every((path) => (sink.hits.get(path)?.length ?? 0) >= 2), {
      timeoutMs: INTERVAL_MS * 2 + 10_000,
      what: "every monitor checked on creation and on its first slot",
    });

    const steady = Date.now();
    await everyMonitorHitAfter(sink.hits, paths, steady + WINDOW_MS, WINDOW_MS + INTERVAL_MS);
    expect(problemsIn(sink.hits, paths, steady, steady + WINDOW_MS)).toEqual([]);

    const victim = nodes[0] as WeirProcess;
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    // A check the killed node had claimed waits out its lease, then a survivor takes it.
    const resumed = Date.now() + LEASE_MS;
    await everyMonitorHitAfter(
      sink.hits,
      paths,
      resumed + WINDOW_MS,
      LEASE_MS + WINDOW_MS + INTERVAL_MS,
    );
    expect(problemsIn(sink.hits, paths, resumed, resumed + WINDOW_MS)).toEqual([]);
  } finally {
    sink.stop();
  }
}, 180_000);
