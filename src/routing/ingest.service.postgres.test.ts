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
import { createBridgesRepo } from "./bridges.repo.ts";
import { type BridgesDeps, createBridge, openSigningSecrets } from "./bridges.service.ts";
import { createBridgesSqliteStore } from "./bridges.sqlite.ts";
import { createEventsRepo } from "./events.repo.ts";
import { createIngestService } from "./ingest.service.ts";
import { createIngestPostgresWriter } from "./ingest-writer.postgres.ts";
import { createSourcesRepo } from "./sources.repo.ts";
import { createSourcesSqliteStore } from "./sources.sqlite.ts";

const databases = usePgDatabases();
const ORG = "org-1";
const clock = createFakeClock(Date.UTC(2026, 5, 1));
let nodes: [PostgresDb, PostgresDb];
let db: TestDb;

beforeAll(async () => {
  const first = await openMigratedPgDatabase(databases);
  nodes = [first, await openPostgres(first.url, { poolSize: 4 })];
  db = createTestDb();
  db.sqlite.run(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, 'Org', 'free', '', '')",
    [ORG],
  );
});
afterAll(async () => {
  for (const node of nodes ?? []) await node.close();
  db?.destroy();
});

/**
 * One node's ingest service writing through PostgreSQL: the dedup key, the event and its
 * deliveries (into `outbox`, inside the event's transaction) in one transaction per event.
 * The route plan is read from the SQLite repos, which the room's PostgreSQL stores replace.
 */
function ingestOn(node: PostgresDb, outbox: NewDelivery[]) {
  const sources = createSourcesRepo(db);
  const bridgesDeps: BridgesDeps = {
    bridges: createBridgesSqliteStore(db),
    sources: createSourcesSqliteStore(db),
    clock,
    ids: createIds(),
    sealer: createSealer(new Uint8Array(32).fill(7), "destination-signing-secret"),
    checks: { urlProblem: () => null },
    routesChanged: () => {},
    maxDestinations: 50,
  };
  const service = createIngestService(
    {
      sources,
      bridges: createBridgesRepo(db),
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
      routesVersion: () => 0,
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
  return { service, bridgesDeps };
}

/** Copies one row (by id) from the SQLite file into the PostgreSQL database. */
async function copyToPostgres(table: "organizations" | "sources" | "bridges", id: string) {
  const row = db.sqlite.query(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Record<
    string,
    unknown
  >;
  await nodes[0].sql`INSERT INTO ${nodes[0].sql(table)} ${nodes[0].sql(row)}`;
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
  // The rows the event refers to, as the room's PostgreSQL stores will hold them.
  await copyToPostgres("organizations", ORG);
  await copyToPostgres("sources", bridge.source_id);
  await copyToPostgres("bridges", bridge.id);
  const plans = [a.service.planById(bridge.source_id), b.service.planById(bridge.source_id)];
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
