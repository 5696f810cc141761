import type { TransactionSQL } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { CapturedRequest } from "./capture.model.ts";
import type { CaptureWriter, CommittedCapture } from "./capture.writer.ts";
import { insertRow } from "./requests.postgres.ts";

export interface CapturePostgresWriterOptions {
  pg: PostgresDb;
  /** Called once per committed batch with the stored captures, in capture order, before the senders are answered. */
  onCommitted(batch: readonly CommittedCapture[]): void;
  /** Told when `onCommitted` throws (the rows are committed all the same). */
  onCommittedError?(error: unknown): void;
  /** Most rows per transaction. */
  maxBatch?: number;
  /**
   * Writes the outbox rows of the stored captures that are to be forwarded, in the batch's
   * transaction; returns how many. The PostgreSQL twin of capture's `enqueueForwards` port.
   */
  enqueueForwards?(tx: TransactionSQL, captures: readonly CommittedCapture[]): Promise<number>;
  /** Notes the action runs the stored captures are owed, in the batch's transaction. */
  oweActionRuns?(tx: TransactionSQL, captures: readonly CommittedCapture[]): Promise<void>;
}

/** The writer on PostgreSQL; `close` resolves once what was queued is committed and answered. */
export interface CapturePostgresWriter extends CaptureWriter {
  close(): Promise<void>;
}

interface Pending {
  capture: CommittedCapture;
  resolve(stored: boolean): void;
  reject(error: unknown): void;
}

const DEFAULT_MAX_BATCH = 500;

/**
 * Capture's group commit on PostgreSQL, with the contract of the SQLite one (capture.writer.ts):
 * the captures that arrive in one turn of the event loop, or while the previous batch commits,
 * are stored in one transaction (one multi-row INSERT, one counter UPDATE per endpoint), and each
 * sender is answered after that COMMIT. A failed batch rejects every capture in it and stores none.
 */
export function createCapturePostgresWriter(
  options: CapturePostgresWriterOptions,
): CapturePostgresWriter {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  let queue: Pending[] = [];
  let scheduled = false;
  let inFlight: Promise<void> | null = null;
  let closed = false;

  const publish = (batch: readonly CommittedCapture[], stored: readonly boolean[]) => {
    const committed = batch.filter((_, i) => stored[i]);
    if (committed.length === 0) return;
    try {
      options.onCommitted(committed);
    } catch (error) {
      options.onCommittedError?.(error);
    }
  };
  const commitNext = async () => {
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    const captures = batch.map((p) => p.capture);
    try {
      const stored = await options.pg.sql.begin((tx) => storeBatch(tx, captures, options));
      publish(captures, stored);
      for (const [i, p] of batch.entries()) p.resolve(stored[i] === true);
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  };
  const run = () => {
    scheduled = false;
    if (inFlight || queue.length === 0) return;
    inFlight = commitNext().finally(() => {
      inFlight = null;
      // What arrived during the commit is the next batch, committed at once.
      if (queue.length > 0) run();
    });
  };
  const schedule = () => {
    if (scheduled || inFlight) return;
    scheduled = true;
    setImmediate(run);
  };

  return {
    write(request, endpoint) {
      if (closed) return Promise.reject(new Error("capture writer is closed"));
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ capture: { request, endpoint }, resolve, reject });
        schedule();
      });
    },
    pending: () => queue.length,
    async close() {
      closed = true;
      while (inFlight || queue.length > 0) {
        run();
        await inFlight;
      }
    },
  };
}

/**
 * One batch inside its transaction: the live endpoints' rows are locked in id order (an empty or
 * a delete on another node waits for this commit, and two batches never deadlock), then the
 * requests of live endpoints go in one INSERT and each endpoint's counter moves once. A request
 * at or below its endpoint's empty mark is stored hidden, uncounted, and left to the drain.
 */
async function storeBatch(
  tx: TransactionSQL,
  captures: readonly CommittedCapture[],
  options: CapturePostgresWriterOptions,
): Promise<boolean[]> {
  const endpointIds = [...new Set(captures.map((c) => c.request.endpointId))].sort();
  const live: { id: string; mark: string }[] = await tx`
    SELECT id, coalesce(cleared_through_id, '') AS mark FROM debug_endpoints
     WHERE id = ANY(${endpointIds}::text[]) AND deleted_at IS NULL
     ORDER BY id FOR UPDATE`;
  const tallies = new Map(live.map((row) => [row.id, { mark: row.mark, visible: 0, hidden: 0 }]));
  const stored = captures.map(({ request }) => {
    const tally = tallies.get(request.endpointId);
    if (!tally) return false;
    if (request.id > tally.mark) tally.visible += 1;
    else tally.hidden += 1;
    return true;
  });
  const kept = captures.filter((_, i) => stored[i]);
  if (kept.length === 0) return stored;
  const rows = kept.map((c) => insertRow(c.request as CapturedRequest));
  await tx`INSERT INTO captured_requests ${tx(rows)}`;
  for (const [endpointId, tally] of tallies) {
    if (tally.visible === 0 && tally.hidden === 0) continue;
    await tx`UPDATE debug_endpoints SET request_count = request_count + ${tally.visible},
      drain_pending = greatest(drain_pending, ${tally.hidden > 0 ? 1 : 0}) WHERE id = ${endpointId}`;
  }
  await options.enqueueForwards?.(tx, kept);
  await options.oweActionRuns?.(tx, kept);
  return stored;
}
