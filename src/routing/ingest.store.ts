import type { NewDelivery } from "../delivery/delivery.ports.ts";
import type { StoredEvent } from "./events.repo.ts";

/** One ingested event's writes, made before its transaction (routing and hashing are CPU work). */
export interface IngestWrite {
  event: StoredEvent;
  /** The bridges it went through, in order. */
  bridgeIds: readonly string[];
  deliveries: readonly NewDelivery[];
  /** The source's dedup ticket; null when the source does not deduplicate. */
  dedup: { sourceId: string; key: Uint8Array | null; ttlMs: number } | null;
}

export type IngestWriteOutcome = "stored" | "duplicate";

/**
 * The ingest's writes where each event is its own transaction (PostgreSQL,
 * ingest-writer.postgres.ts). SQLite's are the group commit of ingest.service.ts.
 */
export interface IngestWriter {
  /** Resolves after the event's transaction committed. */
  store(write: IngestWrite): Promise<IngestWriteOutcome>;
}
