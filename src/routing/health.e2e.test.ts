import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { createBridge } from "../test-utils/bridges.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createBridgesPostgresStore } from "./bridges.postgres.ts";
import { createBridgesSqliteStore } from "./bridges.sqlite.ts";
import type { HealthComponent } from "./health.model.ts";
import { createHealthPostgresStore } from "./health.postgres.ts";
import { createHealthSqliteStore } from "./health.repo.ts";
import { deliveryHealth, HEALTH_RETENTION_JOB } from "./health.service.ts";
import { EVENTS_RETENTION_JOB } from "./routing.room.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// An hour before a UTC midnight: the outcomes fall on both sides of it.
const clock = createFakeClock(Date.UTC(2026, 0, 1, 23, 0));
const scheduler = createManualScheduler();
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;
let flaky: HttpSink;
let steady: HttpSink;
let bridgeId: string;
let flakyId: string;
let ingestUrl: string;

beforeAll(async () => {
  server = await startTestServer({ clock, scheduler, config: { retry_base_ms: 10_000 } });
  // The free plan keeps events and their deliveries 7 days (decisions.md §11).
  owner = await signUp(server, { plan: "free" });
  stranger = await signUp(server);
  flaky = startHttpSink();
  steady = startHttpSink();
  const created = await createBridge(server, owner, {
    name: "Payments webhooks",
    source: { name: "Payments", type: "webhook" },
    destinations: [
      { name: "ledger", url: `${flaky.url}/ledger`, max_retries: 1 },
      { name: "archive", url: `${steady.url}/archive`, max_retries: 1 },
    ],
  });
  bridgeId = created.bridge.id;
  flakyId = created.bridge.destinations.find((d: { name: string }) => d.name === "ledger").id;
  ingestUrl = created.ingestUrl;
});
afterAll(async () => {
  await server.stop();
  await flaky.stop();
  await steady.stop();
});

/** How many rows `table` holds, on whichever store the server runs. */
const countOf = async (table: string) =>
  Number(
    (await serverRows<{ n: number | string }>(server, `SELECT count(*) AS n FROM ${table}`))[0]?.n,
  );
const attempts = () => countOf("delivery_attempts");

/** Ingests one event and waits until `total` attempts are recorded in all. */
async function ingest(total: number): Promise<void> {
  const answer = await fetch(ingestUrl, { method: "POST", body: "{}" });
  expect(answer.status).toBe(200);
  await pollUntil(async () => (await attempts()) >= total, { what: `${total} attempts recorded` });
}

/** Moves the clock and waits until `total` attempts are recorded (the retries fall due). */
async function advanceUntil(ms: number, total: number): Promise<void> {
  clock.advance(ms);
  await scheduler.run("delivery.poll");
  await pollUntil(async () => (await attempts()) >= total, { what: `${total} attempts recorded` });
}

const steadyId = async () => {
  const [row] = await serverRows<{ id: string }>(
    server,
    "SELECT id FROM destinations WHERE bridge_id = $1 AND name = 'archive'",
    [bridgeId],
  );
  return row?.id;
};

const bridgeHealth = (days: number, as = owner) =>
  callAs(server, as, "GET", `/api/v1/bridges/${bridgeId}/health?days=${days}`);
const destinationHealth = (days: number, as = owner) =>
  callAs(
    server,
    as,
    "GET",
    `/api/v1/bridges/${bridgeId}/destinations/${flakyId}/health?days=${days}`,
  );

test("a failed try leaves the day's counts alone and makes the destination degraded", async () => {
  flaky.answer(() => ({ status: 500 }));
  await ingest(2); // the archive delivered, the ledger's first try failed: it waits to retry
  const answer = await destinationHealth(1);
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual({
    name: "ledger",
    state: "degraded",
    days: [{ date: "2026-01-01", attempted: 0, delivered: 0 }],
  });
});

test("a delivery that fails then recovers counts once, as delivered, on the day it is delivered", async () => {
  flaky.answer(() => ({ status: 200 }));
  await advanceUntil(MINUTE, 3);
  const answer = await destinationHealth(1);
  expect(answer.body.data.days).toEqual([{ date: "2026-01-01", attempted: 1, delivered: 1 }]);
  // The failure was a minute ago: still degraded.
  expect(answer.body.data.state).toBe("degraded");
});

test("a delivery given up counts once as failed; the bridge sums its destinations", async () => {
  flaky.answer(() => ({ status: 500 }));
  await ingest(5); // archive delivered, ledger failed once
  await advanceUntil(MINUTE, 6); // ledger's last try failed: given up
  expect((await destinationHealth(1)).body.data.days).toEqual([
    { date: "2026-01-01", attempted: 2, delivered: 1 },
  ]);
  const bridge = await bridgeHealth(1);
  expect(bridge.body.data).toEqual({
    name: "Payments webhooks",
    state: "degraded",
    days: [{ date: "2026-01-01", attempted: 4, delivered: 3 }],
  });
});

test("outcomes after midnight UTC fall on the next day; an hour without failures is up", async () => {
  clock.set(Date.UTC(2026, 0, 2, 0, 0, 30));
  flaky.answer(() => ({ status: 200 }));
  await ingest(8);
  const answer = await bridgeHealth(3);
  expect(answer.body.data.days).toEqual([
    { date: "2025-12-31", attempted: 0, delivered: 0 },
    { date: "2026-01-01", attempted: 4, delivered: 3 },
    { date: "2026-01-02", attempted: 2, delivered: 2 },
  ]);
  // The last failure (23:02 yesterday, 58.5 minutes ago) is within the hour: read from yesterday's row.
  expect(answer.body.data.state).toBe("degraded");
  clock.set(Date.UTC(2026, 0, 2, 1, 5));
  expect((await bridgeHealth(3)).body.data.state).toBe("up");
  expect((await destinationHealth(3)).body.data.state).toBe("up");
});

test("days defaults to 90 and is 1–400; a member reads; another organization's ids are 404", async () => {
  const all = await bridgeHealth(90);
  const byDefault = await callAs(server, owner, "GET", `/api/v1/bridges/${bridgeId}/health`);
  expect(byDefault.body).toEqual(all.body);
  expect(byDefault.body.data.days).toHaveLength(90);
  expect(byDefault.body.data.days.at(-1).date).toBe("2026-01-02");
  expect(byDefault.body.data.days[0].date).toBe("2025-10-05");
  for (const days of ["0", "401", "1.5", "x"]) {
    const bad = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/bridges/${bridgeId}/health?days=${days}`,
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe("validation_failed");
    expect(bad.body.errors.days).toBeArray();
  }
  expect((await bridgeHealth(400)).body.data.days).toHaveLength(400);

  const member = await owner.addMember("member");
  expect((await destinationHealth(2, member)).status).toBe(200);
  expect((await bridgeHealth(2, stranger)).status).toBe(404);
  expect((await destinationHealth(2, stranger)).status).toBe(404);
  // A destination under a bridge that is not its own is a 404 too.
  const other = await createBridge(server, owner, {
    name: "Other",
    source: { name: "Other", type: "webhook" },
    destinations: [{ name: "x", url: `${steady.url}/x` }],
  });
  const path = `/api/v1/bridges/${other.bridge.id}/destinations/${flakyId}/health`;
  expect((await callAs(server, owner, "GET", path)).status).toBe(404);
});

/** The routing room's `deliveryHealth` port as the status pages call it. */
const port = (organizationId: string, component: HealthComponent, days: number) =>
  deliveryHealth(organizationId, component, days, {
    health: server.postgres
      ? createHealthPostgresStore(server.postgres)
      : createHealthSqliteStore(server.deps.db),
    bridges: server.postgres
      ? createBridgesPostgresStore(server.postgres)
      : createBridgesSqliteStore(server.deps.db),
    clock,
    breakerOpen: () => false,
  });

test("the port answers null for another organization's bridge or destination", async () => {
  expect((await port(owner.organizationId, { destination_id: flakyId }, 2))?.name).toBe("ledger");
  expect(await port(stranger.organizationId, { bridge_id: bridgeId }, 2)).toBeNull();
  expect(await port(stranger.organizationId, { destination_id: flakyId }, 2)).toBeNull();
  expect(await port(owner.organizationId, { bridge_id: "nope" }, 2)).toBeNull();
});

test("an open breaker makes its destination down and the bridge degraded; a paused bridge is down", async () => {
  flaky.answer(() => ({ status: 500 }));
  // Five failures in a row open the breaker (decisions.md §8): each event's two tries.
  let total = await attempts();
  for (let i = 0; i < 3; i++) {
    total += 2;
    await ingest(total);
    total += 1;
    await advanceUntil(MINUTE, total);
  }
  expect((await destinationHealth(1)).body.data.state).toBe("down");
  expect((await bridgeHealth(1)).body.data.state).toBe("degraded");
  const paused = await callAs(server, owner, "PATCH", `/api/v1/bridges/${bridgeId}`, {
    status: "paused",
  });
  expect(paused.status).toBe(200);
  expect((await bridgeHealth(1)).body.data.state).toBe("down");
  expect(
    (
      await callAs(
        server,
        owner,
        "GET",
        `/api/v1/bridges/${bridgeId}/destinations/${await steadyId()}/health`,
      )
    ).body.data.state,
  ).toBe("down");
  clock.advance(2 * 3_600_000);
  const resumed = await callAs(server, owner, "PATCH", `/api/v1/bridges/${bridgeId}`, {
    status: "active",
  });
  expect(resumed.status).toBe(200);
  // The ledger's breaker is still open (no probe has closed it): the archive alone is up.
  expect((await bridgeHealth(1)).body.data.state).toBe("degraded");
});

test("the counts outlive the deliveries' retention and go after 400 days", async () => {
  // Read through the port: the owner's login would have expired by then.
  const daysOf = async (days: number) =>
    (await port(owner.organizationId, { bridge_id: bridgeId }, days))?.days;
  const before = await daysOf(30);
  expect(before?.at(-1)).toEqual({ date: "2026-01-02", attempted: 8, delivered: 5 });
  clock.advance(8 * DAY);
  await scheduler.run(EVENTS_RETENTION_JOB);
  expect(await countOf("deliveries")).toBe(0);
  expect((await daysOf(38))?.slice(0, 30)).toEqual(before);
  clock.advance(400 * DAY);
  await scheduler.run(HEALTH_RETENTION_JOB);
  expect(await countOf("delivery_health_days")).toBe(0);
});
