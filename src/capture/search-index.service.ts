/** Rows indexed per transaction after captures commit: ~2 ms of work, so captures wait little. */
export const SEARCH_INDEX_CHUNK = 500;

export interface SearchIndexerDeps {
  /** Indexes up to `limit` stored requests not indexed yet; returns how many. */
  indexNext(limit: number): number;
  onError(error: unknown): void;
}

/**
 * Keeps the search index close behind the captures (docs/performance.md, capture): once a chunk's
 * worth of captures has committed, the next event-loop turn indexes them in one transaction of
 * their own, chunk after chunk while a backlog lasts; `catchUp` (a job every 5 s) takes the
 * tail. Indexed in hundreds, a row costs less than half what a trigger in the capture's own
 * transaction cost. Searches never depend on it: they index whatever is left before they read.
 */
export function createSearchIndexer(deps: SearchIndexerDeps) {
  let waiting = 0;
  let scheduled = false;
  const step = () => {
    scheduled = false;
    try {
      const indexed = deps.indexNext(SEARCH_INDEX_CHUNK);
      waiting = indexed < SEARCH_INDEX_CHUNK ? 0 : Math.max(0, waiting - indexed);
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
        while (deps.indexNext(SEARCH_INDEX_CHUNK) === SEARCH_INDEX_CHUNK);
        waiting = 0;
      } catch (error) {
        deps.onError(error);
      }
    },
  };
}

export type SearchIndexer = ReturnType<typeof createSearchIndexer>;
