import type { TransactionSQL } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { ANONYMOUS_REQUEST_LIMIT, type CapturedRequest } from "./capture.model.ts";
import type { CaptureWriter, CaptureWritten, CommittedCapture } from "./capture.writer.ts";
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
  resolve(written: CaptureWritten): void;
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

  const publish = (batch: readonly CommittedCapture[], written: readonly CaptureWritten[]) => {
    const committed = batch.filter((_, i) => written[i] === true);
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
      const written = await options.pg.sql.begin((tx) => storeBatch(tx, captures, options));
      publish(captures, written);
      for (const [i, p] of batch.entries()) p.resolve(written[i] ?? false);
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
      return new Promise<CaptureWritten>((resolve, reject) => {
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
 * at or below its endpoint's empty mark is stored hidden, uncounted, and left to the drain. An
 * anonymous endpoint's places are counted under that lock, so every node's captures together
 * stop at its cap.
 */
async function storeBatch(
  tx: TransactionSQL,
  captures: readonly CommittedCapture[],
  options: CapturePostgresWriterOptions,
): Promise<CaptureWritten[]> {
  const endpointIds = [...new Set(captures.map((c) => c.request.endpointId))].sort();
  const live: { id: string; mark: string; places: number | null }[] = await tx`
    SELECT id, coalesce(cleared_through_id, '') AS mark,
           CASE WHEN organization_id IS NULL
                THEN ${ANONYMOUS_REQUEST_LIMIT}::integer - request_count::integer END AS places
      FROM debug_endpoints
     WHERE id = ANY(${endpointIds}::text[]) AND deleted_at IS NULL
     ORDER BY id FOR UPDATE`;
  const tallies = new Map(
    live.map((row) => [row.id, { mark: row.mark, places: row.places, visible: 0, hidden: 0 }]),
  );
  const written = captures.map(({ request }): CaptureWritten => {
    const tally = tallies.get(request.endpointId);
    if (!tally) return false;
    if (request.id <= tally.mark) tally.hidden += 1;
    else if (tally.places !== null && tally.visible >= tally.places) return "full";
    else tally.visible += 1;
    return true;
  });
  const kept = captures.filter((_, i) => written[i] === true);
  if (kept.length === 0) return written;
  const rows = kept.map((c) => insertRow(c.request as CapturedRequest));
  await tx`INSERT INTO captured_requests ${tx(rows)}`;
  for (const [endpointId, tally] of tallies) {
    if (tally.visible === 0 && tally.hidden === 0) continue;
    await tx`UPDATE debug_endpoints SET request_count = request_count + ${tally.visible},
      drain_pending = greatest(drain_pending, ${tally.hidden > 0 ? 1 : 0}) WHERE id = ${endpointId}`;
  }
  await options.enqueueForwards?.(tx, kept);
  await options.oweActionRuns?.(tx, kept);
  return written;
}
