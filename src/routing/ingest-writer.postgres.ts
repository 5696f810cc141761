import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { CheckDedupPostgres } from "../dedup/dedup.store.ts";
import type { DeliveryRecord, NewDelivery } from "../delivery/delivery.ports.ts";
import type { StoredEvent } from "./events.repo.ts";
import type { IngestWriteOutcome, IngestWriter } from "./ingest.store.ts";

export interface IngestPostgresOptions {
  /** The dedup room's step inside the event's transaction (claim the key, count the ingest). */
  checkDedup?: CheckDedupPostgres;
  /** The delivery room's outbox on PostgreSQL; absent: events are stored and nothing is sent. */
  enqueueDeliveries?(tx: PostgresTx, deliveries: readonly NewDelivery[]): Promise<DeliveryRecord[]>;
}

/**
 * The ingest's writes on PostgreSQL: for each event one `sql.begin` transaction holds its dedup
 * key, the event with its state and bridges, and its deliveries, so a node answers 200 only after
 * all of them committed, and a key held by any node's committed (or still open) ingest refuses
 * the same key on every other node. SQLite keeps its group commit (ingest.service.ts): on
 * PostgreSQL each node's pool runs several of these transactions at once instead.
 */
export function createIngestPostgresWriter(
  pg: PostgresDb,
  options: IngestPostgresOptions = {},
): IngestWriter {
  const { checkDedup, enqueueDeliveries } = options;
  return {
    store: (write) =>
      pg.sql
        .begin(async (tx): Promise<IngestWriteOutcome> => {
          if (write.dedup && checkDedup && (await checkDedup(tx, write.dedup))) return "duplicate";
          const open = enqueueDeliveries ? write.deliveries.length : 0;
          await insertEvent(tx, write.event, write.bridgeIds, open);
          if (open > 0) await enqueueDeliveries?.(tx, write.deliveries);
          return "stored";
        })
        .catch((error: unknown) => {
          // The whole transaction rolled back, its dedup key with it.
          if (isForeignKeyViolation(error)) return "stale";
          throw error;
        }),
  };
}

/** PostgreSQL's code for a foreign key refusing a row: the source or a bridge is gone. */
const FOREIGN_KEY_VIOLATION = "23503";

const isForeignKeyViolation = (error: unknown) =>
  (error as { errno?: unknown } | null)?.errno === FOREIGN_KEY_VIOLATION;

/** The event, its state (`open`: the deliveries written with it) and its bridges, as on SQLite. */
async function insertEvent(
  tx: PostgresTx,
  e: StoredEvent,
  bridgeIds: readonly string[],
  open: number,
): Promise<void> {
  const filteredBy = e.filteredBy && e.filteredBy.length > 0 ? JSON.stringify(e.filteredBy) : null;
  const body = Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength);
  await tx`
    INSERT INTO events (id, organization_id, source_id, method, path, query_string, raw_headers,
      body, created_at, filtered_by)
    VALUES (${e.id}, ${e.organizationId}, ${e.sourceId}, ${e.method}, ${e.path}, ${e.queryString},
      ${JSON.stringify(e.rawHeaders)}, ${body}, ${e.createdAt}, ${filteredBy})`;
  await tx`
    INSERT INTO event_states (event_id, status, open_deliveries, status_reason)
    VALUES (${e.id}, ${e.status}, ${open}, ${e.statusReason ?? null})`;
  for (const bridgeId of bridgeIds) {
    await tx`INSERT INTO event_bridges (event_id, bridge_id) VALUES (${e.id}, ${bridgeId})
             ON CONFLICT DO NOTHING`;
  }
}
