import { afterEach, describe, expect, test } from "bun:test";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { onPostgres } from "../test-utils/test-store.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function start(options: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

/** A new source of `account`'s organization; its ingest URL path. */
async function sourcePath(server: TestServer, account: TestAccount): Promise<string> {
  const created = await callAs(server, account, "POST", "/api/v1/sources", {
    name: `Source ${crypto.randomUUID()}`,
    type: "webhook",
  });
  expect(created.status).toBe(201);
  return `/in/${created.body.data.slug}`;
}

const ingest = (server: TestServer, path: string, body: string = "{}") =>
  server.request(path, { method: "POST", body });

describe("ingest obeys the plan's capture rate limit, per source", () => {
  test("past the free plan's burst a source answers 429 rate_limited with Retry-After; another organization's source is not slowed", async () => {
    const clock = createFakeClock();
    // On PostgreSQL the buckets are shared by the nodes and refill on the database server's
    // clock, which the test cannot hold still: one token a second there keeps a slow run from
    // refilling a token in the middle of the burst.
    const plans = onPostgres
      ? { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free, capture_rate_per_second: 1 } }
      : DEFAULT_PLANS;
    const server = await start({ clock, config: { capture_rate_limit: "plan", plans } });
    const noisy = await signUp(server, { plan: "free" });
    const quiet = await signUp(server, { plan: "free" });
    const noisyPath = await sourcePath(server, noisy);
    const quietPath = await sourcePath(server, quiet);
    const burst = DEFAULT_PLANS.free.capture_burst;
    for (let i = 0; i < burst; i++) expect((await ingest(server, noisyPath)).status).toBe(200);
    const refused = await ingest(server, noisyPath);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ error: "rate_limited" });
    // The other organization's source has a bucket of its own.
    expect((await ingest(server, quietPath)).status).toBe(200);
    // The bucket refills with time (10 a second on free).
    if (onPostgres) {
      await pollUntil(async () => (await ingest(server, noisyPath)).status === 200, {
        what: "the bucket refilled",
      });
    } else {
      clock.advance(1_000);
      expect((await ingest(server, noisyPath)).status).toBe(200);
    }
  });

  test("WEIR_CAPTURE_RATE_LIMIT=off lifts the ingest limit too", async () => {
    const server = await start({ config: { capture_rate_limit: "off" } });
    const account = await signUp(server, { plan: "free" });
    const path = await sourcePath(server, account);
    const statuses = [];
    for (let i = 0; i < DEFAULT_PLANS.free.capture_burst + 5; i++) {
      statuses.push((await ingest(server, path)).status);
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe("an organization stores at most its plan's event_storage_mb of event bodies", () => {
  test("past the quota ingest answers 429 event_quota_exceeded; another organization still ingests", async () => {
    const server = await start({
      config: {
        capture_rate_limit: "off",
        max_body_bytes: 600_000,
        plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free, event_storage_mb: 1 } },
      },
    });
    const full = await signUp(server, { plan: "free" });
    const other = await signUp(server, { plan: "free" });
    const fullPath = await sourcePath(server, full);
    const otherPath = await sourcePath(server, other);
    const body = "x".repeat(400_000);
    expect((await ingest(server, fullPath, body)).status).toBe(200);
    expect((await ingest(server, fullPath, body)).status).toBe(200);
    // A third would take the organization past 1 MiB.
    const refused = await ingest(server, fullPath, body);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "event_quota_exceeded" });
    // A small one still fits; the other organization's quota is its own.
    expect((await ingest(server, fullPath, "{}")).status).toBe(200);
    expect((await ingest(server, otherPath, body)).status).toBe(200);
    // Refused ingests stored nothing.
    const events = await callAs(server, full, "GET", "/api/v1/events");
    expect(events.body.data.length).toBe(3);
  });

  test("concurrent ingests cannot pass the quota together: each admitted body counts at once", async () => {
    const server = await start({
      config: {
        capture_rate_limit: "off",
        max_body_bytes: 600_000,
        plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free, event_storage_mb: 1 } },
      },
    });
    const account = await signUp(server, { plan: "free" });
    const path = await sourcePath(server, account);
    const body = "x".repeat(400_000);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => ingest(server, path, body).then((r) => r.status)),
    );
    expect(answers.filter((status) => status === 200)).toHaveLength(2);
    expect(answers.filter((status) => status === 429)).toHaveLength(4);
  });
});
