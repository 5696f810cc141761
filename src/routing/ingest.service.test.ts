import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type {
  DeliveryAttempt,
  DeliveryKindHandlers,
  DeliveryPorts,
  DeliveryRecord,
  NewDelivery,
} from "../delivery/delivery.ports.ts";
import { createIds } from "../shared/ids.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { createSealer } from "../shared/sealed.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createBridgesRepo } from "./bridges.repo.ts";
import {
  type BridgesDeps,
  createBridge,
  openSigningSecrets,
  rotateSecret,
  updateBridge,
} from "./bridges.service.ts";
import { createEventsRepo } from "./events.repo.ts";
import { sweepEvents } from "./events.retention.ts";
import { createIngestService, type IngestService } from "./ingest.service.ts";
import { createSourcesRepo } from "./sources.repo.ts";

/** The outbox contract kept in memory: what routing writes and reads through it, nothing sent. */
function memoryOutbox() {
  const rows: DeliveryRecord[] = [];
  const kinds = new Map<string, DeliveryKindHandlers>();
  let wakes = 0;
  const ports: DeliveryPorts = {
    registerKind: (kind, handlers) => void kinds.set(kind, handlers),
    observeAttempts: () => {},
    ingestCommitted: () => {},
    breakerOpen: () => false,
    enqueue(_tx, deliveries: readonly NewDelivery[]) {
      const made = deliveries.map((d, i) => ({
        id: `d${rows.length + i}`,
        kind: d.kind,
        organizationId: d.organizationId,
        subjectId: d.subjectId,
        destinationKey: d.destinationKey,
        webhookId: `msg_${rows.length + i}`,
        status: "pending" as const,
        attempts: 0,
        maxRetries: d.maxRetries,
        nextAttemptAt: null,
        lastStatusCode: null,
        lastErrorType: null,
        lastErrorCode: null,
        lastErrorMessage: null,
        lastLatencyMs: null,
        createdAt: "",
        updatedAt: "",
      }));
      rows.push(...made);
      return made;
    },
    wake: () => void wakes++,
    listBySubject: async (kind, ids) =>
      rows.filter((r) => r.kind === kind && ids.includes(r.subjectId)),
    listAttempts: async () => [],
    requeue(_tx, kind, subjectId) {
      const failed = rows.filter(
        (r) => r.kind === kind && r.subjectId === subjectId && r.status === "failed",
      );
      for (const r of failed) r.status = "pending";
      return failed.length;
    },
    retryNow(_tx, kind, subjectIds) {
      return rows
        .filter((r) => r.kind === kind && subjectIds.includes(r.subjectId))
        .map((r) => {
          const action = r.status === "failed" ? ("requeued" as const) : ("unchanged" as const);
          if (action === "requeued") r.status = "pending";
          return { id: r.id, subjectId: r.subjectId, destinationKey: r.destinationKey, action };
        });
    },
    attemptsOfSubject: async () => ({ attempts: [], total: 0 }),
    forgetSubjects(_tx, kind, subjectIds) {
      const gone = rows.filter((r) => r.kind === kind && subjectIds.includes(r.subjectId));
      for (const r of gone) rows.splice(rows.indexOf(r), 1);
      return gone.length;
    },
  };
  return { ports, rows, kinds, wakes: () => wakes };
}

const ORG = "org-1";
let db: TestDb;
let outbox: ReturnType<typeof memoryOutbox>;
let ingest: IngestService;
let bridgesDeps: BridgesDeps;
const clock = createFakeClock(Date.UTC(2026, 5, 1));
let version = 0;

beforeEach(() => {
  db = createTestDb();
  db.sqlite.run(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, 'Org', 'free', '', '')",
    [ORG],
  );
  outbox = memoryOutbox();
  const sources = createSourcesRepo(db);
  const bridges = createBridgesRepo(db);
  bridgesDeps = {
    bridges,
    sources,
    tx: (fn) => db.tx(() => fn()),
    clock,
    ids: createIds(),
    sealer: createSealer(new Uint8Array(32).fill(7), "destination-signing-secret"),
    checks: { urlProblem: () => null },
    routesChanged: () => void version++,
    maxDestinations: 50,
  };
  ingest = createIngestService(
    {
      sources,
      bridges,
      events: createEventsRepo(db),
      delivery: outbox.ports,
      tx: (fn) => db.tx(fn),
      clock,
      ids: createIds(),
      signingSecrets: (id, sealed) => openSigningSecrets(id, sealed, bridgesDeps),
      routesVersion: () => version,
    },
    {
      prepareDedup: () => null,
      beginDedup: () => ({
        check: () => false,
        finish: () => {},
        committed: () => {},
        rolledBack: () => {},
      }),
    },
  );
  outbox.ports.registerKind("event", ingest.kindHandlers());
});
afterEach(() => db.destroy());

const request = (body: string) => ({
  method: "POST",
  path: "",
  queryString: "",
  headers: { "content-type": "application/json" },
  rawHeaders: [["content-type", "application/json"]] as [string, string][],
  body: new TextEncoder().encode(body),
});

function bridgeWith(destinations: unknown[]) {
  return createBridge(ORG, { name: "B", source: { name: "S" }, destinations }, bridgesDeps);
}

const eventStatus = (id: string) =>
  db.sqlite
    .query<{ status: string }, [string]>("SELECT status FROM event_states WHERE event_id = ?")
    .get(id)?.status;

describe("ingest writes its deliveries through the outbox", () => {
  test("one delivery per matching destination, keyed by destination, with its max_retries", async () => {
    const bridge = await bridgeWith([
      { name: "a", url: "http://a.test/", max_retries: 2, filters: [{ "body.n": { $gt: 1 } }] },
      { name: "b", url: "http://b.test/", max_retries: 7 },
      { name: "c", url: "http://c.test/", filters: [{ "body.n": { $lt: 0 } }] },
    ]);
    const plan = ingest.planById(bridge.source_id);
    if (!plan) throw new Error("no plan");
    const outcome = await ingest.ingest(plan, request('{"n": 5}'));
    if (!("eventId" in outcome)) throw new Error("duplicate");
    const written = outbox.rows.map((r) => [r.kind, r.subjectId, r.destinationKey, r.maxRetries]);
    expect(written).toEqual([
      ["event", outcome.eventId, bridge.destinations[0]?.id ?? "", 2],
      ["event", outcome.eventId, bridge.destinations[1]?.id ?? "", 7],
    ]);
    expect(outbox.wakes()).toBe(1);
    expect(eventStatus(outcome.eventId)).toBe("pending");
    expect(ingest.filterCost().evaluations).toBe(1);
  });

  test("onAttempt keeps the event status: delivered when all are, failed when one failed", async () => {
    const bridge = await bridgeWith([
      { name: "a", url: "http://a.test/" },
      { name: "b", url: "http://b.test/" },
    ]);
    const plan = ingest.planById(bridge.source_id);
    const outcome = plan ? await ingest.ingest(plan, request("{}")) : null;
    const id = outcome && "eventId" in outcome ? outcome.eventId : "";
    const handlers = outbox.kinds.get("event");
    const attempt = {} as DeliveryAttempt;
    const [first, second] = outbox.rows;
    if (!first || !second || !handlers?.onAttempt) throw new Error("setup");
    db.tx((tx) => handlers.onAttempt?.(tx, { ...first, status: "delivered" }, attempt));
    expect(eventStatus(id)).toBe("pending");
    first.status = "delivered";
    db.tx((tx) => handlers.onAttempt?.(tx, { ...second, status: "delivered" }, attempt));
    expect(eventStatus(id)).toBe("delivered");
    db.tx((tx) => handlers.onAttempt?.(tx, { ...second, status: "failed" }, attempt));
    expect(eventStatus(id)).toBe("failed");
  });

  test("the open count: a failure fails the event for good, a retry reopens it, a skip counts as ended", async () => {
    const bridge = await bridgeWith([
      { name: "a", url: "http://a.test/" },
      { name: "b", url: "http://b.test/" },
      { name: "c", url: "http://c.test/" },
    ]);
    const plan = ingest.planById(bridge.source_id);
    const outcome = plan ? await ingest.ingest(plan, request("{}")) : null;
    const id = outcome && "eventId" in outcome ? outcome.eventId : "";
    const handlers = outbox.kinds.get("event");
    const attempt = {} as DeliveryAttempt;
    const [a, b, c] = outbox.rows;
    if (!a || !b || !c || !handlers?.onAttempt || !handlers.onSkipped) throw new Error("setup");
    const open = () =>
      db.sqlite
        .query<{ n: number }, [string]>(
          "SELECT open_deliveries AS n FROM event_states WHERE event_id = ?",
        )
        .get(id)?.n;
    expect([eventStatus(id), open()]).toEqual(["pending", 3]);
    // A retry that is still retrying moves nothing.
    db.tx((tx) => handlers.onAttempt?.(tx, { ...a, status: "retrying" }, attempt));
    expect([eventStatus(id), open()]).toEqual(["pending", 3]);
    db.tx((tx) => handlers.onAttempt?.(tx, { ...a, status: "failed" }, attempt));
    expect([eventStatus(id), open()]).toEqual(["failed", 2]);
    db.tx((tx) => handlers.onSkipped?.(tx, { ...b, status: "delivered" }));
    db.tx((tx) => handlers.onAttempt?.(tx, { ...c, status: "delivered" }, attempt));
    expect([eventStatus(id), open()]).toEqual(["failed", 0]);
    a.status = "failed";
    const event = createEventsRepo(db).findById(id);
    expect(event ? ingest.retry(event).requeued : -1).toBe(1);
    expect([eventStatus(id), open()]).toEqual(["pending", 1]);
    db.tx((tx) => handlers.onAttempt?.(tx, { ...a, status: "delivered" }, attempt));
    expect([eventStatus(id), open()]).toEqual(["delivered", 0]);
  });

  test("prepare: the body byte-exact, custom headers, signed with the current then the replaced secret", async () => {
    const bridge = await bridgeWith([
      { name: "a", url: "http://a.test/in", method: "PUT", headers: { "X-Team": "ops" } },
    ]);
    const created = bridge.destinations[0];
    const plan = ingest.planById(bridge.source_id);
    if (plan) await ingest.ingest(plan, request('{"x":1}'));
    const handlers = outbox.kinds.get("event");
    const row = outbox.rows[0];
    if (!handlers || !row || !created?.signing_secret) throw new Error("setup");
    const prepared = await handlers.prepare(row);
    if (!("send" in prepared)) throw new Error("not sent");
    expect(prepared.send.url).toBe("http://a.test/in");
    expect(prepared.send.method).toBe("PUT");
    expect(prepared.send.headers).toContainEqual(["x-team", "ops"]);
    expect(new TextDecoder().decode(prepared.send.body as Uint8Array)).toBe('{"x":1}');
    expect(prepared.send.signingSecrets).toEqual([created.signing_secret]);
    const rotated = rotateSecret(ORG, bridge.id, created.id, bridgesDeps);
    const again = await handlers.prepare(row);
    expect("send" in again && again.send.signingSecrets).toEqual([
      rotated.signing_secret,
      created.signing_secret,
    ]);
    clock.advance(24 * 3600 * 1000 + 1);
    const later = await handlers.prepare(row);
    expect("send" in later && later.send.signingSecrets).toEqual([rotated.signing_secret]);
  });

  test("prepare: a {{SECRET}} template with no such secret fails as missing_secret", async () => {
    const bridge = await bridgeWith([
      { name: "a", url: "http://a.test/", headers: { authorization: "Bearer {{TOKEN}}" } },
    ]);
    const plan = ingest.planById(bridge.source_id);
    if (plan) await ingest.ingest(plan, request("{}"));
    const row = outbox.rows[0];
    const prepared = row ? await outbox.kinds.get("event")?.prepare(row) : null;
    expect(prepared).toEqual({
      fail: {
        errorType: "authentication_error",
        errorCode: "missing_secret",
        message: "secret TOKEN is not defined",
        // decisions.md §8 / the secrets task: retried on the normal schedule, so defining the
        // secret lets a later attempt through (the backoff keeps it from being a retry storm).
        retryable: true,
      },
    });
  });

  test("a paused bridge: event paused, no delivery; retry routes it and enqueues", async () => {
    const bridge = await bridgeWith([{ name: "a", url: "http://a.test/" }]);
    updateBridge(ORG, bridge.id, { status: "paused" }, bridgesDeps);
    const plan = ingest.planById(bridge.source_id);
    const outcome = plan ? await ingest.ingest(plan, request("{}")) : null;
    const id = outcome && "eventId" in outcome ? outcome.eventId : "";
    expect([eventStatus(id), outbox.rows.length]).toEqual(["paused", 0]);
    const event = createEventsRepo(db).findById(id);
    if (!event) throw new Error("no event");
    expect(ingest.retry(event).requeued).toBe(1);
    expect([eventStatus(id), outbox.rows.length]).toEqual(["pending", 1]);
  });

  test("retry of a failed event re-queues its failed deliveries", async () => {
    const bridge = await bridgeWith([{ name: "a", url: "http://a.test/" }]);
    const plan = ingest.planById(bridge.source_id);
    const outcome = plan ? await ingest.ingest(plan, request("{}")) : null;
    const id = outcome && "eventId" in outcome ? outcome.eventId : "";
    const row = outbox.rows[0];
    if (!row) throw new Error("setup");
    row.status = "failed";
    db.tx((tx) => outbox.kinds.get("event")?.onAttempt?.(tx, { ...row }, {} as DeliveryAttempt));
    expect(eventStatus(id)).toBe("failed");
    const event = createEventsRepo(db).findById(id);
    expect(event ? ingest.retry(event).requeued : -1).toBe(1);
    expect([eventStatus(id), row.status]).toEqual(["pending", "pending"]);
  });
});

describe("retention", () => {
  test("events older than the plan's retention go, newer ones stay", async () => {
    const bridge = await bridgeWith([]);
    const plan = ingest.planById(bridge.source_id);
    if (!plan) throw new Error("no plan");
    const old = await ingest.ingest(plan, request("{}"));
    clock.advance(6 * 24 * 3600 * 1000);
    const recent = await ingest.ingest(plan, request("{}"));
    clock.advance(2 * 24 * 3600 * 1000);
    const deleted = await sweepEvents({
      events: createEventsRepo(db),
      tx: (fn) => db.tx(fn),
      forgetDeliveries: (tx, ids) => outbox.ports.forgetSubjects(tx, "event", ids),
      clock,
      plans: DEFAULT_PLANS,
      yieldTurn: async () => {},
    });
    expect(deleted).toBe(1);
    expect("eventId" in old && eventStatus(old.eventId)).toBeUndefined();
    expect("eventId" in recent && eventStatus(recent.eventId)).toBe("filtered");
  });
});
