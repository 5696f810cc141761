import type { SQLQueryBindings } from "bun:sqlite";
import type { DbHandle } from "./db.tx.ts";

/**
 * Where a due-queue's rows live. Times are clock readings in epoch milliseconds (INTEGER), so
 * comparisons are exact under a fake clock. A row is claimable when its due time has come and it
 * holds no live lease; a finished row gets a NULL due time (or fails `where`, or is deleted).
 * Index the due column: the claim and the next-due lookup walk it.
 */
export interface DueTable {
  table: string;
  /** Primary key column; default `id`. */
  id?: string;
  /** When the row is next due; default `next_attempt_at`. */
  due?: string;
  /** Until when a worker holds the row, NULL when none does; default `locked_until`. */
  lease?: string;
  /** The fairness key (e.g. `destination_id`): rows with one key share a per-key limit. */
  key?: string;
  /**
   * The tenant (e.g. `organization_id`): groups share the slots fairly (db.due-queue.ts). A NULL
   * group is a group of its own.
   */
  group?: string;
  /** Extra condition of a claimable row, static SQL over the table's columns. */
  where?: string;
}

/** A claimed row, as RETURNING * gives it. */
export type DueRow = Record<string, unknown>;
export type RowId = string | number | bigint;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A column or table name checked to be a plain identifier, double-quoted. */
export function quoted(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`due-queue: ${name} is not a plain SQL identifier`);
  return `"${name}"`;
}

/** The columns of a table, resolved and quoted. */
export function dueColumns(spec: DueTable) {
  return {
    table: quoted(spec.table),
    id: quoted(spec.id ?? "id"),
    due: quoted(spec.due ?? "next_attempt_at"),
    lease: quoted(spec.lease ?? "locked_until"),
    key: spec.key === undefined ? null : quoted(spec.key),
    group: spec.group === undefined ? null : quoted(spec.group),
    idName: spec.id ?? "id",
    dueName: spec.due ?? "next_attempt_at",
    leaseName: spec.lease ?? "locked_until",
    keyName: spec.key ?? null,
    groupName: spec.group ?? null,
  };
}

/** A group's value in the JSON list of groups a claim skips (NULL is a group of its own). */
export const NULL_GROUP = "";

/**
 * The claim: ONE statement that leases up to `limit` due, unleased rows in due order, skipping
 * the keys that are at their limit and the groups at their share. On PostgreSQL it is the same
 * statement with `FOR UPDATE SKIP LOCKED` on the inner SELECT and `<> ALL($keys)` for the key
 * filter, so several nodes claim from one table without ever taking the same row.
 */
export function claimSql(spec: DueTable, excluding: boolean): string {
  const c = dueColumns(spec);
  const conditions = [`${c.due} <= ?`, `(${c.lease} IS NULL OR ${c.lease} <= ?)`];
  if (excluding && c.key) conditions.push(`${c.key} NOT IN (SELECT value FROM json_each(?))`);
  if (excluding && c.group) {
    conditions.push(
      `coalesce(${c.group}, '${NULL_GROUP}') NOT IN (SELECT value FROM json_each(?))`,
    );
  }
  if (spec.where) conditions.push(`(${spec.where})`);
  return `UPDATE ${c.table} SET ${c.lease} = ?
 WHERE ${c.id} IN (SELECT ${c.id} FROM ${c.table}
   WHERE ${conditions.join("\n     AND ")}
   ORDER BY ${c.due}, ${c.id} LIMIT ?)
RETURNING *`;
}

/**
 * The claim of one key's rows: the same statement restricted to `key = ?`, so with an index on
 * (key, due) it reads only that key's due rows, however many other keys' rows are waiting.
 */
export function claimKeySql(spec: DueTable): string {
  const c = dueColumns(spec);
  if (!c.key) throw new Error("due-queue: a claim by key needs the table's key column");
  const where = spec.where ? `\n     AND (${spec.where})` : "";
  return `UPDATE ${c.table} SET ${c.lease} = ?
 WHERE ${c.id} IN (SELECT ${c.id} FROM ${c.table}
   WHERE ${c.key} = ? AND ${c.due} <= ? AND (${c.lease} IS NULL OR ${c.lease} <= ?)${where}
   ORDER BY ${c.due}, ${c.id} LIMIT ?)
RETURNING *`;
}

/**
 * The claim of one group's rows, skipping its keys at their limit: with an index on (group, due)
 * it reads only that group's due rows. Used when a group back under its share has rows waiting
 * on keys other than the one that freed the slot.
 */
export function claimGroupSql(spec: DueTable): string {
  const c = dueColumns(spec);
  if (!c.group) throw new Error("due-queue: a claim by group needs the table's group column");
  const keys = c.key ? `\n     AND ${c.key} NOT IN (SELECT value FROM json_each(?))` : "";
  const where = spec.where ? `\n     AND (${spec.where})` : "";
  return `UPDATE ${c.table} SET ${c.lease} = ?
 WHERE ${c.id} IN (SELECT ${c.id} FROM ${c.table}
   WHERE ${c.group} IS ? AND ${c.due} <= ? AND (${c.lease} IS NULL OR ${c.lease} <= ?)${keys}${where}
   ORDER BY ${c.due}, ${c.id} LIMIT ?)
RETURNING *`;
}

/** The SQL of one due table: claim, extend and release leases, find the next due time. */
export function createDueRows(db: DbHandle, spec: DueTable) {
  const c = dueColumns(spec);
  const claimAll = db.sqlite.prepare<DueRow, SQLQueryBindings[]>(claimSql(spec, false));
  const claimExcluding =
    c.key || c.group ? db.sqlite.prepare<DueRow, SQLQueryBindings[]>(claimSql(spec, true)) : null;
  const claimOfGroup = c.group
    ? db.sqlite.prepare<DueRow, SQLQueryBindings[]>(claimGroupSql(spec))
    : null;
  const claimOfKey = c.key
    ? db.sqlite.prepare<DueRow, SQLQueryBindings[]>(claimKeySql(spec))
    : null;
  const where = spec.where ? ` AND (${spec.where})` : "";
  const nextDue = db.sqlite.prepare<{ at: number | null }, [number]>(
    `SELECT min(${c.due}) AS at FROM ${c.table} WHERE ${c.due} > ?${where}`,
  );
  const anyDue = db.sqlite.prepare<{ one: number }, [number, number]>(
    `SELECT 1 AS one FROM ${c.table} WHERE ${c.due} <= ? AND (${c.lease} IS NULL OR ${c.lease} <= ?)${where} LIMIT 1`,
  );
  const extend = db.sqlite.prepare(
    `UPDATE ${c.table} SET ${c.lease} = ? WHERE ${c.id} = ? AND ${c.lease} = ?`,
  );
  const release = db.sqlite.prepare(
    `UPDATE ${c.table} SET ${c.lease} = NULL WHERE ${c.id} = ? AND ${c.lease} = ?`,
  );
  const releaseAll = db.sqlite.prepare(
    `UPDATE ${c.table} SET ${c.lease} = NULL WHERE ${c.lease} IS NOT NULL`,
  );
  return {
    /**
     * Leases up to `limit` due rows until `until`; never rows whose key is in `skipKeys` or whose
     * group is in `skipGroups`.
     */
    claim(
      now: number,
      until: number,
      limit: number,
      skipKeys: readonly unknown[],
      skipGroups: readonly unknown[] = [],
    ): DueRow[] {
      if (claimExcluding && (skipKeys.length > 0 || skipGroups.length > 0)) {
        const filters: SQLQueryBindings[] = [];
        if (c.key) filters.push(JSON.stringify(skipKeys));
        if (c.group) filters.push(JSON.stringify(skipGroups.map((g) => g ?? NULL_GROUP)));
        return claimExcluding.all(until, now, now, ...filters, limit);
      }
      return claimAll.all(until, now, now, limit);
    },
    /** Leases up to `limit` due rows of one group until `until`, none of `skipKeys`. */
    claimGroup(
      group: unknown,
      now: number,
      until: number,
      limit: number,
      skipKeys: readonly unknown[],
    ): DueRow[] {
      if (!claimOfGroup) return [];
      const keys: SQLQueryBindings[] = c.key ? [JSON.stringify(skipKeys)] : [];
      return claimOfGroup.all(until, group as SQLQueryBindings, now, now, ...keys, limit);
    },
    /** Leases up to `limit` due rows of one key until `until`. */
    claimKey(key: unknown, now: number, until: number, limit: number): DueRow[] {
      if (!claimOfKey) return [];
      return claimOfKey.all(until, key as SQLQueryBindings, now, now, limit);
    },
    /** Whether any row is claimable at `now` (a read: no write lock when nothing is due). */
    anyDue(now: number): boolean {
      return anyDue.get(now, now) !== null;
    },
    /** Moves a held lease from `held` to `until`; false when it is no longer held. */
    extend(id: RowId, held: number, until: number): boolean {
      return extend.run(until, id, held).changes === 1;
    },
    /** Gives a held row back, due as it was; false when it was no longer held. */
    release(id: RowId, held: number): boolean {
      return release.run(id, held).changes === 1;
    },
    /** Gives every leased row back, due as it was; how many there were. */
    releaseAll(): number {
      return releaseAll.run().changes;
    },
    /** The earliest due time after `now`, or null when nothing is due later. */
    nextDueAfter(now: number): number | null {
      return nextDue.get(now)?.at ?? null;
    },
  };
}

export type DueRows = ReturnType<typeof createDueRows>;
