import type { Db } from "../db/db.open.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { RoomJob } from "../room.ts";
import type { Logger } from "../shared/logger.ts";
import { type CapturePostgresTxPorts, createCapturePostgresStore } from "./capture.postgres.ts";
import { createCapturePrefetch } from "./capture.prefetch.ts";
import { createCaptureRepo } from "./capture.repo.ts";
import type { CaptureRoomDeps, CaptureRoomPorts } from "./capture.room.ts";
import type { CaptureServiceDeps } from "./capture.service.ts";
import { createCaptureSqliteStore } from "./capture.sqlite.ts";
import type { CaptureStore } from "./capture.store.ts";
import type { RefusalDelta } from "./capture.tally.ts";
import {
  type CaptureWriter,
  type CommittedCapture,
  createCaptureWriter,
} from "./capture.writer.ts";
import { createCapturePostgresWriter } from "./capture-writer.postgres.ts";
import { createRequestsRepo } from "./requests.repo.ts";
import { createSearchIndexer } from "./search-index.service.ts";
import { createSearchMergeJob } from "./search-merge.schedule.ts";

type SecretLookup = (name: string) => string | undefined;

/**
 * What the capture room keeps in one database or the other: the store, the admission reads and
 * writer of the hot path, and the jobs only that database needs (SQLite's checkpoint and search
 * index).
 */
export interface CaptureStorage {
  store: CaptureStore;
  admission: CaptureServiceDeps["repo"];
  writer: CaptureWriter & { close(): Promise<void> | void };
  anonymousBytes: { anonymousStoredBytes(): number | Promise<number> };
  storeRefusals(deltas: RefusalDelta[]): void;
  /** Told the size of each committed batch (SQLite indexes it for search). */
  committed(count: number): void;
  /** Told after requests were deleted (SQLite merges its search index). */
  afterDelete(): void;
  resolveSecretsNow?(organizationId: string): SecretLookup;
  /** PostgreSQL: what admission reads is fetched around each capture. */
  prefetch?<T>(slug: string, handle: () => Promise<T>): Promise<T>;
  jobs: RoomJob[];
  /** After the writer closed and before the drain stops. */
  flush(): void;
  stop(): Promise<void>;
}

export interface StorageHooks {
  onCommitted(batch: readonly CommittedCapture[]): void;
  /** The batch being committed wrote forward deliveries. */
  queued(): void;
}

/**
 * WAL pages after which the committing connection checkpoints (SQLite's default). Measured
 * against larger values with a scheduled checkpoint, and against checkpoints on a thread of
 * their own: no better p99, and the thread's checkpoints never let the WAL restart under
 * steady load (docs/performance.md).
 */
const AUTOCHECKPOINT_PAGES = 1000;
/** Every 10 s: what a burst left in the WAL goes to the database file once things are quiet. */
const CHECKPOINT_PATTERN = "*/10 * * * * *";
/** Every 30 s: captures not yet in the search index (fewer than a chunk) are added (a search adds them first anyway). */
const SEARCH_INDEX_PATTERN = "*/30 * * * * *";

/** SQLite: the synchronous repo admits and the group commit writes, as they always did. */
export function sqliteCaptureStorage(
  deps: CaptureRoomDeps,
  db: Db,
  ports: CaptureRoomPorts,
  logger: Logger,
  hooks: StorageHooks,
): CaptureStorage {
  const repo = createCaptureRepo(db);
  repo.setAutoCheckpoint(AUTOCHECKPOINT_PAGES);
  const requests = createRequestsRepo(db);
  const store = createCaptureSqliteStore(
    db,
    { forgetForwards: ports.forgetForwards, finishDrain: ports.finishDrain },
    { capture: repo, requests },
  );
  const searchIndex = createSearchIndexer({
    indexNext: (limit) => requests.indexForSearch(limit),
    onError: (error) => logger.error("indexing captures for search failed", { error }),
  });
  // Deleted rows stay in the search index as tombstones (migration 0019) until this merges them.
  const searchMerge = createSearchMergeJob({ ...deps, db });
  const writer = createCaptureWriter({
    tx: db.tx,
    store: (batch, tx) => {
      const stored = repo.insertRows(batch.map((c) => c.request));
      const kept = stored.every(Boolean) ? batch : batch.filter((_, i) => stored[i]);
      if (ports.enqueueForwards(tx, kept) > 0) hooks.queued();
      ports.oweActionRuns(tx, kept);
      return stored;
    },
    onCommitted: hooks.onCommitted,
    onCommittedError: (error) => logger.error("publishing captures failed", { error }),
  });
  return {
    store,
    admission: repo,
    writer,
    anonymousBytes: repo,
    storeRefusals: (deltas) => repo.addRefusals(deltas),
    committed: (count) => searchIndex.committed(count),
    afterDelete: searchMerge.wake,
    resolveSecretsNow: ports.resolveSecretsNow,
    jobs: [
      {
        name: "capture.checkpoint",
        scope: "node",
        pattern: CHECKPOINT_PATTERN,
        run: () => repo.checkpoint(),
      },
      {
        name: "capture.search-index",
        scope: "node",
        pattern: SEARCH_INDEX_PATTERN,
        run: () => searchIndex.catchUp(),
      },
      searchMerge.job,
    ],
    flush: () => searchIndex.catchUp(),
    stop: () => searchMerge.stop(),
  };
}

/** PostgreSQL: admission reads are fetched first, batches commit through the PostgreSQL writer. */
export function postgresCaptureStorage(
  pg: PostgresDb,
  ports: CaptureRoomPorts & { postgresTx?: CapturePostgresTxPorts },
  logger: Logger,
  hooks: StorageHooks,
): CaptureStorage {
  const store = createCapturePostgresStore(pg, ports.postgresTx);
  const pgTx = ports.postgresTx;
  const prefetch = createCapturePrefetch({
    store,
    resolveSecrets: ports.resolveSecrets,
    onError: (error) => logger.error("storing a capture's answered status failed", { error }),
  });
  const writer = createCapturePostgresWriter({
    pg,
    onCommitted: hooks.onCommitted,
    onCommittedError: (error) => logger.error("publishing captures failed", { error }),
    enqueueForwards:
      pgTx?.enqueueForwards &&
      (async (tx, kept) => {
        const queued = (await pgTx.enqueueForwards?.(tx, kept)) ?? 0;
        if (queued > 0) hooks.queued();
        return queued;
      }),
    oweActionRuns: pgTx?.oweActionRuns,
  });
  return {
    store,
    admission: prefetch.repo,
    writer,
    anonymousBytes: store,
    storeRefusals: (deltas) => {
      store
        .addRefusals(deltas)
        .catch((error) => logger.error("storing refusal counts failed", { error }));
    },
    committed: () => {},
    afterDelete: () => {},
    resolveSecretsNow: prefetch.resolveSecretsNow,
    prefetch: prefetch.around,
    jobs: [],
    flush: () => {},
    stop: async () => {},
  };
}
