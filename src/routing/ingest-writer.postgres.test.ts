import { afterAll, beforeAll, expect, test } from "bun:test";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createPostgresDedupKeys } from "../dedup/dedup.keys.postgres.ts";
import { createCheckDedupPostgres, createDedupPostgresStore } from "../dedup/dedup.postgres.ts";
import type { DeliveryRecord, NewDelivery } from "../delivery/delivery.ports.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import type { StoredEvent } from "./events.repo.ts";
import type { IngestWrite } from "./ingest.store.ts";
import {
  createIngestPostgresWriter,
  type IngestPostgresOptions,
} from "./ingest-writer.postgres.ts";

const databases = usePgDatabases();
const NOW = 1_780_000_000_000;
/** Two nodes: each its own client (its own pool) on one database. */
let nodes: [PostgresDb, PostgresDb];

beforeAll(async () => {
  const first = await openMigratedPgDatabase(databases);
  nodes = [first, await openPostgres(first.url, { poolSize: 4 })];
});
afterAll(async () => {
  for (const node of nodes ?? []) await node.close();
});

let counter = 0;
const eventOf = (sourceId: string): StoredEvent => {
  counter += 1;
  return {
    id: `evt-${counter}`,
    organizationId: "org-a",
    sourceId,
    method: "POST",
    path: "/",
    queryString: "",
    headers: { "content-type": "application/json" },
    rawHeaders: [["Content-Type", "application/json"]],
    body: new TextEncoder().encode(`{"id":"order-${counter}"}`),
    status: "pending",
    createdAt: new Date(NOW).toISOString(),
  };
};

const writeOf = (sourceId: string, key: Uint8Array | null): IngestWrite => ({
  event: eventOf(sourceId),
  bridgeIds: [],
  deliveries: [],
  dedup: { sourceId, key, ttlMs: 60_000 },
});

/** A node's ingest writer, with the dedup step as the dedup room on PostgreSQL lends it. */
const writerOn = (
  node: PostgresDb,
  enqueueDeliveries?: IngestPostgresOptions["enqueueDeliveries"],
) =>
  createIngestPostgresWriter(node, {
    checkDedup: createCheckDedupPostgres(createPostgresDedupKeys(node.sql), () => NOW),
    ...(enqueueDeliveries ? { enqueueDeliveries } : {}),
  });

const eventsOf = async (sourceId: string) =>
  (await nodes[0].sql`SELECT id FROM events WHERE source_id = ${sourceId}`).map(
    (row: { id: string }) => row.id,
  );

test("two nodes offered the same dedup key at once: one stores the event, the other refuses it", async () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  for (let round = 0; round < 5; round += 1) {
    const sourceId = `src-race-${round}`;
    const writes = [writeOf(sourceId, key), writeOf(sourceId, key)];
    const outcomes = await Promise.all(
      nodes.map((node, i) => writerOn(node).store(writes[i] as IngestWrite)),
    );
    expect(outcomes.toSorted()).toEqual(["duplicate", "stored"]);
    const stored = writes[outcomes.indexOf("stored")]?.event.id;
    expect(await eventsOf(sourceId)).toEqual([stored as string]);
    // Both ingests were counted, one of them as a duplicate, on the shared counters.
    const totals = await createDedupPostgresStore(
      nodes[1],
      createPostgresDedupKeys(nodes[1].sql),
    ).totals(sourceId, Number.MIN_SAFE_INTEGER);
    expect(totals).toEqual({ totalRequests: 2, duplicatesRejected: 1, rejectedUnverified: 0 });
  }
});

test("an event is stored with its state and read at once by another node; distinct keys both store", async () => {
  const sourceId = "src-distinct";
  const first = writeOf(sourceId, crypto.getRandomValues(new Uint8Array(32)));
  const second = writeOf(sourceId, crypto.getRandomValues(new Uint8Array(32)));
  expect(await writerOn(nodes[0]).store(first)).toBe("stored");
  expect(await writerOn(nodes[1]).store(second)).toBe("stored");
  const [row] = await nodes[1].sql`
    SELECT e.body, e.raw_headers, s.status, s.open_deliveries
      FROM events e JOIN event_states s ON s.event_id = e.id WHERE e.id = ${first.event.id}`;
  expect(new Uint8Array(row.body)).toEqual(first.event.body);
  expect(JSON.parse(row.raw_headers)).toEqual(first.event.rawHeaders);
  expect(row.status).toBe("pending");
  // No outbox was lent: nothing is open, as on SQLite without a delivery room.
  expect(row.open_deliveries).toBe(0);
});

test("the deliveries are written in the event's transaction: a failing outbox leaves no event and frees the key", async () => {
  const sourceId = "src-outbox";
  const key = crypto.getRandomValues(new Uint8Array(32));
  const seen: NewDelivery[] = [];
  const failing = writerOn(nodes[0], async (tx, deliveries) => {
    // The outbox writes through the event's transaction: it sees the uncommitted event.
    const [visible] = await tx`SELECT count(*)::int AS n FROM events WHERE source_id = ${sourceId}`;
    expect(visible.n).toBe(1);
    seen.push(...deliveries);
    throw new Error("outbox unavailable");
  });
  const write = {
    ...writeOf(sourceId, key),
    deliveries: [
      {
        kind: "event" as const,
        organizationId: "org-a",
        subjectId: "evt",
        destinationKey: "dst-1",
        maxRetries: 3,
      },
    ],
  };
  await expect(failing.store(write)).rejects.toThrow("outbox unavailable");
  // Asked in the batch, then once more alone: a write the batch undid is tried again by itself.
  expect(seen).toHaveLength(2);
  expect(await eventsOf(sourceId)).toEqual([]);
  // The key rolled back with the event: the sender's retry is accepted on another node.
  const retry = writeOf(sourceId, key);
  const opened = writerOn(nodes[1], async (_tx, deliveries) =>
    deliveries.map(
      (d, i): DeliveryRecord => ({
        id: `dlv-${i}`,
        kind: d.kind,
        organizationId: d.organizationId,
        subjectId: d.subjectId,
        destinationKey: d.destinationKey,
        webhookId: `msg_${i}`,
        status: "pending",
        attempts: 0,
        maxRetries: d.maxRetries,
        nextAttemptAt: null,
        lastStatusCode: null,
        lastErrorType: null,
        lastErrorCode: null,
        lastErrorMessage: null,
        lastLatencyMs: null,
        createdAt: retry.event.createdAt,
        updatedAt: retry.event.createdAt,
      }),
    ),
  );
  expect(await opened.store({ ...retry, deliveries: write.deliveries })).toBe("stored");
  const [state] = await nodes[0].sql`
    SELECT open_deliveries FROM event_states WHERE event_id = ${retry.event.id}`;
  expect(state.open_deliveries).toBe(1);
});

test("the events of one turn share a transaction, each undone alone: stored, stale (a bridge gone) and duplicate side by side", async () => {
  const sourceId = "src-batch";
  const key = crypto.getRandomValues(new Uint8Array(32));
  let transactions = 0;
  const counted = {
    ...nodes[0],
    sql: new Proxy(nodes[0].sql, {
      get(target, property, receiver) {
        if (property !== "begin") return Reflect.get(target, property, receiver);
        return (...args: unknown[]) => {
          transactions += 1;
          return Reflect.apply(target.begin, target, args);
        };
      },
    }),
  } as PostgresDb;
  const writer = createIngestPostgresWriter(counted, {
    checkDedup: createCheckDedupPostgres(createPostgresDedupKeys(counted.sql), () => NOW),
  });
  const first = writeOf(sourceId, key);
  const stale = { ...writeOf(sourceId, null), bridgeIds: ["bridge-deleted-meanwhile"] };
  const again = writeOf(sourceId, key);
  const more = Array.from({ length: 20 }, () => writeOf(sourceId, null));
  const outcomes = await Promise.all([first, stale, again, ...more].map((w) => writer.store(w)));
  expect(outcomes.slice(0, 3)).toEqual(["stored", "stale", "duplicate"]);
  expect(outcomes.slice(3).every((outcome) => outcome === "stored")).toBe(true);
  expect(transactions).toBe(1);
  expect((await eventsOf(sourceId)).sort()).toEqual([first, ...more].map((w) => w.event.id).sort());
  await writer.close();
  await expect(writer.store(writeOf(sourceId, null))).rejects.toThrow("closed");
});
