import { afterAll, beforeAll, expect, test } from "bun:test";
import { RETENTION_JOB } from "../capture/retention.schedule.ts";
import { EVENTS_RETENTION_JOB } from "../routing/routing.room.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { storedCount } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const DAY = 24 * 3600 * 1000;
const clock = createFakeClock();
const scheduler = createManualScheduler();
let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  server = await startTestServer({ clock, scheduler });
  // The free plan keeps 7 days (decisions.md §11).
  owner = await signUp(server, { plan: "free" });
  sink = startHttpSink();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const count = (sql: string, ...args: string[]) => storedCount(server, sql, ...args);
const deliveriesOf = (subjectId: string) =>
  count("SELECT count(*) AS n FROM deliveries WHERE subject_id = ?", subjectId);
const attemptsOf = (subjectId: string) =>
  count(
    `SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.subject_id = ?`,
    subjectId,
  );

/** Ingests `body` to the source and waits until its delivery's attempt is recorded. */
async function deliveredEvent(ingestUrl: string, body: string): Promise<string> {
  const answer = await fetch(ingestUrl, { method: "POST", body });
  const { event_id } = (await answer.json()) as { event_id: string };
  await pollUntil(async () => (await attemptsOf(event_id)) === 1, {
    what: `event ${body} delivered`,
  });
  return event_id;
}

/** Captures `body` on the endpoint and waits until its forward's attempt is recorded. */
async function forwardedCapture(slug: string, body: string): Promise<string> {
  const requestId = await captureAt(server, `/w/${slug}`, { method: "POST", body });
  await pollUntil(async () => (await attemptsOf(requestId)) === 1, {
    what: `capture ${body} forwarded`,
  });
  return requestId;
}

test("deliveries and their attempts go with the events and captures that retention removes", async () => {
  const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Kept a week",
    source: { name: "Shop", type: "webhook" },
    destinations: [{ name: "sink", url: `${sink.url}/events` }],
  });
  const source = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/sources/${bridge.body.data.source_id}`,
  );
  const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/fwd` });

  const oldEvent = await deliveredEvent(source.body.data.ingest_url, '{"n":"old"}');
  const oldCapture = await forwardedCapture(endpoint.slug, "old");
  clock.advance(6 * DAY);
  const newEvent = await deliveredEvent(source.body.data.ingest_url, '{"n":"new"}');
  const newCapture = await forwardedCapture(endpoint.slug, "new");
  clock.advance(2 * DAY); // the old ones are 8 days old now, the new ones 2

  await scheduler.run(EVENTS_RETENTION_JOB);
  await scheduler.run(RETENTION_JOB);

  expect([await deliveriesOf(oldEvent), await attemptsOf(oldEvent)]).toEqual([0, 0]);
  expect([await deliveriesOf(oldCapture), await attemptsOf(oldCapture)]).toEqual([0, 0]);
  expect([await deliveriesOf(newEvent), await attemptsOf(newEvent)]).toEqual([1, 1]);
  expect([await deliveriesOf(newCapture), await attemptsOf(newCapture)]).toEqual([1, 1]);
  // The subjects themselves: the old ones went, the new ones stayed.
  expect(
    await count("SELECT count(*) AS n FROM events WHERE id IN (?, ?)", oldEvent, newEvent),
  ).toBe(1);
  const requests = "SELECT count(*) AS n FROM captured_requests WHERE id IN (?, ?)";
  expect(await count(requests, oldCapture, newCapture)).toBe(1);
});
