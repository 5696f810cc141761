import type { SQL } from "bun";
import type { DueStore } from "./db.due-rows.store.ts";
import { type DueRow, type DueTable, dueColumns, NULL_GROUP, quoted } from "./db.due-rows.ts";

/** A due table on PostgreSQL: the SQLite spec, plus where a lease names its node. */
export interface PostgresDueTable extends DueTable {
  /**
   * The column naming the node that holds a row's lease (text, NULL when none does). With it a
   * lease is this node's only while the column says so; without it the lease's end alone is the
   * token, as on SQLite.
   */
  claimer?: string;
}

export interface PostgresDueOptions {
  sql: SQL;
  table: PostgresDueTable;
  /** This node's name (unique among the live nodes: a UUID per process start). */
  node: string;
  /** How long a claim holds a row without being extended; default 60 s. */
  leaseMs?: number;
  /**
   * The app's clock (epoch ms), which wrote the due times: due rows are judged by it when given,
   * so a due time means the same to the node that set it and the node that claims it (a fake
   * clock in tests included). Leases are judged by the server's clock either way.
   */
  dueNow?: () => number;
}

/** The server's clock in epoch ms: every lease is set and judged by it, never by a node's clock. */
const SERVER_NOW = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
/** Where a statement compares due times with now (see `dueNow`). */
const DUE_NOW = "$DUE_NOW$";

/**
 * The PostgreSQL claims of a due table: the SQLite claim statement with `FOR UPDATE SKIP LOCKED`
 * on the inner SELECT, so nodes claiming at the same instant each take different rows, and
 * leases on the server's clock, so a dead node's rows are claimed again once its lease lapses.
 */
export function createPostgresDueRows(options: PostgresDueOptions): DueStore {
  const { sql, node, table } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const c = dueColumns(table);
  const claimer = table.claimer === undefined ? null : quoted(table.claimer);
  const where = table.where ? ` AND (${table.where})` : "";
  const claimable = `t.${c.due} <= ${DUE_NOW} AND (t.${c.lease} IS NULL OR t.${c.lease} <= n.ms)${where}`;
  /** The statement with the due instant filled in: the app's clock, or the server's. */
  const timed = (query: string) =>
    query.replaceAll(DUE_NOW, options.dueNow ? `${Math.round(options.dueNow())}::bigint` : "n.ms");
  const mine = claimer ? ` AND ${claimer} = $3` : "";
  /** The parameters of a lease's UPDATE: the node only where a claimer column names it. */
  const leaseValues = (id: unknown, held: number) => (claimer ? [id, held, node] : [id, held]);
  const setClaimer = claimer ? `, ${claimer} = $2` : "";

  /** One claim: $1 the limit, then the node where a claimer column takes it, then the filters. */
  const claimSql = (filters: string[]) => `
WITH n AS (SELECT ${SERVER_NOW} AS ms),
picked AS (
  SELECT t.${c.id} AS id FROM ${c.table} t, n
   WHERE ${[claimable, ...filters].join(" AND ")}
   ORDER BY t.${c.due}, t.${c.id} LIMIT $1
   FOR UPDATE OF t SKIP LOCKED)
UPDATE ${c.table} SET ${c.lease} = (SELECT ms FROM n) + ${Math.round(leaseMs)}${setClaimer}
  FROM picked WHERE ${c.table}.${c.id} = picked.id
RETURNING ${c.table}.*`;

  /** Rows of none of the keys in the JSON list at parameter `at`. */
  const notKeys = (at: number) =>
    c.key ? `t.${c.key}::text NOT IN (SELECT jsonb_array_elements_text($${at}::jsonb))` : null;
  const notGroups = (at: number) =>
    c.group
      ? `coalesce(t.${c.group}::text, '${NULL_GROUP}') NOT IN (SELECT jsonb_array_elements_text($${at}::jsonb))`
      : null;
  const first = claimer ? 3 : 2;
  const claimFiltered = claimSql(
    [notKeys(first), notGroups(c.key ? first + 1 : first)].filter((f) => f !== null),
  );
  const claimOfKey = c.key ? claimSql([`t.${c.key} = $${first}`]) : null;
  const claimOfGroup = c.group
    ? claimSql(
        [`t.${c.group} IS NOT DISTINCT FROM $${first}`, notKeys(first + 1)].filter(
          (f) => f !== null,
        ),
      )
    : null;
  const head = (limit: number) => (claimer ? [limit, node] : [limit]);

  /** bigint columns arrive as text: the due time and the lease are numbers, as on SQLite. */
  const normalised = (rows: DueRow[]): DueRow[] => {
    for (const row of rows) {
      for (const name of [c.dueName, c.leaseName]) {
        const value = row[name];
        if (typeof value === "string") row[name] = Number(value);
      }
    }
    return rows;
  };
  const run = async (query: string, values: unknown[]) =>
    normalised([...(await sql.unsafe<DueRow[]>(timed(query), values))]);
  /** A list for a `$n::jsonb` parameter: the client encodes an array as JSON itself. */
  const json = (values: readonly unknown[]) => values.map((v) => String(v));

  return {
    node,
    claim(limit, keys = [], groups = []) {
      const filters = [];
      if (c.key) filters.push(json(keys));
      if (c.group) filters.push(json(groups.map((g) => g ?? NULL_GROUP)));
      return run(claimFiltered, [...head(limit), ...filters]);
    },
    claimKey: async (key, limit) => (claimOfKey ? run(claimOfKey, [...head(limit), key]) : []),
    claimGroup: async (group, limit, keys = []) =>
      claimOfGroup
        ? run(claimOfGroup, [...head(limit), group ?? null, ...(c.key ? [json(keys)] : [])])
        : [],
    async extend(id, held) {
      const [row] = await sql.unsafe<{ until: string }[]>(
        `UPDATE ${c.table} SET ${c.lease} = greatest(${SERVER_NOW} + ${Math.round(leaseMs)}, $2::bigint + 1)
          WHERE ${c.id} = $1 AND ${c.lease} = $2${mine} RETURNING ${c.lease} AS until`,
        leaseValues(id, held),
      );
      return row ? Number(row.until) : null;
    },
    async release(id, held) {
      const clear = claimer ? `, ${claimer} = NULL` : "";
      const rows = await sql.unsafe(
        `UPDATE ${c.table} SET ${c.lease} = NULL${clear}
          WHERE ${c.id} = $1 AND ${c.lease} = $2${mine} RETURNING 1`,
        leaseValues(id, held),
      );
      return rows.length === 1;
    },
    async releaseMine() {
      // Without a claimer column no lease says whose it is: nothing can be given back safely.
      if (!claimer) return 0;
      const rows = await sql.unsafe(
        `UPDATE ${c.table} SET ${c.lease} = NULL, ${claimer} = NULL
          WHERE ${claimer} = $1 AND ${c.lease} IS NOT NULL RETURNING 1`,
        [node],
      );
      return rows.length;
    },
    async anyDue() {
      const rows = await sql.unsafe(
        timed(
          `SELECT 1 FROM ${c.table} t, (SELECT ${SERVER_NOW} AS ms) n WHERE ${claimable} LIMIT 1`,
        ),
      );
      return rows.length > 0;
    },
    async nextDue() {
      const [row] = await sql.unsafe<{ at: string | null }[]>(
        timed(`SELECT min(t.${c.due}) AS at FROM ${c.table} t, (SELECT ${SERVER_NOW} AS ms) n
          WHERE t.${c.due} > ${DUE_NOW}${where}`),
      );
      return row?.at == null ? null : Number(row.at);
    },
  };
}
