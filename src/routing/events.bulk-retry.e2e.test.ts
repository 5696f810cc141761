import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { onPostgres } from "../test-utils/test-store.ts";
import { BULK_RETRY_BATCH } from "./events.retry.service.ts";

// The outage: destinations sign in with a secret that does not exist yet, so every delivery
// fails at once (max_retries 0) without reaching the sink or its breaker. The operator adds the
// secret, then retries everything with one call.
// More than two of the retry's batches, so one call is seen to walk on through them. A test node
// on PostgreSQL (a pool of 4 connections) ingests and fails events about ten times slower than
// on SQLite: a little over one batch there proves the same points in half the volume.
const EVENTS = onPostgres ? BULK_RETRY_BATCH + 100 : 1_200;
/** The outage's ingest and failures, on a loaded machine. */
const SLOW_STEP_MS = 30_000;
let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
const sink = startHttpSink();

beforeAll(async () => {
  server = await startTestServer({
    config: { retry_base_ms: 60_000, retry_cap_ms: 60_000, capture_rate_limit: "off" },
  });
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const locked = (path: string, token: string) => ({
  name: path,
  url: `${sink.url}/${path}`,
  max_retries: 0,
  headers: { authorization: `Bearer {{${token}}}` },
});

async function bridgeTo(paths: string[], token = "OUTAGE_TOKEN") {
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: `Bridge ${paths.join("+")}`,
    source: { name: `Source ${paths.join("+")}`, type: "webhook" },
    destinations: paths.map((path) => locked(path, token)),
  });
  expect(created.status).toBe(201);
  return created.body.data as { source_id: string; destinations: { id: string }[] };
}

async function ingestMany(sourceId: string, count: number) {
  for (let sent = 0; sent < count; sent += 100) {
    const batch = Array.from({ length: Math.min(100, count - sent) }, (_, i) =>
      server.request(`/api/v1/sources/${sourceId}/ingest`, {
        method: "POST",
        body: JSON.stringify({ n: sent + i }),
      }),
    );
    for (const answer of await Promise.all(batch)) expect(answer.status).toBe(200);
  }
}

const total = async (query: string, as: TestAccount = owner) =>
  (await callAs(server, as, "GET", `/api/v1/events?page_size=1&${query}`)).body.total as number;
const retryAll = (body?: unknown, as: TestAccount = owner) =>
  callAs(server, as, "POST", "/api/v1/events/retry", body);
const received = (path: string) => sink.requests.filter((r) => r.path === `/${path}`);

describe("POST /api/v1/events/retry", () => {
  let outage: { source_id: string; destinations: { id: string }[] };

  test(
    "setup: an outage leaves every delivery failed",
    async () => {
      outage = await bridgeTo(["outage"]);
      await ingestMany(outage.source_id, EVENTS);
      await pollUntil(
        async () =>
          (await total(`source_id=${outage.source_id}&status=failed`)) === EVENTS || undefined,
        { what: "every event failed", timeoutMs: SLOW_STEP_MS },
      );
      expect(received("outage")).toHaveLength(0);
    },
    SLOW_STEP_MS + 10_000,
  );

  test("bad filters are a 422 naming the field; a member may not retry", async () => {
    const cases: [unknown, string][] = [
      [{ status: "lost" }, "status"],
      [{ since: "yesterday" }, "since"],
      [{ until: "soon" }, "until"],
      [{ source_id: 5 }, "source_id"],
      [{ source: outage.source_id }, "source"],
      [["failed"], "body"],
    ];
    for (const [body, field] of cases) {
      const answer = await retryAll(body);
      expect([answer.status, answer.body.error, Object.keys(answer.body.errors)]).toEqual([
        422,
        "validation_failed",
        [field],
      ]);
    }
    expect((await retryAll({}, member)).status).toBe(403);
  });

  test("ids of nothing, or of another organization, match nothing", async () => {
    expect((await retryAll({ source_id: "no-such-source" })).body.data).toEqual({ requeued: 0 });
    expect((await retryAll({ destination_id: "no-such-destination" })).body.data).toEqual({
      requeued: 0,
    });
    const foreign = await retryAll({ source_id: outage.source_id }, stranger);
    expect([foreign.status, foreign.body.data]).toEqual([200, { requeued: 0 }]);
    expect((await retryAll({}, stranger)).body.data).toEqual({ requeued: 0 });
    expect((await retryAll(undefined, stranger)).body.data).toEqual({ requeued: 0 });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await retryAll({ since: later })).body.data).toEqual({ requeued: 0 });
    expect((await retryAll({ status: "delivered" })).body.data).toEqual({ requeued: 0 });
    expect(await total(`source_id=${outage.source_id}&status=failed`)).toBe(EVENTS);
  });

  test("the target fixed, one call requeues every failed delivery; a second call at once requeues none twice", async () => {
    const secret = { name: "OUTAGE_TOKEN", value: "fixed" };
    expect((await callAs(server, owner, "POST", "/api/v1/secrets", secret)).status).toBe(201);
    const answers = await Promise.all([
      retryAll({ source_id: outage.source_id, status: "failed" }),
      retryAll({ source_id: outage.source_id, status: "failed" }),
    ]);
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const conflicts = answers.filter((a) => a.status === 409);
    for (const answer of conflicts) expect(answer.body.error).toBe("retry_in_progress");
    const requeued = answers
      .filter((a) => a.status === 200)
      .reduce((sum, a) => sum + a.body.data.requeued, 0);
    expect(requeued).toBe(EVENTS);

    await pollUntil(
      async () =>
        (await total(`source_id=${outage.source_id}&status=delivered`)) === EVENTS || undefined,
      { what: "every event delivered", timeoutMs: 60_000 },
    );
    const sent = received("outage");
    expect(sent).toHaveLength(EVENTS);
    expect(new Set(sent.map((r) => r.headers.get("webhook-id"))).size).toBe(EVENTS);
    expect(sent.every((r) => r.headers.get("authorization") === "Bearer fixed")).toBe(true);
    expect((await retryAll({ source_id: outage.source_id })).body.data).toEqual({ requeued: 0 });
  }, 70_000);

  test("destination_id retries only that destination's deliveries", async () => {
    // A secret of its own: the outage's is still used by the first bridge (deleting it is a 409).
    const two = await bridgeTo(["left", "right"], "SIDE_TOKEN");
    await ingestMany(two.source_id, 3);
    await pollUntil(
      async () => (await total(`source_id=${two.source_id}&status=failed`)) === 3 || undefined,
      { what: "the three events failed" },
    );
    await callAs(server, owner, "POST", "/api/v1/secrets", { name: "SIDE_TOKEN", value: "x" });
    const [left] = two.destinations;
    const answer = await retryAll({ destination_id: left?.id });
    expect(answer.body.data).toEqual({ requeued: 3 });
    await pollUntil(() => (received("left").length === 3 ? true : undefined), {
      what: "the left deliveries sent",
    });
    expect(received("right")).toHaveLength(0);
  });

  test("deliveries waiting for their next retry are sent now too, their attempts unchanged", async () => {
    const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Waiting",
      source: { name: "Waiting", type: "webhook" },
      destinations: [
        {
          name: "later",
          url: `${sink.url}/later`,
          max_retries: 5,
          headers: { authorization: "Bearer {{LATE_TOKEN}}" },
        },
      ],
    });
    const sourceId = created.body.data.source_id;
    await ingestMany(sourceId, 2);
    const waiting = async () => {
      const page = await callAs(server, owner, "GET", `/api/v1/events?source_id=${sourceId}`);
      const ids = page.body.data.map((e: { id: string }) => e.id) as string[];
      const events = await Promise.all(
        ids.map(async (id) => (await callAs(server, owner, "GET", `/api/v1/events/${id}`)).body),
      );
      const deliveries = events.map((e) => e.data.deliveries[0]);
      return deliveries.every((d) => d?.status === "retrying" && d.attempts === 1) && ids;
    };
    const ids = await pollUntil(waiting, { what: "both deliveries waiting a minute to retry" });
    await callAs(server, owner, "POST", "/api/v1/secrets", { name: "LATE_TOKEN", value: "y" });
    expect((await retryAll({ source_id: sourceId })).body.data).toEqual({ requeued: 2 });
    await pollUntil(() => (received("later").length === 2 ? true : undefined), {
      what: "the waiting deliveries sent now",
    });
    for (const id of ids) {
      // The sink hears a try before its attempt is committed: wait for the second one.
      const numbers = await pollUntil(
        async () => {
          const attempts = await callAs(server, owner, "GET", `/api/v1/events/${id}/attempts`);
          const found = attempts.body.data.map((a: { attempt_number: number }) => a.attempt_number);
          return found.length >= 2 && (found as number[]);
        },
        { what: "the second attempt recorded" },
      );
      expect(numbers).toEqual([1, 2]);
    }
  });
});
