import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged captures (each one forward) to wait for before the kill. */
const BEFORE_KILL = 300;
/** Attempt deadline of the run: leases are twice it (5 s at least), so recovery is quick. */
const TIMEOUT_MS = 2000;
/** The sink holds each answer this long, so deliveries are in flight and queued at the kill. */
const SINK_DELAY_MS = 15;
const CONCURRENCY = 16;
const tempDir = useTempDirs("weir-delivery-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const startWeir = (dataDir: string) =>
  startWeirProcess(
    dataDir,
    {
      WEIR_CAPTURE_RATE_LIMIT: "off",
      WEIR_FORWARD_TIMEOUT_MS: String(TIMEOUT_MS),
      WEIR_DESTINATION_TIMEOUT_MS: String(TIMEOUT_MS),
      WEIR_DELIVERY_CONCURRENCY: String(CONCURRENCY),
      WEIR_RETRY_BASE_MS: "200",
    },
    running,
  );

test("kill -9 with deliveries queued and in flight: after a restart every acknowledged capture is forwarded, duplicates only for attempts in flight", async () => {
  const arrivals = new Map<string, number>();
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      arrivals.set(body, (arrivals.get(body) ?? 0) + 1);
      await Bun.sleep(SINK_DELAY_MS);
      return new Response("ok");
    },
  });
  try {
    const dataDir = tempDir();
    const seed = openDatabase(dataDir);
    runMigrations(seed.sqlite, MIGRATIONS);
    seedOrganization(seed.sqlite, "org-crash", "enterprise");
    seedEndpoint(seed.sqlite, {
      id: "ep-crash",
      slug: "delivery-crash",
      organizationId: "org-crash",
      forwardUrl: `http://127.0.0.1:${sink.port}/in`,
    });
    seed.close();

    const first = await startWeir(dataDir);
    const acknowledged = new Set<string>();
    await killMidStream({
      proc: first.proc,
      senders: SENDERS,
      async send(index, n) {
        const body = `capture ${index}:${n}`;
        const response = await fetch(`${first.url}/w/delivery-crash`, { method: "POST", body });
        if (response.status !== 200) throw new Error(`status ${response.status}`);
        acknowledged.add(body);
      },
      ready: () => acknowledged.size >= BEFORE_KILL,
      timeoutMs: 20_000,
      what: `${BEFORE_KILL} captures`,
    });
    const arrivedBeforeRestart = arrivals.size;
    // Mid-stream: some forwards had not been delivered when the process died.
    expect(arrivedBeforeRestart).toBeLessThan(acknowledged.size);

    await startWeir(dataDir);
    const missing = () => [...acknowledged].filter((body) => !arrivals.has(body));
    await pollUntil(() => missing().length === 0, {
      timeoutMs: 30_000,
      what: `every acknowledged capture forwarded (${acknowledged.size})`,
    });
    // At-least-once: a body arrives twice only when its attempt was in flight at the kill: being
    // sent (CONCURRENCY at most) or sent and waiting for its group commit (as many again at most).
    const duplicates = [...arrivals.values()].filter((count) => count > 1);
    expect(duplicates.every((count) => count === 2)).toBe(true);
    expect(duplicates.length).toBeLessThanOrEqual(2 * CONCURRENCY);
  } finally {
    sink.stop(true);
  }
}, 90_000);

/** A forward target and a bridge destination on `sinkUrl`, made through the API; the ingest slug. */
async function forwardAndRoute(url: string, sinkUrl: string) {
  const auth = { authorization: `Bearer ${await registerOperator(url)}` };
  const endpoint = await apiCall({ url }, "POST", "/api/v1/endpoints", {
    headers: auth,
    body: { debug_endpoint: { name: "held", slug: "held", forward_url: `${sinkUrl}/forward` } },
  });
  const bridge = await apiCall({ url }, "POST", "/api/v1/bridges", {
    headers: auth,
    body: {
      name: "held",
      source: { name: "held", type: "webhook" },
      destinations: [{ name: "held", type: "http", url: `${sinkUrl}/event` }],
    },
  });
  expect([endpoint.status, bridge.status]).toEqual([201, 201]);
  const source = await apiCall({ url }, "GET", `/api/v1/sources/${bridge.body.data.source_id}`, {
    headers: auth,
  });
  return source.body.data.slug as string;
}

test("kill -9 with attempts in flight: the next server sends them at once, not when their 60 s leases run out", async () => {
  const sink = startHttpSink();
  // The first server's attempts are held, unanswered, until it dies.
  sink.answer(() => ({ delayMs: 120_000 }));
  try {
    const dataDir = tempDir();
    const env = { WEIR_CAPTURE_RATE_LIMIT: "off" };
    // Default deadlines (30 s), so leases are 60 s.
    const first = await startWeirProcess(dataDir, env, running);
    const slug = await forwardAndRoute(first.url, sink.url);
    const sent: string[] = [];
    for (let n = 0; n < 10; n++) {
      for (const [kind, path] of [
        ["forward", "/w/held"],
        ["event", `/in/${slug}`],
      ]) {
        const body = JSON.stringify({ kind, n });
        const answer = await fetch(`${first.url}${path}`, { method: "POST", body });
        expect(answer.status).toBe(200);
        sent.push(body);
      }
    }
    const heldOf = (path: string) => sink.requests.filter((r) => r.path === path).length;
    // Each kind's destination is at its limit of attempts at once; the rest wait in the outbox.
    await pollUntil(() => heldOf("/forward") >= 4 && heldOf("/event") >= 4, {
      what: "attempts of both kinds in flight",
    });
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    sink.answer(() => ({ status: 200 }));
    const restartedAt = Date.now();
    await startWeirProcess(dataDir, env, running);
    const delivered = () =>
      new Set(
        sink.requests
          .filter((r) => r.receivedAt >= restartedAt)
          .map((r) => new TextDecoder().decode(r.body)),
      );
    await pollUntil(() => sent.every((body) => delivered().has(body)), {
      timeoutMs: 10_000,
      what: "every capture forwarded and every event delivered, those in flight at the kill too",
    });
    expect(Date.now() - restartedAt).toBeLessThan(60_000);
  } finally {
    await sink.stop();
  }
}, 60_000);
