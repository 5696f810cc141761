import { isoAt } from "../shared/clock.ts";

/**
 * Remembers when each API key was last used and writes the times in batches, so an
 * authenticated request never waits for a write (issue: last_used_at without slowing requests).
 */
export interface ApiKeyUsage {
  record(apiKeyId: string, atMs: number): void;
  /** Writes what was recorded since the last flush; returns how many keys were written. */
  flush(): number;
}

export function createApiKeyUsage(write: (uses: Map<string, string>) => void): ApiKeyUsage {
  let pending = new Map<string, number>();
  return {
    record(apiKeyId, atMs) {
      pending.set(apiKeyId, Math.max(atMs, pending.get(apiKeyId) ?? 0));
    },
    flush() {
      if (pending.size === 0) return 0;
      const batch = pending;
      pending = new Map();
      write(new Map([...batch].map(([id, at]) => [id, isoAt(at)])));
      return batch.size;
    },
  };
}
