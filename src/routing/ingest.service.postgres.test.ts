import { afterAll, beforeAll, expect, test } from "bun:test";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createPostgresDedupKeys } from "../dedup/dedup.keys.postgres.ts";
import { createCheckDedupPostgres } from "../dedup/dedup.postgres.ts";
import { prepareDedup } from "../dedup/dedup.service.ts";
import type { NewDelivery } from "../delivery/delivery.ports.ts";
import { createIds } from "../shared/ids.ts";
import { createSealer } from "../shared/sealed.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createBridgesPostgresStore } from "./bridges.postgres.ts";
import { type BridgesDeps, createBridge, deleteBridge } from "./bridges.service.ts";
import { addDestination, openSigningSecrets } from "./destinations.service.ts";
import { createEventsRepo } from "./events.repo.ts";
import { createIngestService } from "./ingest.service.ts";
import { createIngestPostgresWriter } from "./ingest-writer.postgres.ts";
import { createSourcesPostgresStore } from "./sources.postgres.ts";

const databases = usePgDatabases();
const ORG = "org-1";
const clock = createFakeClock(Date.UTC(2026, 5, 1));
let nodes: [PostgresDb, PostgresDb];
let db: TestDb;

beforeAll(async () => {
  const first = await openMigratedPgDatabase(databases);
  nodes = [first, await openPostgres(first.url, { poolSize: 4 })];
  db = createTestDb();
  await first.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
                  VALUES (${ORG}, 'Org', 'free', '', '')`;
});
afterAll(async () => {
  for (const node of nodes ?? []) await node.close();
  db?.destroy();
});

/**
 * One node's ingest service writing through PostgreSQL: the dedup key, the event and its
 * deliveries (into `outbox`, inside the event's transaction) in one transaction per event.
 * Route plans and destinations are read through the node's PostgreSQL stores; `routesChanged`
 * stands in for the bridged `routes.changed` reaching this node.
 */
function ingestOn(node: PostgresDb, outbox: NewDelivery[]) {
  const sources = createSourcesPostgresStore(node);
  const bridges = createBridgesPostgresStore(node);
  let version = 0;
  const bridgesDeps: BridgesDeps = {
    bridges,
    sources,
    clock,
    ids: createIds(),
    sealer: createSealer(new Uint8Array(32).fill(7), "destination-signing-secret"),
    checks: { urlProblem: () => null },
    routesChanged: () => {},
    maxDestinations: 50,
  };
  const service = createIngestService(
    {
      routeStores: { sources, bridges },
      events: createEventsRepo(db),
      delivery: null,
      tx: () => {
        throw new Error("on PostgreSQL nothing is written to SQLite");
      },
      writer: createIngestPostgresWriter(node, {
        checkDedup: createCheckDedupPostgres(createPostgresDedupKeys(node.sql), () => clock.now()),
        enqueueDeliveries: async (tx, deliveries) => {
          // Written only once the event is in the same transaction.
          const [row] = await tx`SELECT count(*)::int AS n FROM events
                                 WHERE id = ${deliveries[0]?.subjectId ?? ""}`;
          expect(row.n).toBe(1);
          outbox.push(...deliveries);
          return [];
        },
      }),
      clock,
      ids: createIds(),
      signingSecrets: (id, sealed) => openSigningSecrets(id, sealed, bridgesDeps),
      routesVersion: () => version,
    },
    {
      prepareDedup: (source, view) =>
        prepareDedup({
          sourceId: source.id,
          organizationId: source.organizationId,
          config: source.deduplicationConfig,
          request: view,
          rawBody: "",
        }),
      beginDedup: () => {
        throw new Error("on PostgreSQL dedup is checked in the event's transaction");
      },
    },
  );
  const routesChanged = () => {
    version += 1;
  };
  return { service, bridgesDeps, routesChanged };
}

const request = (body: string) => ({
  method: "POST",
  path: "",
  queryString: "",
  headers: { "content-type": "application/json" },
  rawHeaders: [["content-type", "application/json"]] as [string, string][],
  body: new TextEncoder().encode(body),
});

test("two nodes ingesting one order at once: one event with its deliveries, one duplicate", async () => {
  const outboxes: [NewDelivery[], NewDelivery[]] = [[], []];
  const [a, b] = [ingestOn(nodes[0], outboxes[0]), ingestOn(nodes[1], outboxes[1])];
  const bridge = await createBridge(
    ORG,
    {
      name: "Orders",
      source: {
        name: "Shop",
        deduplication_config: { body_path: "body.order_id", ttl_seconds: 3600 },
      },
      destinations: [{ name: "erp", url: "http://erp.test/" }],
    },
    a.bridgesDeps,
  );
  const plans = [
    await a.service.awaitPlanById(bridge.source_id),
    await b.service.awaitPlanById(bridge.source_id),
  ];
  if (!plans[0] || !plans[1]) throw new Error("no plan");
  const order = '{"order_id":"ord_2001"}';
  const outcomes = await Promise.all([
    a.service.ingest(plans[0], request(order)),
    b.service.ingest(plans[1], request(order)),
  ]);
  const accepted = outcomes.flatMap((o) => ("eventId" in o ? [o.eventId] : []));
  expect(accepted).toHaveLength(1);
  expect(outcomes.filter((o) => "duplicate" in o)).toHaveLength(1);

  const events = await nodes[1].sql`
    SELECT e.id, s.status, s.open_deliveries FROM events e
      JOIN event_states s ON s.event_id = e.id WHERE e.source_id = ${bridge.source_id}`;
  expect(events).toEqual([{ id: accepted[0], status: "pending", open_deliveries: 1 }]);
  const written = [...outboxes[0], ...outboxes[1]];
  expect(written.map((d) => [d.subjectId, d.kind])).toEqual([[accepted[0] as string, "event"]]);
  // Another order is not a duplicate.
  const other = await b.service.ingest(plans[1], request('{"order_id":"ord_2002"}'));
  expect("eventId" in other).toBe(true);
});

test("a destination added on one node reaches another node's plans once the change is told", async () => {
  const [a, b] = [ingestOn(nodes[0], []), ingestOn(nodes[1], [])];
  const bridge = await createBridge(
    ORG,
    {
      name: "Spread",
      source: { name: "Spread source" },
      destinations: [{ name: "first", url: "http://first.test/" }],
    },
    a.bridgesDeps,
  );
  const names = async () =>
    (await b.service.awaitPlanById(bridge.source_id))?.bridges.flatMap((x) =>
      x.destinations.map((d) => d.destination.name),
    );
  expect(await names()).toEqual(["first"]);
  await addDestination(
    ORG,
    bridge.id,
    { name: "second", url: "http://second.test/" },
    a.bridgesDeps,
  );
  // Node B's plan is cached until the change reaches it.
  expect(await names()).toEqual(["first"]);
  b.routesChanged();
  expect(await names()).toEqual(["first", "second"]);
  expect(await b.service.awaitPlanBySlug("no-such-slug")).toBeNull();
});

test("a plan gone stale on another node: the event is routed as things are now, or 404 once the source is gone", async () => {
  const outbox: NewDelivery[] = [];
  const [a, b] = [ingestOn(nodes[0], outbox), ingestOn(nodes[1], [])];
  const bridge = await createBridge(
    ORG,
    {
      name: "Stale",
      source: { name: "Stale source" },
      destinations: [{ name: "gone", url: "http://gone.test/" }],
    },
    a.bridgesDeps,
  );
  const plan = await a.service.awaitPlanById(bridge.source_id);
  if (!plan) throw new Error("no plan");
  // Node B deletes the bridge; node A is not told before its next ingest.
  await deleteBridge(ORG, bridge.id, b.bridgesDeps);
  const outcome = await a.service.ingest(plan, request('{"n":1}'));
  if (!("eventId" in outcome)) throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  const bridges = await nodes[0].sql`
    SELECT bridge_id FROM event_bridges WHERE event_id = ${outcome.eventId}`;
  expect(bridges).toEqual([]);
  expect(outbox).toEqual([]);
  await createSourcesPostgresStore(nodes[1]).remove(ORG, bridge.source_id);
  expect(await a.service.ingest(plan, request('{"n":2}'))).toEqual({ sourceGone: true });
});
