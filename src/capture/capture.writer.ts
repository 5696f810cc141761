import type { CapturedRequest, CaptureTarget } from "./capture.model.ts";

/** A stored request and the endpoint it was captured on, as handed to `onCommitted`. */
export interface CommittedCapture {
  request: CapturedRequest;
  endpoint: CaptureTarget;
}

interface Pending extends CommittedCapture {
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

export interface CaptureWriterOptions {
  /**
   * Stores a batch in ONE transaction and says per request whether it was stored (false: its
   * endpoint is gone); throws (or rejects) when the transaction failed and nothing was stored.
   */
  store(requests: CapturedRequest[]): readonly boolean[] | Promise<readonly boolean[]>;
  /** Called once per committed batch with the stored requests, in capture order, before the senders are answered. */
  onCommitted(batch: readonly CommittedCapture[]): void;
  /** Told when `onCommitted` throws (the rows are committed all the same). */
  onCommittedError?(error: unknown): void;
  /** Most rows per transaction (a long transaction holds up whoever runs it). */
  maxBatch?: number;
}

/** Queues captured requests and commits them in groups; see `createCaptureWriter`. */
export interface CaptureWriter {
  /**
   * Resolves once the request's batch is committed: true when stored, false when its endpoint
   * was deleted meanwhile. Rejects when the batch failed (nothing of it is stored).
   */
  write(request: CapturedRequest, endpoint: CaptureTarget): Promise<boolean>;
  /** Requests queued and not yet committed. */
  pending(): number;
  /** Refuses new writes and commits what is queued now (with a synchronous store). */
  close(): void;
}

const DEFAULT_MAX_BATCH = 500;

/**
 * Group commit (shared/guide/performance.md): the requests queued during one turn of the event
 * loop are committed in a single transaction at the end of that turn (setImmediate), so a
 * synchronous=FULL fsync is paid once per batch instead of once per request, and nobody waits on
 * a timer. With an asynchronous store one batch is in flight at a time: what arrives meanwhile
 * forms the next batch, so batches grow exactly when the disk is the bottleneck. A failed batch
 * rejects every request in it: no sender gets a 200 for an unstored row.
 */
export function createCaptureWriter(options: CaptureWriterOptions): CaptureWriter {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  let queue: Pending[] = [];
  let scheduled = false;
  let inFlight = false;
  let closed = false;

  const publish = (committed: readonly CommittedCapture[]) => {
    if (committed.length === 0) return;
    try {
      options.onCommitted(committed);
    } catch (error) {
      options.onCommittedError?.(error);
    }
  };
  const settle = (batch: Pending[], stored: readonly boolean[]) => {
    publish(stored.every(Boolean) ? batch : batch.filter((_, i) => stored[i]));
    for (let i = 0; i < batch.length; i++) batch[i]?.resolve(stored[i] === true);
  };
  const fail = (batch: Pending[], error: unknown) => {
    for (const p of batch) p.reject(error);
  };
  const done = () => {
    inFlight = false;
    if (queue.length > 0) schedule();
  };
  const commitNext = () => {
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = batch === queue ? [] : queue.slice(maxBatch);
    let result: readonly boolean[] | Promise<readonly boolean[]>;
    try {
      result = options.store(batch.map((p) => p.request));
    } catch (error) {
      return fail(batch, error);
    }
    if (!(result instanceof Promise)) return settle(batch, result);
    inFlight = true;
    result.then(
      (stored) => {
        settle(batch, stored);
        done();
      },
      (error) => {
        fail(batch, error);
        done();
      },
    );
  };
  const endOfTurn = () => {
    scheduled = false;
    if (inFlight) return;
    commitNext();
    // Another batch is waiting and the store is free: give the loop a turn, then commit it.
    if (!inFlight && queue.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(endOfTurn);
  };

  return {
    write(request, endpoint) {
      if (closed) return Promise.reject(new Error("capture writer is closed"));
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ request, endpoint, resolve, reject });
        schedule();
      });
    },
    pending: () => queue.length,
    close() {
      closed = true;
      while (!inFlight && queue.length > 0) commitNext();
    },
  };
}
