/**
 * The capture store's thread (see capture.store.ts): its own SQLite connection, on which batches
 * are committed (synchronous=FULL fsyncs included) and the WAL is checkpointed, so the event
 * loop that serves HTTP never waits on the disk. Compiled into the binary as an extra entrypoint
 * (scripts/build EXTRA_ENTRYPOINTS).
 */
import { type Db, openDatabase } from "../db/db.open.ts";
import { decodeBatch, type InsertRow } from "./capture.codec.ts";
import { type CaptureRepo, createCaptureRepo } from "./capture.repo.ts";
import type { StoreCommand, StoreReply } from "./capture.store.ts";

declare const self: Worker;

/** WAL bytes written since the last checkpoint before the thread checkpoints between batches. */
const CHECKPOINT_AFTER_BYTES = 4 * 1024 * 1024;
/** Rough WAL cost of a row beyond its encoded fields (index entries, page slack). */
const ROW_OVERHEAD_BYTES = 512;

let db: Db | null = null;
let repo: CaptureRepo | null = null;
let unCheckpointed = 0;

function reply(message: StoreReply): void {
  self.postMessage(message);
}

function open(dataDir: string, durability: "full" | "normal"): CaptureRepo {
  db = openDatabase(dataDir, durability);
  repo = createCaptureRepo(db.sqlite);
  // Checkpoints happen below, after the senders' batch is answered, never inside a commit.
  repo.setAutoCheckpoint(0);
  return repo;
}

function store(command: Extract<StoreCommand, { kind: "store" }>): void {
  if (!repo) {
    reply({ kind: "stored", seq: command.seq, error: "capture store is not open" });
    return;
  }
  let rows: InsertRow[];
  try {
    rows = decodeBatch(command.batch);
    reply({ kind: "stored", seq: command.seq, stored: repo.insertRows(rows) });
  } catch (error) {
    reply({ kind: "stored", seq: command.seq, error: (error as Error).message ?? String(error) });
    return;
  }
  unCheckpointed += command.batch.byteLength + rows.length * ROW_OVERHEAD_BYTES;
  if (unCheckpointed >= CHECKPOINT_AFTER_BYTES) checkpoint();
}

function checkpoint(): void {
  if (!repo) return;
  try {
    repo.checkpoint();
    unCheckpointed = 0;
  } catch {
    // A busy database is checkpointed next time; the WAL only grows meanwhile.
  }
}

self.onmessage = (event: MessageEvent<StoreCommand>) => {
  const command = event.data;
  switch (command.kind) {
    case "open":
      try {
        open(command.dataDir, command.durability);
      } catch (error) {
        reply({ kind: "failed", error: (error as Error).message ?? String(error) });
      }
      return;
    case "store":
      return store(command);
    case "checkpoint":
      return checkpoint();
    case "close":
      db?.close();
      db = null;
      repo = null;
      process.exit(0);
  }
};
