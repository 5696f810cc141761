import type { SealedSecrets } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";

/** A destination as a delivery sends to it: the row read and its signing secrets opened. */
export interface PreparedDestination {
  destination: Destination;
  /** Current first, then the replaced one while it still signs; empty for chat destinations. */
  signingSecrets: string[];
}

export interface DestinationCacheDeps {
  find(id: string): { destination: Destination; secrets: SealedSecrets } | null;
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

  return {
    /** The destination ready to send to, or null when it was deleted. */
    get(id: string): PreparedDestination | null {
      const version = deps.version();
      if (version !== cachedVersion) {
        entries.clear();
        cachedVersion = version;
      }
      const now = deps.now();
      const hit = entries.get(id);
      if (hit && now < hit.until) return hit;
      const found = deps.find(id);
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
      entries.set(id, entry);
      return entry;
    },
  };
}
