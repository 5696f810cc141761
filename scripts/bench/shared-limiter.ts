#!/usr/bin/env bun
import { loadavg } from "node:os";
/**
 * Takes per second of a keyed limiter: in memory (what a SQLite server runs) against the two
 * ways several nodes could share buckets on PostgreSQL:
 *   upsert    one INSERT … ON CONFLICT DO UPDATE … WHERE refilled >= 1 per take (what Weir runs);
 *   advisory  a transaction per take: pg_advisory_xact_lock on the key's hash, read the bucket,
 *             write it back (the in-run alternative).
 * Takes go to 1,000 keys (login attempts from many addresses), `--inflight` at once per client.
 * Needs WEIR_TEST_PG_URL; makes and drops a database of its own.
 *
 * Usage: bun scripts/bench/shared-limiter.ts [--seconds 2] [--rounds 2] [--inflight 8]
 */
import { SQL } from "bun";
import { runPgMigrations } from "../../src/db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../../src/db/db.migrations.pg.ts";
import { createPostgresKeyedLimiter } from "../../src/shared/token-bucket.postgres.ts";
import { createTokenBuckets, perMinute } from "../../src/shared/token-bucket.ts";
import { createTestPgDatabase } from "../../src/test-utils/postgres.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SECONDS = argument("--seconds", 2);
const ROUNDS = argument("--rounds", 2);
const INFLIGHT = argument("--inflight", 8);
const KEYS = 1_000;
const RULE = perMinute(1_000_000, 1_000_000);
const keyAt = (i: number) => `198.51.${(i % KEYS) >> 8}.${i % 256}`;

/** Takes per second of `take`, `INFLIGHT` callers in a loop for SECONDS. */
async function rate(take: (key: string) => Promise<unknown> | unknown): Promise<number> {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const caller = async (offset: number) => {
    for (let i = offset; performance.now() < until; i += INFLIGHT) {
      await take(keyAt(i));
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: INFLIGHT }, (_, i) => caller(i)));
  return done / ((performance.now() - started) / 1000);
}

/** The alternative: the key's advisory lock held by a transaction that reads and writes it. */
function advisoryLimiter(sql: SQL) {
  return (key: string) =>
    sql.begin(async (tx) => {
      const name = `advisory:${key}`;
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
      const now = Date.now();
      const [row] = await tx`SELECT tokens, updated_at FROM rate_buckets WHERE key = ${name}`;
      const tokens = row
        ? Math.min(
            RULE.burst,
            row.tokens + ((now - Number(row.updated_at)) * RULE.ratePerSecond) / 1000,
          )
        : RULE.burst;
      const allowed = tokens >= 1;
      await tx`INSERT INTO rate_buckets (key, tokens, updated_at)
        VALUES (${name}, ${allowed ? tokens - 1 : tokens}, ${now})
        ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at`;
      return allowed ? 0 : 1;
    });
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const db = await createTestPgDatabase();
const sql = new SQL(db.url, { max: INFLIGHT });
try {
  await runPgMigrations(sql, PG_MIGRATIONS);
  const memory = createTokenBuckets();
  const upsert = createPostgresKeyedLimiter(sql, "upsert", RULE);
  const advisory = advisoryLimiter(sql);
  const figures: Record<string, number[]> = { memory: [], upsert: [], advisory: [] };
  for (let round = 0; round < ROUNDS; round++) {
    figures.memory?.push(await rate((key) => memory.take(key, RULE, Date.now())));
    figures.upsert?.push(await rate((key) => upsert.take(key)));
    figures.advisory?.push(await rate(advisory));
  }
  const mem = median(figures.memory ?? []);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${INFLIGHT} in flight, ${KEYS} keys, ${ROUNDS} rounds of ${SECONDS} s (medians)`,
  );
  for (const [name, values] of Object.entries(figures)) {
    const takes = median(values);
    const ratio = name === "memory" ? "" : `  memory/${name} = ${(mem / takes).toFixed(0)}x`;
    console.log(
      `${name.padEnd(9)} ${Math.round(takes).toLocaleString("en").padStart(12)} takes/s${ratio}`,
    );
  }
  console.log(
    `upsert/advisory = ${(median(figures.upsert ?? []) / median(figures.advisory ?? [])).toFixed(2)}x`,
  );
} finally {
  await sql.close();
  await db.drop();
}
