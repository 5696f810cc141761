import type { SealedSecrets } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";

/** A destination as a delivery sends to it: the row read and its signing secrets opened. */
export interface PreparedDestination {
  destination: Destination;
  /** Current first, then the replaced one while it still signs; empty for chat destinations. */
  signingSecrets: string[];
}

type Found = { destination: Destination; secrets: SealedSecrets } | null;

export interface DestinationCacheDeps {
  /** The row without waiting (SQLite); absent, `get` answers from the cache alone. */
  find?(id: string): Found;
  /** The row through a store (PostgreSQL), for `fetch`. */
  findAsync?(id: string): Promise<Found>;
  /** The signing secrets of an http destination now, from its sealed ones. */
  open(destinationId: string, sealed: SealedSecrets): string[];
  /** Grows on every change of a source, bridge or destination (a rotation included). */
  version(): number;
  now(): number;
}

/**
 * Prepared destinations per routes version: every delivery used to read its destination's row
 * and open (decrypt) its signing secret, the same work thousands of times a second for one
 * destination. An entry lives until anything in the routes changes (update, delete, rotation
 * bump the version) or until the replaced secret stops signing, whichever comes first. The
 * opened secrets stay in this process's memory only, as the sealer's key does.
 */
export function createDestinationCache(deps: DestinationCacheDeps) {
  const entries = new Map<string, PreparedDestination & { until: number }>();
  let cachedVersion = -1;

  const current = (id: string, now: number) => {
    const version = deps.version();
    if (version !== cachedVersion) {
      entries.clear();
      cachedVersion = version;
    }
    const hit = entries.get(id);
    return hit && now < hit.until ? hit : null;
  };

  const fill = (id: string, found: Found, now: number, keep = true): PreparedDestination | null => {
    if (!found) {
      entries.delete(id);
      return null;
    }
    const { destination, secrets } = found;
    const signingSecrets = destination.type === "http" ? deps.open(id, secrets) : [];
    // The replaced secret signs until previousUntil: the next delivery after it reopens.
    const until =
      secrets.previous && secrets.previousUntil !== null && secrets.previousUntil > now
        ? secrets.previousUntil
        : Number.POSITIVE_INFINITY;
    const entry = { destination, signingSecrets, until };
    if (keep) entries.set(id, entry);
    return entry;
  };

  return {
    /** The destination ready to send to, or null when it was deleted (or, with no `find`, not cached). */
    get(id: string): PreparedDestination | null {
      const now = deps.now();
      const hit = current(id, now);
      if (hit) return hit;
      return deps.find ? fill(id, deps.find(id), now) : null;
    },
    /** The same read through the store when it is not cached (PostgreSQL). */
    async fetch(id: string): Promise<PreparedDestination | null> {
      const now = deps.now();
      const hit = current(id, now);
      if (hit) return hit;
      if (!deps.findAsync) return this.get(id);
      const version = deps.version();
      const found = await deps.findAsync(id);
      // Routes changed while reading: answer the row, keep nothing that may be stale.
      return fill(id, found, now, deps.version() === version);
    },
  };
}
