import type { Db } from "../db/db.open.ts";

/** The SQL of the search index's background merge (migration 0019). */
export function createSearchMergeRepo(db: Pick<Db, "sqlite" | "tx">) {
  // A negative page count merges every segment into one, tombstones dropped, even when there is
  // a single segment left or fewer than `usermerge` on a level (a positive one would wait for
  // those); at most about that many output pages per call, the rest left for the next call.
  const merge = db.sqlite.prepare<never, [number]>(
    "INSERT INTO captured_requests_search (captured_requests_search, rank) VALUES ('merge', ?)",
  );
  const totalChanges = db.sqlite.prepare<{ n: number }, []>("SELECT total_changes() AS n");
  const dataPages = db.sqlite.prepare<{ n: number }, []>(
    "SELECT count(*) AS n FROM captured_requests_search_data",
  );
  return {
    /**
     * One merge step of up to `pages` pages in a transaction of its own (without fsync: a lost
     * step is redone). True when it merged something; false once there was nothing left
     * (FTS5's documented test: the merge changed fewer than two rows).
     */
    mergeStep(pages: number): boolean {
      return db.tx(
        () => {
          const before = totalChanges.get()?.n ?? 0;
          merge.run(-Math.max(1, Math.floor(pages)));
          return (totalChanges.get()?.n ?? 0) - before >= 2;
        },
        { durable: false },
      );
    },
    /** Rows of the index's data table (its leaf pages and structure): its size, for tests and benches. */
    dataPages(): number {
      return dataPages.get()?.n ?? 0;
    },
  };
}

export type SearchMergeRepo = ReturnType<typeof createSearchMergeRepo>;
