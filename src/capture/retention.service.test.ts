import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { createEndpointsRepo } from "../endpoints/endpoints.repo.ts";
import { isoAt } from "../shared/clock.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { startCaptureServer } from "../test-utils/capture-server.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createCaptureSqliteStore } from "./capture.sqlite.ts";
import { DRAIN_JOB } from "./drain.schedule.ts";
import { RETENTION_JOB } from "./retention.schedule.ts";
import { sweepRetention } from "./retention.service.ts";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

/** Stores `count` requests for an endpoint, `ageDays` old, with UUIDv7 ids of their creation time as capture gives them. */
function seedRequests(sqlite: Database, endpointId: string, ageDays: number, count = 1): string[] {
  const insert = sqlite.prepare(
    `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, raw_headers, body, size, status, created_at)
     VALUES (?, ?, 'POST', '', '', '[]', x'00', 1, 200, ?)`,
  );
  const ids: string[] = [];
  sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const createdAt = NOW - ageDays * DAY - i;
      const id = Bun.randomUUIDv7("hex", createdAt);
      insert.run(id, endpointId, isoAt(createdAt));
      ids.push(id);
    }
    sqlite.run("UPDATE debug_endpoints SET request_count = request_count + ? WHERE id = ?", [
      count,
      endpointId,
    ]);
  })();
  return ids;
}

/** The endpoint's counter, which must always equal its visible rows. */
const counted = (sqlite: Database, endpointId: string) =>
  (
    sqlite.query("SELECT request_count AS n FROM debug_endpoints WHERE id = ?").get(endpointId) as {
      n: number;
    } | null
  )?.n;

const remaining = (sqlite: Database, endpointId: string) =>
  (
    sqlite
      .query("SELECT count(*) AS n FROM captured_requests WHERE endpoint_id = ?")
      .get(endpointId) as {
      n: number;
    }
  ).n;

describe("the retention job", () => {
  test("is registered hourly, and deletes by each organization's plan, with forwards and expired anonymous endpoints", async () => {
    const clock = createFakeClock(NOW);
    const scheduler = createManualScheduler();
    const server = await startCaptureServer({ clock, scheduler, plan: "team" });
    try {
      const sqlite = server.deps.db.sqlite;
      expect(scheduler.patterns()[RETENTION_JOB]).toBe("0 * * * *");
      seedOrganization(sqlite, "org-free", "free");
      seedOrganization(sqlite, "org-ent", "enterprise");
      const team = await server.endpoint();
      const free = await server.endpoint({ organizationId: "org-free" });
      const ent = await server.endpoint({ organizationId: "org-ent" });
      const anonymous = await server.endpoint({
        organizationId: null,
        expiresAt: isoAt(NOW + DAY),
      });
      const expired = await server.endpoint({ organizationId: null, expiresAt: isoAt(NOW - 1) });
      for (const endpoint of [team, free, ent, anonymous, expired]) {
        for (const age of [1, 8, 31, 91]) seedRequests(sqlite, endpoint.id, age);
      }
      // A forward (an outbox delivery and its attempt) of a request retention removes goes too.
      const [oldFree] = seedRequests(sqlite, free.id, 20);
      sqlite.run(
        `INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key, webhook_id,
           status, attempts, max_retries, created_at, updated_at)
         VALUES ('d1', 'forward', 'org-free', ?, ?, 'msg_1', 'delivered', 1, 2, ?, ?)`,
        [oldFree ?? "", `forward:${free.id}`, isoAt(NOW - 20 * DAY), isoAt(NOW - 20 * DAY)],
      );
      sqlite.run(
        `INSERT INTO delivery_attempts (id, delivery_id, attempt, url, method, status_code,
           response_headers, response_body, latency_ms, created_at)
         VALUES ('a1', 'd1', 1, 'http://x', 'POST', 200, '[]', '', 1, ?)`,
        [isoAt(NOW - 20 * DAY)],
      );
      const removed: string[] = [];
      server.deps.bus.on("endpoint.deleted", (event) => {
        removed.push(event.endpointId);
      });

      await scheduler.run(RETENTION_JOB);
      // The expired anonymous endpoint is gone for readers at once; the drain removes its rows.
      await scheduler.run(DRAIN_JOB);

      expect(remaining(sqlite, team.id)).toBe(2); // 30 days: 1 and 8 kept
      expect(remaining(sqlite, free.id)).toBe(1); // 7 days
      expect(remaining(sqlite, ent.id)).toBe(3); // 90 days
      expect(remaining(sqlite, anonymous.id)).toBe(1); // free plan's 7 days
      expect(remaining(sqlite, expired.id)).toBe(0);
      for (const endpoint of [team, free, ent, anonymous]) {
        expect(counted(sqlite, endpoint.id)).toBe(remaining(sqlite, endpoint.id));
      }
      expect(
        sqlite.query("SELECT id FROM debug_endpoints WHERE id = ?").get(expired.id),
      ).toBeNull();
      expect(
        sqlite.query("SELECT id FROM debug_endpoints WHERE id = ?").get(anonymous.id),
      ).not.toBeNull();
      expect(sqlite.query("SELECT count(*) AS n FROM deliveries").get()).toEqual({ n: 0 });
      expect(sqlite.query("SELECT count(*) AS n FROM delivery_attempts").get()).toEqual({ n: 0 });
      expect(removed).toEqual([expired.id]);

      // Weeks later the cutoffs have moved with the clock.
      clock.advance(23 * DAY);
      await scheduler.run(RETENTION_JOB);
      await scheduler.run(DRAIN_JOB);
      expect(remaining(sqlite, team.id)).toBe(1);
      expect(remaining(sqlite, anonymous.id)).toBe(0);
      expect(counted(sqlite, team.id)).toBe(1);
    } finally {
      await server.stop();
    }
  });

  test("captures keep being answered while a large backlog is deleted", async () => {
    const clock = createFakeClock(NOW);
    const scheduler = createManualScheduler();
    const server = await startCaptureServer({ clock, scheduler, plan: "free" });
    try {
      const endpoint = await server.endpoint();
      seedRequests(server.deps.db.sqlite, endpoint.id, 30, 20_000);
      const sweep = scheduler.run(RETENTION_JOB);
      const answer = await server.request(`/w/${endpoint.slug}`, { method: "POST", body: "now" });
      expect(answer.status).toBe(200);
      // The capture was answered before the backlog was cleared: the sweep yields between batches.
      expect(remaining(server.deps.db.sqlite, endpoint.id)).toBeGreaterThan(1);
      await sweep;
      expect(remaining(server.deps.db.sqlite, endpoint.id)).toBe(1);
    } finally {
      await server.stop();
    }
  });
});

describe("sweepRetention", () => {
  let db: TestDb | null = null;
  afterEach(() => {
    db?.destroy();
    db = null;
  });

  test("deletes in bounded batches and yields between them", async () => {
    db = createTestDb();
    seedOrganization(db.sqlite, "org", "free");
    seedEndpoint(db.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
    seedEndpoint(db.sqlite, {
      id: "anon",
      slug: "anon",
      organizationId: null,
      expiresAt: isoAt(NOW - DAY),
    });
    seedRequests(db.sqlite, "ep", 10, 2_500);
    seedRequests(db.sqlite, "ep", 1, 10);
    seedRequests(db.sqlite, "anon", 1, 1_200);
    const batches: number[] = [];
    const forgotten: string[] = [];
    const store = createCaptureSqliteStore(db, {
      forgetForwards: (_tx, ids) => forgotten.push(...ids),
    });
    const batchCounting = {
      endpointsAfter: store.endpointsAfter,
      deleteRequestsBefore: async (id: string, cutoff: string, limit: number) => {
        const n = await store.deleteRequestsBefore(id, cutoff, limit);
        batches.push(n);
        return n;
      },
    };
    const endpoints = createEndpointsRepo(db);
    let yields = 0;
    const report = await sweepRetention({
      repo: batchCounting,
      expired: {
        listExpiredAnonymous: async (nowIso, limit) =>
          endpoints.listExpiredAnonymous(nowIso, limit),
        deleteAnonymous: async (id) => endpoints.deleteAnonymous(id, isoAt(NOW)),
      },
      clock: createFakeClock(NOW),
      plans: DEFAULT_PLANS,
      onEndpointRemoved: () => {},
      yieldTurn: async () => {
        yields += 1;
      },
      batchSize: 1000,
    });
    // The expired anonymous endpoint is marked deleted (its 1,200 rows are the drain's).
    expect(report).toEqual({ requestsDeleted: 2_500, endpointsDeleted: 1 });
    expect(Math.max(...batches)).toBe(1000);
    expect(batches.filter((n) => n > 0)).toEqual([1000, 1000, 500]);
    expect(forgotten).toHaveLength(2_500);
    expect(yields).toBeGreaterThanOrEqual(3);
    expect(remaining(db.sqlite, "ep")).toBe(10);
    expect(counted(db.sqlite, "ep")).toBe(10);
    expect(endpoints.findById("anon")).toBeNull();
  });
});
