import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { Principal } from "../auth/auth.model.ts";
import { createMetrics } from "../http/http.metrics.ts";
import { createHttpBase } from "../http/http.server.ts";
import { AppError, notFound } from "../shared/errors.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import { dedupRepo } from "./dedup.repo.ts";
import { dedupRoutes } from "./dedup.routes.ts";
import { type DedupDeps, sourceStats } from "./dedup.service.ts";
import { createDedupSqliteStore } from "./dedup.sqlite.ts";

// The stats route over a real database and a real HTTP server; the organization comes from a
// header and sources are a fixed map, standing in for the auth and routing rooms' ports.
const SOURCES: Record<string, string> = { src_mine: "org_a", src_theirs: "org_b" };
const clock = createFakeClock();
const deps: DedupDeps = {
  repo: dedupRepo,
  keys: createDedupKeys({ repo: dedupRepo, maxKeys: 1_000 }),
  clock,
};
let db: TestDb;
let stop: () => Promise<unknown>;
let url = "";

beforeAll(() => {
  db = createTestDb();
  const guard = () =>
    new Elysia().derive({ as: "scoped" }, ({ request }) => {
      const organizationId = request.headers.get("x-org");
      if (!organizationId) throw new AppError("unauthorized", 401);
      return { principal: { organizationId } as Principal };
    });
  const app = createHttpBase({
    ids: createIds(),
    logger: createLogger({ level: "error", write: () => {} }),
    metrics: createMetrics(),
  }).use(
    dedupRoutes({
      guard: guard as never,
      requireSource: (organizationId, sourceId) => {
        if (SOURCES[sourceId] !== organizationId) throw notFound();
      },
      sourceStats: (sourceId, period) =>
        sourceStats(createDedupSqliteStore(db, deps.keys, clock.now), sourceId, period, deps),
    }),
  );
  app.listen({ port: 0, hostname: "127.0.0.1" });
  url = `http://127.0.0.1:${app.server?.port}`;
  stop = () => app.stop();
  const now = clock.now();
  const hour = now - (now % 3_600_000);
  db.tx((tx) => {
    dedupRepo.countIngests(tx, "src_mine", hour, 3, 1);
    dedupRepo.countIngests(tx, "src_mine", hour - 48 * 3_600_000, 1, 1);
  });
});
afterAll(async () => {
  await stop();
  db.destroy();
});

const get = (path: string, org: string | null = "org_a") =>
  apiCall({ url }, "GET", path, { headers: org ? { "x-org": org } : {} });

describe("GET /api/v1/sources/{id}/stats", () => {
  test("all_time by default, the bare object of interface.md", async () => {
    const answer = await get("/api/v1/sources/src_mine/stats");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      total_requests: 4,
      duplicates_rejected: 2,
      duplicate_rate: 50,
      rejected_unverified: 0,
      period: "all_time",
    });
  });

  test("a period counts only its hours", async () => {
    const day = await get("/api/v1/sources/src_mine/stats?period=24h");
    expect(day.body).toEqual({
      total_requests: 3,
      duplicates_rejected: 1,
      duplicate_rate: 33.33,
      rejected_unverified: 0,
      period: "24h",
    });
    const week = await get("/api/v1/sources/src_mine/stats?period=7d");
    expect(week.body).toMatchObject({ total_requests: 4, period: "7d" });
  });

  test("a bad period is a 422 naming the field", async () => {
    const answer = await get("/api/v1/sources/src_mine/stats?period=1y");
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({
      error: "validation_failed",
      errors: { period: [expect.any(String)] },
    });
  });

  test("another organization's source and an unknown one are 404; no credentials is 401", async () => {
    expect((await get("/api/v1/sources/src_theirs/stats")).status).toBe(404);
    expect((await get("/api/v1/sources/nope/stats")).status).toBe(404);
    expect((await get("/api/v1/sources/src_mine/stats", null)).status).toBe(401);
  });
});
