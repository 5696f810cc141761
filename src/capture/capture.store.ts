import type { Durability } from "../db/db.open.ts";
import { encodeBatch } from "./capture.codec.ts";
import type { CapturedRequest } from "./capture.model.ts";

/** Messages to the store thread. */
export type StoreCommand =
  | { kind: "open"; dataDir: string; durability: Durability }
  /** `batch`: the requests packed by `encodeBatch`, transferred (not copied) to the thread. */
  | { kind: "store"; seq: number; batch: Uint8Array }
  | { kind: "checkpoint" }
  | { kind: "close" };

/** Messages from the store thread. */
export type StoreReply =
  | { kind: "stored"; seq: number; stored: boolean[]; error?: undefined }
  | { kind: "stored"; seq: number; error: string; stored?: undefined }
  | { kind: "failed"; error: string };

/** Commits capture batches on a thread of its own; see `startCaptureStore`. */
export interface CaptureStore {
  /** Commits the batch in one transaction; per request, whether it was stored (false: endpoint gone). */
  store(requests: CapturedRequest[]): Promise<boolean[]>;
  /** Asks the thread for a PASSIVE checkpoint when it is free. */
  checkpoint(): void;
  /** Closes the thread's connection and ends the thread. */
  close(): void;
}

interface Waiter {
  resolve(stored: boolean[]): void;
  reject(error: Error): void;
}

/**
 * Starts the capture store thread on the data dir's database. bun:sqlite is synchronous: a
 * synchronous=FULL commit blocks its thread for the fsync (1–3 ms here, far more on a slow disk).
 * On a thread of its own, the HTTP event loop keeps reading requests meanwhile, and those
 * gather into the next batch. If the thread dies, its waiting batches fail (500, nothing
 * acknowledged) and the next batch starts a new thread.
 */
export function startCaptureStore(options: {
  dataDir: string;
  durability: Durability;
  onError(message: string): void;
}): CaptureStore {
  const waiting = new Map<number, Waiter>();
  let worker: Worker | null = null;
  let seq = 0;

  const failAll = (message: string) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(message));
    waiting.clear();
  };
  const onReply = (event: MessageEvent<StoreReply>) => {
    const reply = event.data;
    if (reply.kind === "failed") {
      options.onError(reply.error);
      return failAll(reply.error);
    }
    const waiter = waiting.get(reply.seq);
    waiting.delete(reply.seq);
    if (reply.error !== undefined) waiter?.reject(new Error(reply.error));
    else waiter?.resolve(reply.stored);
  };
  const spawn = () => {
    const thread = new Worker(new URL("./capture.store.worker.ts", import.meta.url));
    thread.unref();
    thread.addEventListener("message", onReply);
    thread.addEventListener("error", (event) => options.onError(event.message));
    thread.addEventListener("close", () => {
      if (worker === thread) worker = null;
      failAll("capture store thread exited");
    });
    thread.postMessage({
      kind: "open",
      dataDir: options.dataDir,
      durability: options.durability,
    } satisfies StoreCommand);
    return thread;
  };
  const thread = () => {
    worker ??= spawn();
    return worker;
  };
  thread();

  return {
    store(requests) {
      return new Promise<boolean[]>((resolve, reject) => {
        seq += 1;
        waiting.set(seq, { resolve, reject });
        const batch = encodeBatch(requests);
        thread().postMessage({ kind: "store", seq, batch } satisfies StoreCommand, [batch.buffer]);
      });
    },
    checkpoint() {
      worker?.postMessage({ kind: "checkpoint" } satisfies StoreCommand);
    },
    close() {
      const closing = worker;
      worker = null;
      closing?.postMessage({ kind: "close" } satisfies StoreCommand);
    },
  };
}
