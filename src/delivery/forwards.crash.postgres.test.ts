import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 16;
/** Acknowledged captures (each one forward) to wait for before the kill. */
const BEFORE_KILL = 200;
/** Attempt deadline of the run: leases are twice it (5 s at least), so the dead node's come back soon. */
const TIMEOUT_MS = 2000;
/** The sink holds each answer this long, so forwards are in flight and queued at the kill. */
const SINK_DELAY_MS = 15;
const CONCURRENCY = 16;
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-forwards-crash-pg-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

test("on PostgreSQL, kill -9 with forwards queued and in flight: another node forwards every acknowledged capture, twice only for attempts in flight", async () => {
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
    const db = await databases.create();
    const env = {
      WEIR_DATABASE_URL: db.url,
      WEIR_SECRET_KEY: "ef".repeat(32),
      WEIR_CAPTURE_RATE_LIMIT: "off",
      WEIR_FORWARD_TIMEOUT_MS: String(TIMEOUT_MS),
      WEIR_DESTINATION_TIMEOUT_MS: String(TIMEOUT_MS),
      WEIR_DELIVERY_CONCURRENCY: String(CONCURRENCY),
      WEIR_RETRY_BASE_MS: "200",
    };
    const first = await startWeirProcess(tempDir(), env, running);
    const token = await registerOperator(first.url);
    const created = await apiCall(first, "POST", "/api/v1/endpoints", {
      headers: { authorization: `Bearer ${token}` },
      body: {
        debug_endpoint: { name: "crash", forward_url: `http://127.0.0.1:${sink.port}/in` },
      },
    });
    expect(created.status).toBe(201);
    const { slug } = created.body.data as { slug: string };

    const acknowledged = new Set<string>();
    await killMidStream({
      proc: first.proc,
      senders: SENDERS,
      async send(index, n) {
        const body = `capture ${index}:${n}`;
        const response = await fetch(`${first.url}/w/${slug}`, { method: "POST", body });
        if (response.status !== 200) throw new Error(`status ${response.status}`);
        acknowledged.add(body);
      },
      ready: () => acknowledged.size >= BEFORE_KILL,
      timeoutMs: 20_000,
      what: `${BEFORE_KILL} captures`,
    });
    expect(first.proc.signalCode).toBe("SIGKILL");
    // Mid-stream: some forwards had not been delivered when the node died.
    expect(arrivals.size).toBeLessThan(acknowledged.size);

    // Another node (its own data dir): it claims what was queued, and the dead node's leased
    // rows once their leases lapse on the server's clock.
    await startWeirProcess(tempDir(), env, running);
    const missing = () => [...acknowledged].filter((body) => !arrivals.has(body));
    await pollUntil(() => missing().length === 0, {
      timeoutMs: 40_000,
      intervalMs: 50,
      what: `every acknowledged capture forwarded (${acknowledged.size})`,
    });
    // At-least-once: a body arrives twice only when its attempt was in flight at the kill (being
    // sent, CONCURRENCY at most, or sent and not yet recorded).
    const duplicates = [...arrivals.values()].filter((count) => count > 1);
    expect(duplicates.every((count) => count === 2)).toBe(true);
    expect(duplicates.length).toBeLessThanOrEqual(2 * CONCURRENCY);
  } finally {
    sink.stop(true);
  }
}, 90_000);
