import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { openPostgres } from "../db/db.postgres.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startNodesOn, type WeirProcess } from "../test-utils/weir-process.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-monitor-nodes-");
const running: Subprocess[] = [];
const sinks: { stop(force: boolean): void }[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
  for (const sink of sinks.splice(0)) sink.stop(true);
});

const MONITORS = 20;
const INTERVAL_MS = 10_000;
/** How far a check may start from its slot and still be the slot's (a busy machine included). */
const SLACK_MS = 3_000;

/**
 * The gaps between one monitor's scheduled checks, in ms. The first check runs when the monitor
 * is created, the next at the first slot of its phase, however soon: that gap is left out.
 */
const gapsOf = (hits: readonly number[]) => {
  const scheduled = hits.slice(1);
  return scheduled.slice(1).map((at, i) => at - (scheduled[i] as number));
};

test("three nodes on one PostgreSQL check every monitor once per interval, also after one is killed", async () => {
  const db = await databases.create();
  const hits = new Map<number, number[]>();
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const index = Number(new URL(request.url).pathname.split("/").at(-1));
      hits.set(index, [...(hits.get(index) ?? []), Date.now()]);
      return new Response("up");
    },
  });
  sinks.push(sink);

  const { nodes, token } = await startNodesOn(db.url, 3, tempDir, running);
  for (let i = 0; i < MONITORS; i++) {
    const node = nodes[i % nodes.length] as WeirProcess;
    const answer = await fetch(`${node.url}/api/v1/uptime-monitors`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: `m${i}`,
        type: "http",
        url: `http://127.0.0.1:${sink.port}/m/${i}`,
        interval_seconds: INTERVAL_MS / 1000,
      }),
    });
    expect(answer.status).toBe(201);
  }
  const everyMonitorHas =
    (n: number, since = 0) =>
    () =>
      Array.from({ length: MONITORS }, (_, i) => i).every(
        (i) => (hits.get(i) ?? []).filter((at) => at >= since).length >= n,
      );

  // Three intervals with three nodes serving.
  await pollUntil(everyMonitorHas(4), { timeoutMs: 60_000, what: "4 checks of every monitor" });
  for (let i = 0; i < MONITORS; i++) {
    for (const gap of gapsOf(hits.get(i) ?? [])) {
      const onTime = gap >= INTERVAL_MS - SLACK_MS && gap <= INTERVAL_MS + SLACK_MS;
      expect({ monitor: i, gap, onTime }).toEqual({ monitor: i, gap, onTime: true });
    }
  }

  // One node dies (kill -9): the two left keep every monitor to one check per interval.
  const victim = nodes[0] as WeirProcess;
  victim.proc.kill("SIGKILL");
  await victim.proc.exited;
  const killedAt = Date.now();
  // The checks claimed when it died (the living nodes' too: an upper bound on the victim's).
  const admin = await openPostgres(db.url, { poolSize: 1 });
  const [leased] = await admin.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM monitors
     WHERE locked_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
  await admin.close();
  const inFlightAtKill = leased?.n ?? 0;
  await pollUntil(everyMonitorHas(3, killedAt), {
    timeoutMs: 90_000,
    what: "3 checks of every monitor after the kill",
  });
  let late = 0;
  for (let i = 0; i < MONITORS; i++) {
    for (const gap of gapsOf(hits.get(i) ?? [])) {
      // Never twice in one interval, whichever nodes checked.
      expect({ monitor: i, gap: gap >= INTERVAL_MS - SLACK_MS }).toEqual({ monitor: i, gap: true });
      // A check in flight on the killed node waits for its lease (30 s) to lapse.
      if (gap > INTERVAL_MS + SLACK_MS) late += 1;
    }
  }
  expect(late).toBeLessThanOrEqual(Math.max(1, inFlightAtKill));
  expect(late).toBeLessThan(MONITORS / 2);
}, 180_000);
