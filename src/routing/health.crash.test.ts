import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { DB_FILE } from "../db/db.open.ts";
import { bridgeToSink } from "../test-utils/crash-routes.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 8;
/** Accepted events to wait for before the kill. */
const BEFORE_KILL = 200;
const tempDir = useTempDirs("weir-health-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const env = {
  WEIR_CAPTURE_RATE_LIMIT: "off",
  WEIR_DESTINATION_TIMEOUT_MS: "2000",
  WEIR_RETRY_BASE_MS: "200",
  // Few attempts at once to the one destination: a backlog builds up before the kill.
  WEIR_DELIVERY_PER_DESTINATION: "4",
};

test("kill -9 mid-delivery: each ended delivery is counted exactly once in its day, after a restart too", async () => {
  let arrivals = 0;
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      await request.arrayBuffer();
      arrivals += 1;
      // Held a little, so deliveries are in flight and waiting for their commit at the kill.
      await Bun.sleep(20);
      return new Response("ok");
    },
  });
  try {
    const dataDir = tempDir();
    const first = await startWeirProcess(dataDir, env, running);
    const slug = await bridgeToSink(first.url, `http://127.0.0.1:${sink.port}`);
    let accepted = 0;
    await killMidStream({
      proc: first.proc,
      senders: SENDERS,
      async send(index, n) {
        const body = JSON.stringify({ index, n });
        const answer = await fetch(`${first.url}/in/${slug}`, { method: "POST", body });
        if (answer.status !== 200) throw new Error(`status ${answer.status}`);
        accepted += 1;
      },
      ready: () => accepted >= BEFORE_KILL,
      timeoutMs: 20_000,
      what: `${BEFORE_KILL} events`,
    });

    // Mid-stream: some accepted events had not reached the sink when the process died.
    expect(arrivals).toBeLessThan(accepted);
    const second = await startWeirProcess(dataDir, env, running);
    const db = new Database(join(dataDir, DB_FILE), { readonly: true });
    try {
      const figure = (sql: string) => (db.query(sql).get() as { n: number }).n;
      await pollUntil(
        () =>
          figure("SELECT count(*) AS n FROM deliveries WHERE next_attempt_at IS NOT NULL") === 0,
        { timeoutMs: 30_000, what: "every delivery ended after the restart" },
      );
      const ended = figure("SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'");
      expect(ended).toBeGreaterThanOrEqual(BEFORE_KILL);
      // Counted in the transaction that ended each delivery: a delivery sent again after the
      // kill (its first record never committed) is not counted twice, none is lost.
      expect(figure("SELECT sum(attempted) AS n FROM delivery_health_days")).toBe(ended);
      expect(figure("SELECT sum(delivered) AS n FROM delivery_health_days")).toBe(ended);
    } finally {
      db.close();
      second.proc.kill("SIGKILL");
    }
  } finally {
    sink.stop(true);
  }
}, 90_000);
