/**
 * The in-memory index of the live dedup keys (docs/design/dedup.md "Where keys live"): for each key, the
 * first 48 bits of its SHA-256, its source, the rowid of its row in `dedup_key_log` and its
 * expiry. It only says WHERE to look: a hit is confirmed against the row itself (full key,
 * source, expiry), so a prefix collision or a stale entry can never turn a new event into a
 * duplicate.
 *
 * A chained hash table in typed arrays rather than `Map`s: ~40 bytes a key instead of ~100, and
 * nothing for the garbage collector to walk at a million keys.
 */

const NONE = -1;
const INITIAL_SLOTS = 1024;
const TWO_POW_32 = 2 ** 32;

/** The 48-bit prefix of a digest, as a number (exact: below 2^53). */
export function digestPrefix(digest: Uint8Array): number {
  return (
    (digest[0] ?? 0) * 2 ** 40 +
    (digest[1] ?? 0) * 2 ** 32 +
    (((digest[2] ?? 0) << 24) >>> 0) +
    (((digest[3] ?? 0) << 16) | ((digest[4] ?? 0) << 8) | (digest[5] ?? 0))
  );
}

const NO_CANDIDATES: readonly KeyCandidate[] = Object.freeze([]);

/** One candidate of a lookup: the row to confirm, and when the index believes it expires. */
export interface KeyCandidate {
  slot: number;
  rowid: number;
  expiresAt: number;
}

export class DedupKeyIndex {
  /** Slots in use (live or not yet swept). */
  size = 0;
  private readonly sourceNumbers = new Map<string, number>();
  private readonly sourceSlots: number[] = [];
  private capacity = 0;
  private heads = new Int32Array(0);
  private next = new Int32Array(0);
  private source = new Int32Array(0);
  private prefix = new Float64Array(0);
  private rowid = new Float64Array(0);
  private expires = new Float64Array(0);
  private freeHead = NONE;
  /** Slots below this have been handed out at least once. */
  private used = 0;

  /** `maxKeys`: the most keys held; `add` refuses beyond it. */
  constructor(readonly maxKeys: number) {
    this.grow(Math.min(INITIAL_SLOTS, Math.max(1, maxKeys)));
  }

  get full(): boolean {
    return this.size >= this.maxKeys;
  }

  /** The entries under the source and prefix (usually none or one). */
  candidates(sourceId: string, prefix: number): readonly KeyCandidate[] {
    // A fresh key (the common case) finds nothing: nothing is allocated for it.
    let found: KeyCandidate[] | null = null;
    const number = this.sourceNumbers.get(sourceId);
    if (number === undefined) return NO_CANDIDATES;
    for (let s = this.heads[this.bucketOf(number, prefix)] ?? NONE; s !== NONE; ) {
      if (this.source[s] === number && this.prefix[s] === prefix) {
        found ??= [];
        found.push({ slot: s, rowid: this.rowid[s] ?? 0, expiresAt: this.expires[s] ?? 0 });
      }
      s = this.next[s] ?? NONE;
    }
    return found ?? NO_CANDIDATES;
  }

  /** Adds an entry; the slot, or null when the index is full. */
  add(sourceId: string, prefix: number, rowid: number, expiresAt: number): number | null {
    if (this.full) return null;
    if (this.freeHead === NONE && this.used === this.capacity) {
      this.grow(Math.min(this.capacity * 2, this.maxKeys));
    }
    const s = this.freeHead !== NONE ? this.freeHead : this.used++;
    if (s === this.freeHead) this.freeHead = this.next[s] ?? NONE;
    const number = this.numberOf(sourceId);
    this.source[s] = number;
    this.prefix[s] = prefix;
    this.rowid[s] = rowid;
    this.expires[s] = expiresAt;
    this.link(s);
    this.sourceSlots[number] = (this.sourceSlots[number] ?? 0) + 1;
    this.size += 1;
    return s;
  }

  /** Removes the entry in `slot`; false when the slot holds nothing (already removed). */
  remove(slot: number): boolean {
    const number = this.source[slot] ?? NONE;
    if (number === NONE || slot >= this.used) return false;
    const bucket = this.bucketOf(number, this.prefix[slot] ?? 0);
    let previous = NONE;
    let s = this.heads[bucket] ?? NONE;
    while (s !== NONE && s !== slot) {
      previous = s;
      s = this.next[s] ?? NONE;
    }
    if (s === NONE) return false;
    if (previous === NONE) this.heads[bucket] = this.next[slot] ?? NONE;
    else this.next[previous] = this.next[slot] ?? NONE;
    this.source[slot] = NONE;
    this.next[slot] = this.freeHead;
    this.freeHead = slot;
    this.size -= 1;
    const left = (this.sourceSlots[number] ?? 1) - 1;
    this.sourceSlots[number] = left;
    return true;
  }

  /**
   * Up to `limit` entries expired at `now`, scanning slots from `from`: the sweep's bounded step.
   * `next` is where the following step starts (`done` once the scan has passed every slot).
   */
  expired(
    now: number,
    limit: number,
    from: number,
  ): { entries: KeyCandidate[]; next: number; done: boolean } {
    const entries: KeyCandidate[] = [];
    let s = from;
    for (; s < this.used && entries.length < limit; s++) {
      if ((this.source[s] ?? NONE) !== NONE && (this.expires[s] ?? 0) <= now) {
        entries.push({ slot: s, rowid: this.rowid[s] ?? 0, expiresAt: this.expires[s] ?? 0 });
      }
    }
    return { entries, next: s, done: s >= this.used };
  }

  /** Entries of the source held now. */
  countOf(sourceId: string): number {
    const number = this.sourceNumbers.get(sourceId);
    return number === undefined ? 0 : (this.sourceSlots[number] ?? 0);
  }

  /** The rowid of one entry of the source, or null when it has none. */
  anyRowOf(sourceId: string): number | null {
    const number = this.sourceNumbers.get(sourceId);
    if (number === undefined || (this.sourceSlots[number] ?? 0) === 0) return null;
    for (let s = 0; s < this.used; s++) if (this.source[s] === number) return this.rowid[s] ?? null;
    return null;
  }

  /** Removes every entry of the source (it was deleted). */
  dropSource(sourceId: string): number {
    const number = this.sourceNumbers.get(sourceId);
    if (number === undefined) return 0;
    let removed = 0;
    for (let s = 0; s < this.used && (this.sourceSlots[number] ?? 0) > 0; s++) {
      if (this.source[s] === number && this.remove(s)) removed += 1;
    }
    this.sourceNumbers.delete(sourceId);
    return removed;
  }

  /** Bytes held by the arrays (the memory the cap bounds). */
  bytes(): number {
    return this.capacity * (4 + 4 + 4 + 8 + 8 + 8);
  }

  private numberOf(sourceId: string): number {
    let number = this.sourceNumbers.get(sourceId);
    if (number === undefined) {
      number = this.sourceSlots.length;
      this.sourceNumbers.set(sourceId, number);
      this.sourceSlots.push(0);
    }
    return number;
  }

  private bucketOf(number: number, prefix: number): number {
    // The low 32 bits of the prefix are already uniform; the source number spreads sources.
    return ((prefix % TWO_POW_32) ^ Math.imul(number + 1, 0x9e3779b1)) & (this.capacity - 1);
  }

  private link(s: number): void {
    const bucket = this.bucketOf(this.source[s] ?? 0, this.prefix[s] ?? 0);
    this.next[s] = this.heads[bucket] ?? NONE;
    this.heads[bucket] = s;
  }

  /** Grows every array to `slots` (a power of two, or the cap) and re-buckets. */
  private grow(slots: number): void {
    const capacity = 2 ** Math.ceil(Math.log2(Math.max(slots, 1)));
    const copy = <A extends Int32Array | Float64Array>(old: A, make: (n: number) => A): A => {
      const fresh = make(capacity);
      fresh.set(old);
      return fresh;
    };
    this.next = copy(this.next, (n) => new Int32Array(n).fill(NONE));
    this.source = copy(this.source, (n) => new Int32Array(n).fill(NONE));
    this.prefix = copy(this.prefix, (n) => new Float64Array(n));
    this.rowid = copy(this.rowid, (n) => new Float64Array(n));
    this.expires = copy(this.expires, (n) => new Float64Array(n));
    this.capacity = capacity;
    this.heads = new Int32Array(capacity).fill(NONE);
    for (let s = 0; s < this.used; s++) if ((this.source[s] ?? NONE) !== NONE) this.link(s);
  }
}
