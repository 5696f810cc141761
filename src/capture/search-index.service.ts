/**
 * Rows indexed at most per transaction after captures commit (the repo also stops after ~5 ms),
 * and the backlog that starts indexing: a few ms of work at a time, so captures wait little.
 */
export const SEARCH_INDEX_CHUNK = 500;

export interface SearchIndexerDeps {
  /** Indexes up to `limit` stored requests not indexed yet (fewer for large ones); returns how many (0: none left). */
  indexNext(limit: number): number;
  onError(error: unknown): void;
}

/**
 * Keeps the search index close behind the captures (docs/performance.md, capture): once a chunk's
 * worth of captures has committed, the next event-loop turn indexes them in one transaction of
 * their own, chunk after chunk while a backlog lasts; `catchUp` (a job every 30 s) takes the
 * tail. Indexed in hundreds, a small row costs less than half what a trigger in the capture's
 * own transaction cost, and the capture's commit writes a quarter fewer pages. Searches never depend on it: they index whatever is left before they read.
 */
export function createSearchIndexer(deps: SearchIndexerDeps) {
  let waiting = 0;
  let scheduled = false;
  const step = () => {
    scheduled = false;
    try {
      const indexed = deps.indexNext(SEARCH_INDEX_CHUNK);
      waiting = indexed === 0 ? 0 : Math.max(0, waiting - indexed);
    } catch (error) {
      waiting = 0;
      deps.onError(error);
    }
    if (waiting >= SEARCH_INDEX_CHUNK) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(step);
  };
  return {
    /** Told how many captures a group commit stored. */
    committed(count: number): void {
      waiting += count;
      if (waiting >= SEARCH_INDEX_CHUNK) schedule();
    },
    /** Indexes everything committed since the last chunk, a chunk per transaction. */
    catchUp(): void {
      if (waiting === 0) return;
      try {
        while (deps.indexNext(SEARCH_INDEX_CHUNK) > 0);
        waiting = 0;
      } catch (error) {
        deps.onError(error);
      }
    },
  };
}

export type SearchIndexer = ReturnType<typeof createSearchIndexer>;
