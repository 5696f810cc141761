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

test("on PostgreSQL the plan and stored bytes are read through the stores before the checks", async () => {
  const reads = { plan: 0, bytes: 0 };
  const clock = createFakeClock();
  const limits = createIngestLimits({
    clock,
    plans: {
      ...plans,
      team: { ...plans.free, capture_burst: 100, event_storage_mb: 1 },
    },
    rateLimit: "plan",
    planOf: () => {
      throw new Error("on PostgreSQL the plan is read through the store");
    },
    storedEventBytes: () => {
      throw new Error("on PostgreSQL the bytes are read through the store");
    },
    sharedBuckets: (name, rule) => createPostgresKeyedLimiter(nodes[0].sql, name, rule),
    readsAsync: {
      planOf: async () => {
        reads.plan += 1;
        return "team" as const;
      },
      storedEventBytes: async () => {
        reads.bytes += 1;
        return 1_048_576 - 10;
      },
    },
  });
  const admit = limits.admitShared;
  if (!admit) throw new Error("the limits were given shared buckets");
  const pro = { ...source("src-pro"), organizationId: "org-pro" };
  // The team burst (100), not free's (6): the plan came from the store.
  for (let i = 0; i < 8; i++) expect(await admit(pro)).toBeNull();
  expect(limits.admitBody(pro, 10)).toBeNull();
  expect(limits.admitBody(pro, 1)?.error).toBe("event_quota_exceeded");
  expect(reads).toEqual({ plan: 1, bytes: 1 });
  clock.advance(1_001);
  await admit(pro);
  expect(reads).toEqual({ plan: 2, bytes: 1 });
});
