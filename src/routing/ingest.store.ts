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

/**
 * `stale`: a source or bridge the write names is gone (deleted on some node after the plan was
 * read); nothing was stored, and the request may be routed again as things are now.
 */
export type IngestWriteOutcome = "stored" | "duplicate" | "stale";

/**
 * The ingest's writes on PostgreSQL (ingest-writer.postgres.ts). SQLite's are the synchronous
 * group commit of ingest.service.ts.
 */
export interface IngestWriter {
  /** Resolves after the event's transaction committed. */
  store(write: IngestWrite): Promise<IngestWriteOutcome>;
  /** Commits what is queued; later writes are refused. */
  close(): Promise<void>;
}
