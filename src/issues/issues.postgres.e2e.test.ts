import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { seedRoute } from "../test-utils/issues-observer.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createIssuesPostgresStore } from "./issues.postgres.ts";
import type { IssuesStore } from "./issues.store.ts";

// A Weir server on PostgreSQL answers /api/v1/issues from the issues kept there. Failures are
// recorded straight through the store: on PostgreSQL the rooms that turn deliveries into
// attempts are still to come (the observer's own path is src/issues/issues.observer.postgres.test.ts).

const databases = usePgDatabases();
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;
let store: IssuesStore;
const ids = { http500: "", http503: "" };
const DESTINATION = Bun.randomUUIDv7();

const at = (second: number) => new Date(Date.UTC(2026, 5, 1, 0, 0, second)).toISOString();

async function fail(errorCode: string, second: number, route: { bridgeId: string }) {
  const change = await store.recordFailure(
    {
      pattern: {
        organizationId: owner.organizationId,
        bridgeId: route.bridgeId,
        destinationId: DESTINATION,
        errorType: "http_error",
        errorCode,
      },
      attemptId: `attempt-${errorCode}-${second}`,
      eventId: `event-${second}`,
      deliveryId: `delivery-${second}`,
      attempt: 1,
      statusCode: Number(errorCode),
      responseExcerpt: `failed with ${errorCode}`,
      message: `HTTP ${errorCode}`,
      occurredAt: at(second),
    },
    { id: Bun.randomUUIDv7(), now: at(0) },
  );
  return change.issue.id;
}

beforeAll(async () => {
  const db = await databases.create();
  server = await startTestServer({ config: { database_url: db.url } });
  const pg = server.postgres;
  if (!pg) throw new Error("the server runs on PostgreSQL");
  owner = await signUp(server, { plan: "team" });
  stranger = await signUp(server);
  store = createIssuesPostgresStore(pg);
  const route = await seedRoute(pg.sql, owner.organizationId, DESTINATION);
  for (const second of [1, 2, 3]) ids.http500 = await fail("500", second, route);
  ids.http503 = await fail("503", 4, route);
});

afterAll(async () => {
  await server?.stop();
});

const call = (account: TestAccount, method: string, path: string, body?: unknown) =>
  apiCall(server, method, path, { headers: account.headers, body });

describe("issues on PostgreSQL", () => {
  test("the list shows the organization's issues, latest occurrence first, filtered and paged", async () => {
    const list = await call(owner, "GET", "/api/v1/issues?page_size=1");
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({
      current_page: 1,
      page_size: 1,
      total_pages: 2,
      total_records: 2,
    });
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([ids.http503]);
    const filtered = await call(
      owner,
      "GET",
      `/api/v1/issues?status=open&destination_id=${DESTINATION}`,
    );
    expect(filtered.body.items.map((i: { id: string }) => i.id)).toEqual([
      ids.http503,
      ids.http500,
    ]);
    const elsewhere = await call(
      owner,
      "GET",
      `/api/v1/issues?destination_id=${Bun.randomUUIDv7()}`,
    );
    expect([elsewhere.status, elsewhere.body.items]).toEqual([200, []]);
    const refused = await call(owner, "GET", "/api/v1/issues?status=gone");
    expect(refused.status).toBe(422);
    const theirs = await call(stranger, "GET", "/api/v1/issues");
    expect(theirs.body.items).toEqual([]);
  });

  test("one issue shows its count and latest failed attempts; another organization's is a 404", async () => {
    const detail = await call(owner, "GET", `/api/v1/issues/${ids.http500}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: ids.http500,
      status: "open",
      error_code: "500",
      occurrence_count: 3,
      first_occurrence_at: at(1),
      last_occurrence_at: at(3),
    });
    expect(detail.body.recent_attempts.map((a: { occurred_at: string }) => a.occurred_at)).toEqual([
      at(3),
      at(2),
      at(1),
    ]);
    expect((await call(stranger, "GET", `/api/v1/issues/${ids.http500}`)).status).toBe(404);
  });

  test("PATCH moves an issue through its statuses; another organization's is a 404", async () => {
    const closed = await call(owner, "PATCH", `/api/v1/issues/${ids.http503}`, {
      status: "closed",
    });
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe("closed");
    expect(closed.body.resolved_at).not.toBeNull();
    const other = await call(stranger, "PATCH", `/api/v1/issues/${ids.http503}`, {
      status: "open",
    });
    expect(other.status).toBe(404);
    const wrong = await call(owner, "PATCH", `/api/v1/issues/${ids.http503}`, { status: "gone" });
    expect(wrong.status).toBe(422);
    const reopened = await call(owner, "PATCH", `/api/v1/issues/${ids.http503}`, {
      status: "work_in_progress",
    });
    expect([reopened.status, reopened.body.status, reopened.body.resolved_at]).toEqual([
      200,
      "work_in_progress",
      null,
    ]);
  });

  test("/metrics counts the issues by status", async () => {
    const lines = await pollUntil(
      async () => {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        return text.includes('weir_issues{status="open"} 1') &&
          text.includes('weir_issues{status="work_in_progress"} 1')
          ? text
          : undefined;
      },
      { timeoutMs: 15_000, what: "the issue counts in /metrics" },
    );
    expect(lines).toContain('weir_issues{status="closed"} 0');
  });
});
