import { createGroupCommit, type Transact } from "../db/db.group-commit.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { CapturedRequest, CaptureTarget } from "./capture.model.ts";

/** A stored request and the endpoint it was captured on, as handed to `onCommitted`. */
export interface CommittedCapture {
  request: CapturedRequest;
  endpoint: CaptureTarget;
}

export interface CaptureWriterOptions {
  /** Opens the batch's one transaction: `deps.db.tx`. */
  tx: Transact;
  /**
   * Stores a batch inside that transaction and says per request whether it was stored (false:
   * its endpoint is gone); throws when nothing may be stored. Whatever else it writes through
   * `tx` (a forward's outbox row) commits with the captures.
   */
  store(batch: readonly CommittedCapture[], tx: TxHandle): readonly boolean[];
  /** Called once per committed batch with the stored requests, in capture order, before the senders are answered. */
  onCommitted(batch: readonly CommittedCapture[]): void;
  /** Told when `onCommitted` throws (the rows are committed all the same). */
  onCommittedError?(error: unknown): void;
  /** Most rows per transaction (a long transaction holds up whoever runs it). */
  maxBatch?: number;
}

/** Queues captured requests and commits them in groups; see `createCaptureWriter`. */
/** What became of one request in its batch. */
export type CaptureWritten = boolean | "full";

export interface CaptureWriter {
  /**
   * Resolves once the request's batch is committed: true when stored, false when its endpoint
   * was deleted meanwhile, "full" when an anonymous endpoint had no place left at the commit (on
   * PostgreSQL, where other nodes' captures take places too). Rejects when the batch failed
   * (nothing of it is stored).
   */
  write(request: CapturedRequest, endpoint: CaptureTarget): Promise<CaptureWritten>;
  /** Requests queued and not yet committed. */
  pending(): number;
  /** Refuses new writes and commits what is queued now. */
  close(): void;
}

/**
 * Capture on the group commit (src/db/db.group-commit.ts): a 200 means the request's batch has
 * committed; a failed batch fails every request in it. Only stored requests are published.
 */
export function createCaptureWriter(options: CaptureWriterOptions): CaptureWriter {
  const group = createGroupCommit<CommittedCapture, boolean>({
    tx: options.tx,
    commit: options.store,
    onCommitted(batch, stored) {
      const committed = stored.every(Boolean) ? batch : batch.filter((_, i) => stored[i]);
      if (committed.length > 0) options.onCommitted(committed);
    },
    onCommittedError: options.onCommittedError,
    maxBatch: options.maxBatch,
  });
  return {
    write: (request, endpoint) => group.submit({ request, endpoint }),
    pending: () => group.pending(),
    close: () => group.close(),
  };
}
