import { isoAt } from "../shared/clock.ts";

/**
 * Remembers when each API key was last used and writes the times in batches, so an
 * authenticated request never waits for a write (issue: last_used_at without slowing requests).
 */
export interface ApiKeyUsage {
  record(apiKeyId: string, atMs: number): void;
  /**
   * Writes what was recorded since the last flush; returns how many keys were written. A failed
   * write keeps its batch for the next flush (and rethrows, for the caller to log).
   */
  flush(): number;
  /** The latest use not yet written, so a listing reads its own writes before the flush. */
  unwritten(apiKeyId: string): number | undefined;
}

export function createApiKeyUsage(write: (uses: Map<string, string>) => void): ApiKeyUsage {
  let pending = new Map<string, number>();
  const record = (apiKeyId: string, atMs: number) => {
    pending.set(apiKeyId, Math.max(atMs, pending.get(apiKeyId) ?? 0));
  };
  return {
    record,
    flush() {
      if (pending.size === 0) return 0;
      const batch = pending;
      pending = new Map();
      try {
        write(new Map([...batch].map(([id, at]) => [id, isoAt(at)])));
      } catch (error) {
        for (const [id, at] of batch) record(id, at);
        throw error;
      }
      return batch.size;
    },
    unwritten: (apiKeyId) => pending.get(apiKeyId),
  };
}
