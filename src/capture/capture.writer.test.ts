import { describe, expect, test } from "bun:test";
import type { TxHandle } from "../db/db.tx.ts";
import type { CapturedRequest, CaptureTarget } from "./capture.model.ts";
import { type CommittedCapture, createCaptureWriter } from "./capture.writer.ts";

const endpoint: CaptureTarget = { id: "e1", organizationId: "o1", slug: "s", forwardUrl: null };
const handle = {} as TxHandle;
/** A synchronous transaction: what the unit of work of SQLite is. */
const tx = <R>(fn: (tx: TxHandle) => R): R => fn(handle);

function request(id: string): CapturedRequest {
  return {
    id,
    endpointId: "e1",
    method: "POST",
    path: "",
    queryString: "",
    headers: {},
    rawHeaders: [],
    body: new Uint8Array(0),
    contentType: null,
    size: 0,
    remoteIp: null,
    status: 200,
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

/** A recording store: each call is one "transaction" with the ids it got. */
function recordingStore(
  outcome: (ids: string[]) => boolean[] | Error = (ids) => ids.map(() => true),
) {
  const transactions: string[][] = [];
  const committed: string[][] = [];
  return {
    transactions,
    committed,
    tx,
    store: (batch: readonly CommittedCapture[]) => {
      const ids = batch.map((c) => c.request.id);
      transactions.push(ids);
      const result = outcome(ids);
      if (result instanceof Error) throw result;
      return result;
    },
    onCommitted: (batch: readonly CommittedCapture[]) => {
      committed.push(batch.map((c) => c.request.id));
    },
  };
}

const ids = (n: number, prefix = "r") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("group commit", () => {
  test("everything written in one turn is one transaction, answered after it", async () => {
    const store = recordingStore();
    const writer = createCaptureWriter(store);
    const written = ids(5).map((id) => writer.write(request(id), endpoint));
    expect(store.transactions).toEqual([]);
    expect(await Promise.all(written)).toEqual([true, true, true, true, true]);
    expect(store.transactions).toEqual([ids(5)]);
    expect(store.committed).toEqual([ids(5)]);
  });

  test("a later turn is a later transaction", async () => {
    const store = recordingStore();
    const writer = createCaptureWriter(store);
    await writer.write(request("a"), endpoint);
    await writer.write(request("b"), endpoint);
    expect(store.transactions).toEqual([["a"], ["b"]]);
  });

  test("a transaction holds at most maxBatch rows; the rest follow in order", async () => {
    const store = recordingStore();
    const writer = createCaptureWriter({ ...store, maxBatch: 500 });
    await Promise.all(ids(1201).map((id) => writer.write(request(id), endpoint)));
    expect(store.transactions.map((t) => t.length)).toEqual([500, 500, 201]);
    expect(store.committed.flat()).toEqual(ids(1201));
  });

  test("a failed transaction fails every request in it, and only those", async () => {
    let calls = 0;
    const store = recordingStore((batch) =>
      ++calls === 1 ? new Error("disk full") : batch.map(() => true),
    );
    const writer = createCaptureWriter({ ...store, maxBatch: 2 });
    const results = await Promise.allSettled(
      ids(3).map((id) => writer.write(request(id), endpoint)),
    );
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    expect(store.committed).toEqual([["r2"]]);
  });

  test("a request whose endpoint is gone resolves false and is not published", async () => {
    const store = recordingStore((batch) => batch.map((id) => id !== "r1"));
    const writer = createCaptureWriter(store);
    const results = await Promise.all(ids(3).map((id) => writer.write(request(id), endpoint)));
    expect(results).toEqual([true, false, true]);
    expect(store.committed).toEqual([["r0", "r2"]]);
  });

  test("a throwing subscriber does not turn a commit into a failure", async () => {
    const errors: unknown[] = [];
    const writer = createCaptureWriter({
      tx,
      store: (batch) => batch.map(() => true),
      onCommitted: () => {
        throw new Error("subscriber broke");
      },
      onCommittedError: (error) => errors.push(error),
    });
    expect(await writer.write(request("a"), endpoint)).toBe(true);
    expect(errors).toHaveLength(1);
  });

  test("with an asynchronous transaction one batch is in flight; what arrives meanwhile is the next batch", async () => {
    const transactions: string[][] = [];
    const gates: Array<() => void> = [];
    const writer = createCaptureWriter({
      // The writes happen at once; the COMMIT completes when the test opens the gate.
      tx: (fn) => {
        const written = fn(handle);
        return new Promise((resolve) => gates.push(() => resolve(written)));
      },
      store: (batch) => {
        transactions.push(batch.map((c) => c.request.id));
        return batch.map(() => true);
      },
      onCommitted: () => {},
    });
    const first = writer.write(request("a"), endpoint);
    await new Promise((resolve) => setImmediate(resolve));
    expect(transactions).toEqual([["a"]]);
    const later = ["b", "c", "d"].map((id) => writer.write(request(id), endpoint));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // The store is busy with "a": nothing else has been sent.
    expect(transactions).toEqual([["a"]]);
    gates.shift()?.();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(transactions).toEqual([["a"], ["b", "c", "d"]]);
    gates.shift()?.();
    expect(await Promise.all(later)).toEqual([true, true, true]);
  });

  test("closing commits what is queued at once, then refuses new requests", async () => {
    const store = recordingStore();
    const writer = createCaptureWriter(store);
    const queued = writer.write(request("a"), endpoint);
    writer.close();
    expect(store.transactions).toEqual([["a"]]);
    expect(await queued).toBe(true);
    await expect(writer.write(request("b"), endpoint)).rejects.toThrow("closed");
  });
});
