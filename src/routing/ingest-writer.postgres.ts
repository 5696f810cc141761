import { type BatchOutcome, createPostgresGroupCommit } from "../db/db.group-commit.postgres.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { CheckDedupPostgres } from "../dedup/dedup.store.ts";
import type { DeliveryRecord, NewDelivery } from "../delivery/delivery.ports.ts";
import type { StoredEvent } from "./events.repo.ts";
import type { IngestWrite, IngestWriteOutcome, IngestWriter } from "./ingest.store.ts";

export interface IngestPostgresOptions {
  /** The dedup room's step inside the event's transaction (claim the key, count the ingest). */
  checkDedup?: CheckDedupPostgres;
  /** The delivery room's outbox on PostgreSQL; absent: events are stored and nothing is sent. */
  enqueueDeliveries?(tx: PostgresTx, deliveries: readonly NewDelivery[]): Promise<DeliveryRecord[]>;
}

/** Most events in one transaction: a burst's answers wait for one commit, not a queue of them. */
const MAX_BATCH = 256;

/**
 * The ingest's writes on PostgreSQL: each event's dedup key, the event with its state and
 * bridges, and its deliveries commit together, so a node answers 200 only after all of them
 * committed, and a key held by any node's committed (or still open) ingest refuses the same key
 * on every other node. The events of one turn share a transaction (a group commit, as capture's),
 * each in a savepoint of its own: one event's failure, or a bridge deleted since its plan was
 * read, undoes that event alone; an event the batch undid otherwise is written again in a
 * transaction of its own, as is every event of a batch that failed as a whole.
 */
export function createIngestPostgresWriter(
  pg: PostgresDb,
  options: IngestPostgresOptions = {},
): IngestWriter {
  const { checkDedup, enqueueDeliveries } = options;
  const write = async (tx: PostgresTx, w: IngestWrite): Promise<IngestWriteOutcome> => {
    if (w.dedup && checkDedup && (await checkDedup(tx, w.dedup))) return "duplicate";
    const open = enqueueDeliveries ? w.deliveries.length : 0;
    await insertEvent(tx, w.event, w.bridgeIds, open);
    if (open > 0) await enqueueDeliveries?.(tx, w.deliveries);
    return "stored";
  };
  // The event's transaction (or savepoint) rolled back, its dedup key with it.
  const staleOr = (error: unknown): IngestWriteOutcome => {
    if (isForeignKeyViolation(error)) return "stale";
    throw error;
  };
  const group = createPostgresGroupCommit<IngestWrite, IngestWriteOutcome>({
    sql: pg.sql,
    maxBatch: MAX_BATCH,
    // A source's shared rows (its dedup counters) are taken in one order by every node's batches.
    orderBy: (w) => w.event.sourceId,
    async commit(tx, batch) {
      const outcomes: BatchOutcome<IngestWriteOutcome>[] = [];
      for (const w of batch) {
        try {
          outcomes.push({ result: await tx.savepoint((inner) => write(inner, w)) });
        } catch (error) {
          if (isForeignKeyViolation(error)) outcomes.push({ result: "stale" });
          else outcomes.push({ failed: error });
        }
      }
      return outcomes;
    },
    alone: (w) => pg.sql.begin((tx) => write(tx, w)).catch(staleOr),
  });
  return { store: (w) => group.submit(w), close: () => group.close() };
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
