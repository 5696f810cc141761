import { afterAll, beforeAll, expect, test } from "bun:test";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { createPostgresKeyedLimiter } from "../shared/token-bucket.postgres.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createIngestLimits } from "./ingest.limits.ts";
import type { Source } from "./sources.model.ts";

const databases = usePgDatabases();
let nodes: [PostgresDb, PostgresDb];
beforeAll(async () => {
  const first = await openMigratedPgDatabase(databases);
  nodes = [first, await openPostgres(first.url, { poolSize: 4 })];
});
afterAll(async () => {
  for (const node of nodes ?? []) await node.close();
});

// A bucket that barely refills while the test runs: what is admitted is the burst.
const plans = {
  ...DEFAULT_PLANS,
  free: { ...DEFAULT_PLANS.free, capture_rate_per_second: 0.001, capture_burst: 6 },
};

const source = (id: string): Source => ({
  id,
  organizationId: "org-a",
  name: id,
  type: "webhook",
  slug: id,
  deduplicationConfig: null,
  verification: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

/** One node's ingest limits, its buckets in the database the node is given (or in memory). */
const limitsOn = (node: PostgresDb | null) =>
  createIngestLimits({
    clock: createFakeClock(),
    plans,
    rateLimit: "plan",
    planOf: () => "free",
    storedEventBytes: () => 0,
    ...(node && {
      sharedBuckets: (name, rule) => createPostgresKeyedLimiter(node.sql, name, rule),
    }),
  });

test("on PostgreSQL two nodes together admit one source's burst, then refuse with a wait", async () => {
  const [a, b] = [limitsOn(nodes[0]), limitsOn(nodes[1])];
  const admitA = a.admitShared;
  const admitB = b.admitShared;
  if (!admitA || !admitB) throw new Error("the limits were given shared buckets");
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? admitA : admitB)(source("src-shared"))),
  );
  expect(outcomes.filter((o) => o === null)).toHaveLength(6);
  const refused = outcomes.find((o) => o !== null);
  expect(refused?.status).toBe(429);
  expect(refused?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  // Another source has a bucket of its own.
  expect(await admitA(source("src-other"))).toBeNull();
});

test("in memory each process has its own buckets, and no shared admit is offered", () => {
  const [a, b] = [limitsOn(null), limitsOn(null)];
  expect(a.admitShared).toBeNull();
  const admitted = [a, b].flatMap((limits) =>
    Array.from({ length: 6 }, () => limits.admit(source("src-memory"))),
  );
  expect(admitted.filter((o) => o === null)).toHaveLength(12);
});
