import type { Action } from "./actions.model.ts";

/** Chains kept in memory for the capture path, at most (endpoints with captures in flight). */
const CACHED_CHAINS = 10_000;

export interface ChainReads {
  /** SQLite: the chain read at once, so a capture's run starts without waiting. */
  now?(endpointId: string): Action[];
  /** The chain read from the store (PostgreSQL). */
  later(endpointId: string): Promise<Action[]>;
}

/**
 * The endpoints' chains as the capture path runs them, kept until told they changed. On
 * PostgreSQL the captures of one endpoint arriving during a read share it, so they still start
 * their runs in capture order.
 */
export function createChainCache(reads: ChainReads) {
  const chains = new Map<string, Action[]>();
  const loading = new Map<string, Promise<Action[]>>();
  const remember = (endpointId: string, chain: Action[]) => {
    if (chains.size >= CACHED_CHAINS) chains.clear();
    chains.set(endpointId, chain);
    return chain;
  };
  return {
    /** The endpoint's chain: from memory, read at once on SQLite, a promise on PostgreSQL. */
    get(endpointId: string): Action[] | Promise<Action[]> {
      const chain = chains.get(endpointId);
      if (chain) return chain;
      if (reads.now) return remember(endpointId, reads.now(endpointId));
      let read = loading.get(endpointId);
      if (!read) {
        read = reads.later(endpointId).then((loaded) => {
          // A change told meanwhile (forget) dropped this read: the next capture reads afresh.
          if (loading.get(endpointId) === read) remember(endpointId, loaded);
          loading.delete(endpointId);
          return loaded;
        });
        loading.set(endpointId, read);
        read.catch(() => loading.delete(endpointId));
      }
      return read;
    },
    /** The endpoint's chain changed: the next capture reads it afresh. */
    forget(endpointId: string): void {
      chains.delete(endpointId);
      loading.delete(endpointId);
    },
  };
}
