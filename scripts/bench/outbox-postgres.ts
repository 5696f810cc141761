#!/usr/bin/env bun
import { loadavg } from "node:os";
/**
 * Deliveries per second of the outbox on PostgreSQL, against the SQLite outbox draining the same
 * backlog to the same local sink in the same run (interleaved rounds, medians). Each round
 * enqueues `--deliveries` event deliveries over 50 destinations (500 per transaction) before the
 * worker starts, then times the drain: from the start until every row is recorded delivered.
 * One node, the real room (createDeliveryRoom), the real sender; the sink is its own process.
 * Needs WEIR_TEST_PG_URL; makes and drops a database per round.
 *
 *   bun scripts/bench/outbox-postgres.ts [--deliveries 5000] [--rounds 2]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { DeliveryRecord, NewDelivery, Prepared } from "../../src/delivery/delivery.ports.ts";
import { createDeliveryRoom } from "../../src/delivery/delivery.room.ts";
import { type AnyAppDeps, closeDeps, openDeps } from "../../src/deps.ts";
import { startRooms } from "../../src/room.ts";
import { loadConfig } from "../../src/shared/config.ts";
import { createLogger } from "../../src/shared/logger.ts";
import { pollUntil } from "../../src/test-utils/poll.ts";
import { createTestPgDatabase } from "../../src/test-utils/postgres.ts";
import { makeTempDir } from "../../src/test-utils/temp-dir.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    deliveries: { type: "string", default: "5000" },
    rounds: { type: "string", default: "2" },
  },
});
const N = Number(values.deliveries);
const ROUNDS = Number(values.rounds);
const PER_TX = 500;

const sink = Bun.spawn(["bun", join(import.meta.dir, "lib/sink-server.ts"), "--port", "0"], {
  stdout: "pipe",
  stderr: "inherit",
});
const sinkUrl = await (async () => {
  const reader = sink.stdout.getReader();
  let printed = "";
  while (!/listening on \d+/.test(printed)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the sink ended: ${printed}`);
    printed += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return `http://127.0.0.1:${printed.match(/listening on (\d+)/)?.[1]}`;
})();

const items = (round: number): NewDelivery[] =>
  Array.from({ length: N }, (_, i) => ({
    kind: "event",
    organizationId: null,
    subjectId: `r${round}-${i}`,
    destinationKey: `dest-${i % 50}`,
    maxRetries: 5,
  }));

async function delivered(deps: AnyAppDeps): Promise<number> {
  if (deps.postgres) {
    const [row] = await deps.postgres.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'`;
    return row?.n ?? 0;
  }
  const row = deps.db.sqlite
    .query<{ n: number }, []>("SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'")
    .get();
  return row?.n ?? 0;
}

/** Enqueues the backlog, starts the worker, and returns delivered/s of the drain. */
async function drain(store: "sqlite" | "postgres", round: number): Promise<number> {
  const dir = makeTempDir("weir-bench-outbox-");
  const pg = store === "postgres" ? await createTestPgDatabase() : null;
  const base = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  const deps = await openDeps(
    { ...base, database_url: pg?.url ?? "", secret_key: pg ? "ab".repeat(32) : "" },
    { logger: createLogger({ level: "error", write: () => {} }) },
  );
  try {
    const room = createDeliveryRoom(deps);
    room.ports.registerKind("event", {
      prepare: async (delivery: DeliveryRecord): Promise<Prepared> => ({
        send: {
          url: `${sinkUrl}/in`,
          method: "POST",
          headers: [["content-type", "application/json"]],
          body: JSON.stringify({ subject: delivery.subjectId }),
          signingSecrets: [],
        },
      }),
    });
    const backlog = items(round);
    for (let at = 0; at < backlog.length; at += PER_TX) {
      const part = backlog.slice(at, at + PER_TX);
      const { enqueuePostgres } = room.ports;
      if (deps.postgres && enqueuePostgres) {
        await deps.postgres.sql.begin((tx) => enqueuePostgres(tx, part));
      } else if (!deps.postgres) {
        deps.db.tx((tx) => room.ports.enqueue(tx, part));
      }
    }
    const stopRooms = startRooms([room], deps);
    const started = performance.now();
    deps.scheduler.start();
    deps.bus.publish("server.started", { baseUrl: "", port: 0 });
    await pollUntil(async () => (await delivered(deps)) === N, {
      timeoutMs: 60_000,
      intervalMs: 20,
      what: `${N} deliveries on ${store}`,
    });
    const seconds = (performance.now() - started) / 1000;
    await stopRooms();
    return N / seconds;
  } finally {
    await closeDeps(deps);
    await pg?.drop();
    dir.remove();
  }
}

try {
  const figures = { sqlite: [] as number[], postgres: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating who goes first, so drift on the machine hits both alike.
    const order =
      round % 2 === 0 ? (["sqlite", "postgres"] as const) : (["postgres", "sqlite"] as const);
    for (const store of order) figures[store].push(await drain(store, round));
  }
  const sqlite = median(figures.sqlite);
  const postgres = median(figures.postgres);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${N} deliveries to a local sink, ${ROUNDS} rounds (medians)`,
  );
  for (const [name, rates] of Object.entries(figures)) {
    const rounds = rates.map((r) => Math.round(r).toLocaleString("en")).join(", ");
    console.log(
      `${name.padEnd(9)} ${Math.round(median(rates)).toLocaleString("en").padStart(9)} delivered/s  (rounds: ${rounds})`,
    );
  }
  console.log(`postgres/sqlite = ${(postgres / sqlite).toFixed(2)}x`);
} finally {
  sink.kill();
}
