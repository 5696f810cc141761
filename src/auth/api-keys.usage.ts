import { isoAt } from "../shared/clock.ts";
import { usageDate } from "./api-keys.model.ts";

/** One use of a key: when, and from where as the server tells the client apart. */
export interface ApiKeyUse {
  atMs: number;
  ip: string | null;
  userAgent: string | null;
}

/** A key's latest use, as written to its row. */
export interface LastUse {
  at: string;
  ip: string | null;
  userAgent: string | null;
}

/** Requests and 4xx answers of one key on one UTC day, to be added to what is stored. */
export interface DayTally {
  apiKeyId: string;
  date: string;
  requests: number;
  errors: number;
}

export interface UsageBatch {
  uses: Map<string, LastUse>;
  days: DayTally[];
}

/**
 * Remembers when and from where each API key was last used, and how many answers it got per
 * day, and writes them in batches, so an authenticated request never waits for a write.
 */
export interface ApiKeyUsage {
  record(apiKeyId: string, use: ApiKeyUse): void;
  /** Counts one answer to a request made with the key (a 4xx is also an error). */
  answered(apiKeyId: string, atMs: number, status: number): void;
  /**
   * Writes what was recorded since the last flush; returns how many keys were written. A failed
   * write keeps its batch for the next flush (and rejects, for the caller to log). Uses recorded
   * while a batch is being written go to the next one.
   */
  flush(): Promise<number>;
  /** The latest use not yet written, so a listing reads its own writes before the flush. */
  unwritten(apiKeyId: string): ApiKeyUse | undefined;
  /** The key's day counts not yet written, by date. */
  unwrittenDays(apiKeyId: string): Map<string, { requests: number; errors: number }>;
}

const dayKey = (apiKeyId: string, date: string) => `${apiKeyId} ${date}`;

export function createApiKeyUsage(write: (batch: UsageBatch) => Promise<void> | void): ApiKeyUsage {
  let pending = new Map<string, ApiKeyUse>();
  let days = new Map<string, DayTally>();
  // Batches being written: still read as unwritten until their write ends (PostgreSQL awaits).
  const writing = new Set<{ uses: Map<string, ApiKeyUse>; tallies: Map<string, DayTally> }>();
  const record = (apiKeyId: string, use: ApiKeyUse) => {
    const known = pending.get(apiKeyId);
    if (!known || use.atMs >= known.atMs) pending.set(apiKeyId, use);
  };
  const add = (tally: DayTally) => {
    const key = dayKey(tally.apiKeyId, tally.date);
    const known = days.get(key);
    if (!known) days.set(key, { ...tally });
    else {
      known.requests += tally.requests;
      known.errors += tally.errors;
    }
  };
  return {
    record,
    answered(apiKeyId, atMs, status) {
      const error = status >= 400 && status < 500 ? 1 : 0;
      add({ apiKeyId, date: usageDate(atMs), requests: 1, errors: error });
    },
    async flush() {
      if (pending.size === 0 && days.size === 0) return 0;
      const uses = pending;
      const tallies = days;
      pending = new Map();
      days = new Map();
      const batch = { uses, tallies };
      writing.add(batch);
      try {
        await write({
          uses: new Map(
            [...uses].map(([id, use]) => [
              id,
              { at: isoAt(use.atMs), ip: use.ip, userAgent: use.userAgent },
            ]),
          ),
          days: [...tallies.values()],
        });
      } catch (error) {
        for (const [id, use] of uses) record(id, use);
        for (const tally of tallies.values()) add(tally);
        throw error;
      } finally {
        writing.delete(batch);
      }
      return new Set([...uses.keys(), ...[...tallies.values()].map((t) => t.apiKeyId)]).size;
    },
    unwritten(apiKeyId) {
      let latest = pending.get(apiKeyId);
      for (const batch of writing) {
        const use = batch.uses.get(apiKeyId);
        if (use && (!latest || use.atMs > latest.atMs)) latest = use;
      }
      return latest;
    },
    unwrittenDays(apiKeyId) {
      const counted = new Map<string, { requests: number; errors: number }>();
      const tallies = [
        ...[...writing].flatMap((batch) => [...batch.tallies.values()]),
        ...days.values(),
      ];
      for (const tally of tallies) {
        if (tally.apiKeyId !== apiKeyId) continue;
        const day = counted.get(tally.date) ?? { requests: 0, errors: 0 };
        day.requests += tally.requests;
        day.errors += tally.errors;
        counted.set(tally.date, day);
      }
      return counted;
    },
  };
}
