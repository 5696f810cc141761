import type { Db } from "../db/db.open.ts";
import type { DedupKeys } from "./dedup.keys.ts";
import { dedupRepo } from "./dedup.repo.ts";
import type { DedupStore } from "./dedup.store.ts";

/**
 * The dedup counters over SQLite: the repo's synchronous statements, answered as promises. The
 * ingest path does not come through here: it counts inside its group commit (beginDedupBatch).
 */
export function createDedupSqliteStore(
  db: Db,
  keys: Pick<DedupKeys, "forget">,
  now: () => number,
): DedupStore {
  return {
    countIngests: async (sourceId, hourStart, total, duplicates) =>
      db.tx((tx) => dedupRepo.countIngests(tx, sourceId, hourStart, total, duplicates)),
    countUnverified: async (sourceId, hourStart) =>
      db.tx((tx) => dedupRepo.countUnverified(tx, sourceId, hourStart), { durable: false }),
    totals: async (sourceId, fromHour) => dedupRepo.totals(db, sourceId, fromHour),
    forgetSource: async (sourceId) => db.tx((tx) => keys.forget(tx, sourceId, now())),
  };
}
