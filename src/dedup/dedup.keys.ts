import type { DbHandle, TxHandle } from "../db/db.tx.ts";
import { DedupKeyIndex, digestPrefix } from "./dedup.key-index.ts";
import type { DedupRepo, KeyRow } from "./dedup.repo.ts";

/** Rows deleted per transaction by the sweep and by the start's clean-up. */
export const SWEEP_BATCH = 1_000;

export interface DedupKeysOptions {
  repo: DedupRepo;
  /** Live keys held in memory at most (`WEIR_DEDUP_MAX_KEYS`). */
  maxKeys: number;
  /**
   * Live keys one organization's sources may hold together (`WEIR_DEDUP_MAX_KEYS_PER_ORGANIZATION`):
   * its share of the cap, so one organization filling memory never lets another's duplicates
   * through. Counted for claims that name their organization.
   */
  maxKeysPerOrganization?: number;
  /** Told once each time the index fills up: new keys are no longer remembered. */
  onFull?(maxKeys: number): void;
  /** Told once each time an organization's share fills up. */
  onOrganizationFull?(organizationId: string, maxKeys: number): void;
}

/** Told by a batch's caller once its transaction has ended (after COMMIT or ROLLBACK). */
export interface BatchOutcome {
  committed(): void;
  rolledBack(): void;
}

interface PendingBatch {
  last: KeyRow | null;
  slots: number[];
}

/** What became of one key: seen and live, stored, or fresh but not stored (memory full). */
export type ClaimResult = "duplicate" | "fresh" | "unremembered";

interface Transactor {
  tx<T>(fn: (tx: TxHandle) => T): T;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * The live keys of every source: rows of the append-only `dedup_key_log`, looked up through the
 * in-memory index (docs/design/dedup.md "Where keys live"). Correct only because one server owns the
 * data dir (db.lock.ts): no other process writes the log behind the index's back.
 *
 * Every lookup that hits is confirmed by reading its row in the caller's transaction, so what
 * decides "duplicate" is always the database: a row written earlier in the same batch counts (two
 * identical requests in one group commit → one event), a rolled-back one does not exist. The
 * index entries of a rolled-back batch are removed when its caller reports the rollback
 * (`BatchOutcome`), or before the next use for a caller that does not (`settle`).
 */
export function createDedupKeys(options: DedupKeysOptions) {
  const { repo } = options;
  const index = new DedupKeyIndex(options.maxKeys);
  let loaded = false;
  let unremembered = 0;
  let warned = false;
  /**
   * The entries added by the open batch, until its caller reports the outcome (`BatchOutcome`)
   * or, for a caller that does not, the next use reads whether its last row is in the log.
   */
  let pending: PendingBatch | null = null;
  /**
   * Each organization's sources, learned from claims: its live keys are theirs summed. A source
   * not claimed since the start is not counted until it is (its keys expire meanwhile).
   */
  const sourcesOf = new Map<string, Set<string>>();
  /** Organizations told they are at their share, until they are under it again. */
  const warnedOrganizations = new Set<string>();
  /** Sources whose deletion may not have committed yet, each with one of its rows as witness. */
  let forgotten: { sourceId: string; rowid: number }[] = [];

  /**
   * A source deletion that committed took its rows (its witness is gone): its entries go. One
   * that rolled back left them, and they stay: dropping them at once would let every retry of
   * that source through as new until the next start.
   */
  const settleForgotten = (handle: Pick<DbHandle, "sqlite">) => {
    const doubtful = forgotten;
    forgotten = [];
    for (const { sourceId, rowid } of doubtful) {
      if (repo.keyRow(handle, rowid)?.sourceId !== sourceId) index.dropSource(sourceId);
    }
  };

  /** A rolled-back batch's entries go; a committed batch's stay. */
  const conclude = (batch: PendingBatch, committed: boolean) => {
    if (pending !== batch) return; // already concluded
    pending = null;
    if (!committed) for (const slot of batch.slots) index.remove(slot);
  };

  /**
   * A batch nobody reported on: it committed when its last row is in the log (a rolled-back
   * batch is undone as a whole). The ingest path reports, so it never pays this read.
   */
  const settle = (handle: Pick<DbHandle, "sqlite">) => {
    if (forgotten.length > 0) settleForgotten(handle);
    if (!pending) return;
    const { last } = pending;
    const row = last && repo.keyRow(handle, last.id);
    conclude(
      pending,
      last === null ||
        (row !== null && row.sourceId === last.sourceId && sameBytes(row.key, last.key)),
    );
  };

  /**
   * Builds the index from the log; expired rows, and rows beyond the cap, are deleted. The sweep
   * job runs it at start in a transaction of its own; should an ingest batch run it first and
   * roll back, those deletions are undone and the rows wait for the next start (never indexed,
   * so never mistaken for live keys).
   */
  const load = (handle: Pick<DbHandle, "sqlite">, now: number) => {
    if (loaded) return;
    loaded = true;
    const doomed: number[] = [];
    for (const row of repo.everyKey(handle)) {
      const kept =
        row.expiresAt > now &&
        index.add(row.sourceId, digestPrefix(row.key), row.id, row.expiresAt) !== null;
      if (!kept) doomed.push(row.id);
    }
    for (const id of doomed) repo.deleteKey(handle, id);
  };

  const isLive = (tx: Pick<DbHandle, "sqlite">, sourceId: string, key: Uint8Array, now: number) =>
    index.candidates(sourceId, digestPrefix(key)).some((candidate) => {
      if (candidate.expiresAt <= now) return false;
      const row = repo.keyRow(tx, candidate.rowid);
      return (
        row !== null && row.expiresAt > now && row.sourceId === sourceId && sameBytes(row.key, key)
      );
    });

  /** Whether the organization of a claim holds its whole share (the source is learned here). */
  const organizationFull = (organizationId: string | undefined, sourceId: string) => {
    const limit = options.maxKeysPerOrganization;
    if (organizationId === undefined || limit === undefined) return false;
    const sources = sourcesOf.get(organizationId) ?? new Set<string>();
    sourcesOf.set(organizationId, sources.add(sourceId));
    let held = 0;
    for (const source of sources) held += index.countOf(source);
    if (held < limit) {
      warnedOrganizations.delete(organizationId);
      return false;
    }
    if (!warnedOrganizations.has(organizationId)) {
      warnedOrganizations.add(organizationId);
      options.onOrganizationFull?.(organizationId, limit);
    }
    return true;
  };

  return {
    /**
     * Call first inside each batch's transaction: loads the index once, settles the last batch.
     * Report the outcome once the transaction has ended; the entries of a rolled-back batch go.
     */
    begin(tx: TxHandle, now: number): BatchOutcome {
      load(tx, now);
      settle(tx);
      const batch: PendingBatch = { last: null, slots: [] };
      pending = batch;
      return {
        committed: () => conclude(batch, true),
        rolledBack: () => conclude(batch, false),
      };
    },

    /**
     * Inside the batch's transaction, after `begin`: a live key is a duplicate; a fresh one is
     * appended to the log (same transaction as its event) and indexed, unless memory is full or
     * `organizationId` holds its whole share.
     */
    claim(
      tx: TxHandle,
      sourceId: string,
      key: Uint8Array,
      expiresAt: number,
      now: number,
      organizationId?: string,
    ): ClaimResult {
      if (isLive(tx, sourceId, key, now)) return "duplicate";
      if (organizationFull(organizationId, sourceId)) {
        unremembered += 1;
        return "unremembered";
      }
      if (index.full) {
        unremembered += 1;
        if (!warned) {
          warned = true;
          options.onFull?.(options.maxKeys);
        }
        return "unremembered";
      }
      warned = false;
      const id = repo.appendKey(tx, sourceId, key, expiresAt);
      const slot = index.add(sourceId, digestPrefix(key), id, expiresAt);
      if (slot === null) return "unremembered";
      if (pending) {
        pending.last = { id, sourceId, key, expiresAt };
        pending.slots.push(slot);
      }
      return "fresh";
    },

    /**
     * Deletes expired keys in batches of `batch` rows, one short transaction each, yielding to
     * the event loop between them so ingests commit meanwhile. Returns how many went.
     */
    async sweep(db: Transactor, now: () => number, batch = SWEEP_BATCH): Promise<number> {
      let removed = 0;
      let from = 0;
      for (;;) {
        const at = now();
        const step = db.tx((tx) => {
          load(tx, at);
          settle(tx);
          const found = index.expired(at, batch, from);
          for (const entry of found.entries) repo.deleteIfExpired(tx, entry.rowid, at);
          return found;
        });
        // After the commit: a rolled-back step leaves the index as it was.
        for (const entry of step.entries) if (index.remove(entry.slot)) removed += 1;
        if (step.done) return removed;
        from = step.next;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },

    /** Inside the transaction that deletes a source: its rows and its index entries go. */
    forget(tx: TxHandle, sourceId: string, now: number): void {
      load(tx, now);
      settle(tx);
      repo.forgetSource(tx, sourceId);
      // Until the deletion is known to have committed, the entries stay: a lookup reads the row
      // anyway, so they cannot make a duplicate of a deleted source's key meanwhile.
      const witness = index.anyRowOf(sourceId);
      if (witness !== null) forgotten.push({ sourceId, rowid: witness });
    },

    /** For /metrics. */
    figures: () => ({
      liveKeys: index.size,
      maxKeys: options.maxKeys,
      indexBytes: index.bytes(),
      unremembered,
    }),
  };
}

export type DedupKeys = ReturnType<typeof createDedupKeys>;
