import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

/**
 * A schema as both dialects can describe it, for comparing what the SQLite migrations and the
 * PostgreSQL migrations build (src/db/db.dialects.test.ts). Every entry is one line of text, so
 * a difference reads as the line one side has and the other lacks.
 */
export interface SchemaCatalog {
  tables: string[];
  /** `table.column family null|not null` */
  columns: string[];
  /** `table primary key (a, b)` */
  primaryKeys: string[];
  /** `table index name (a, b) unique? partial?`, or `table unique constraint (a, b)` */
  indexes: string[];
  /** `table (a) → other (b) on delete cascade` */
  foreignKeys: string[];
  /** `table trigger name` */
  triggers: string[];
}

/**
 * Objects only SQLite has, and why: the request search index is FTS5 (SQLite's full-text
 * engine), its shadow tables, the mark of how far it got, and the trigger keeping both; it is
 * addressed by rowid, which PostgreSQL rows do not have. PostgreSQL searches requests with the
 * capture store's own query instead.
 */
export const SQLITE_ONLY = {
  tables: /^captured_requests_search(_.*)?$/,
  triggers: new Set(["captured_requests_search_delete"]),
};

/** SQLite's declared types, PostgreSQL's data types → the family both read the same values as. */
const FAMILIES: Record<string, string> = {
  text: "text",
  integer: "integer",
  bigint: "integer",
  real: "real",
  "double precision": "real",
  blob: "blob",
  bytea: "blob",
};
const family = (type: string) => FAMILIES[type.toLowerCase()] ?? `unknown(${type})`;
const nullability = (notNull: boolean) => (notNull ? "not null" : "null");
const sorted = (lines: string[]) => [...lines].sort();

/**
 * A column default as both dialects mean it: PostgreSQL's casts (`'owner'::text`) dropped, and
 * SQLite's `true`/`false` (drizzle's boolean defaults) as the 1/0 it stores. A store that
 * leaves a column out of an INSERT relies on it.
 */
function shownDefault(value: string | null): string {
  if (value === null) return "";
  const plain = value.replace(/::[a-z ]+$/, "");
  const stored = plain === "true" ? "1" : plain === "false" ? "0" : plain;
  return ` default ${stored}`;
}

export function sqliteCatalog(sqlite: Database): SchemaCatalog {
  const tables = sqlite
    .query<{ name: string }, []>(
      "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite_%'",
    )
    .all()
    .map((row) => row.name)
    .filter((name) => !SQLITE_ONLY.tables.test(name));
  const catalog: SchemaCatalog = {
    tables: sorted(tables),
    columns: [],
    primaryKeys: [],
    indexes: [],
    foreignKeys: [],
    triggers: [],
  };
  for (const table of tables) {
    const columns = sqlite
      .query<
        { name: string; type: string; notnull: number; pk: number; dflt_value: string | null },
        [string]
      >('SELECT name, type, "notnull", pk, dflt_value FROM pragma_table_info(?)')
      .all(table);
    for (const c of columns) {
      catalog.columns.push(
        `${table}.${c.name} ${family(c.type)} ${nullability(c.notnull === 1 || c.pk > 0)}${shownDefault(c.dflt_value)}`,
      );
    }
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    catalog.primaryKeys.push(`${table} primary key (${pk.map((c) => c.name).join(", ")})`);
    const indexes = sqlite
      .query<{ name: string; unique: number; origin: string; partial: number }, [string]>(
        'SELECT name, "unique", origin, partial FROM pragma_index_list(?)',
      )
      .all(table)
      .filter((index) => index.origin !== "pk");
    for (const index of indexes) {
      const names = sqlite
        .query<{ name: string }, [string]>("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
        .all(index.name)
        .map((row) => row.name);
      catalog.indexes.push(
        index.origin === "u"
          ? uniqueConstraintLine(table, names)
          : indexLine(table, index.name, names, index.unique === 1, index.partial === 1),
      );
    }
    const references = sqlite
      .query<{ id: number; table: string; from: string; to: string; on_delete: string }, [string]>(
        'SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq',
      )
      .all(table);
    for (const id of new Set(references.map((r) => r.id))) {
      const parts = references.filter((r) => r.id === id);
      const first = parts[0] as (typeof parts)[number];
      catalog.foreignKeys.push(
        foreignKeyLine(
          table,
          parts.map((p) => p.from),
          first.table,
          parts.map((p) => p.to),
          first.on_delete,
        ),
      );
    }
  }
  catalog.triggers = sqlite
    .query<{ tbl_name: string; name: string }, []>(
      "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'",
    )
    .all()
    .filter((row) => !SQLITE_ONLY.triggers.has(row.name))
    .map((row) => `${row.tbl_name} trigger ${row.name}`);
  return sortAll(catalog);
}

export async function postgresCatalog(sql: SQL): Promise<SchemaCatalog> {
  const tables: { name: string }[] = await sql`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
  const columns: {
    table: string;
    name: string;
    type: string;
    nullable: string;
    default: string | null;
  }[] = await sql`
    SELECT table_name AS table, column_name AS name, data_type AS type, is_nullable AS nullable,
           column_default AS default
    FROM information_schema.columns WHERE table_schema = current_schema()`;
  const indexes: {
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    partial: boolean;
    constraint: boolean;
    columns: string;
  }[] = await sql`
    SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique,
           x.indisprimary AS primary, x.indpred IS NOT NULL AS partial,
           EXISTS (SELECT 1 FROM pg_constraint c
                    WHERE c.conindid = x.indexrelid AND c.contype = 'u') AS constraint,
           (SELECT string_agg(a.attname::text, ',' ORDER BY k.ord)
              FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()`;
  const references: {
    table: string;
    target: string;
    from: string;
    to: string;
    action: string;
  }[] = await sql`
    SELECT t.relname AS table, r.relname AS target, c.confdeltype AS action,
           (SELECT string_agg(a.attname::text, ',' ORDER BY k.ord)
              FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS from,
           (SELECT string_agg(a.attname::text, ',' ORDER BY k.ord)
              FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS to
    FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_class r ON r.oid = c.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype = 'f' AND n.nspname = current_schema()`;
  const triggers: { table: string; name: string }[] = await sql`
    SELECT DISTINCT event_object_table AS table, trigger_name AS name
    FROM information_schema.triggers WHERE trigger_schema = current_schema()`;
  return sortAll({
    tables: tables.map((t) => t.name),
    columns: columns.map(
      (c) =>
        `${c.table}.${c.name} ${family(c.type)} ${nullability(c.nullable === "NO")}${shownDefault(c.default)}`,
    ),
    primaryKeys: indexes
      .filter((i) => i.primary)
      .map((i) => `${i.table} primary key (${i.columns.split(",").join(", ")})`),
    indexes: indexes
      .filter((i) => !i.primary)
      .map((i) =>
        i.constraint
          ? uniqueConstraintLine(i.table, i.columns.split(","))
          : indexLine(i.table, i.name, i.columns.split(","), i.unique, i.partial),
      ),
    foreignKeys: references.map((r) =>
      foreignKeyLine(
        r.table,
        r.from.split(","),
        r.target,
        r.to.split(","),
        PG_ACTIONS[r.action] ?? r.action,
      ),
    ),
    triggers: triggers.map((t) => `${t.table} trigger ${t.name}`),
  });
}

const PG_ACTIONS: Record<string, string> = {
  a: "no action",
  r: "restrict",
  c: "cascade",
  n: "set null",
  d: "set default",
};

function indexLine(
  table: string,
  name: string,
  columns: string[],
  unique: boolean,
  partial: boolean,
) {
  return `${table} index ${name} (${columns.join(", ")})${unique ? " unique" : ""}${partial ? " partial" : ""}`;
}

/** A UNIQUE written in the table's definition: its index is named by each dialect its own way. */
function uniqueConstraintLine(table: string, columns: string[]) {
  return `${table} unique constraint (${columns.join(", ")})`;
}

function foreignKeyLine(
  table: string,
  from: string[],
  target: string,
  to: string[],
  action: string,
) {
  return `${table} (${from.join(", ")}) → ${target} (${to.join(", ")}) on delete ${action.toLowerCase()}`;
}

function sortAll(catalog: SchemaCatalog): SchemaCatalog {
  return {
    tables: sorted(catalog.tables),
    columns: sorted(catalog.columns),
    primaryKeys: sorted(catalog.primaryKeys),
    indexes: sorted(catalog.indexes),
    foreignKeys: sorted(catalog.foreignKeys),
    triggers: sorted(catalog.triggers),
  };
}

/** What one catalog has and the other lacks, one line each (`sqlite only: …`, `postgres only: …`). */
export function catalogDifferences(sqlite: SchemaCatalog, postgres: SchemaCatalog): string[] {
  const differences: string[] = [];
  for (const part of Object.keys(sqlite) as (keyof SchemaCatalog)[]) {
    const theirs = new Set(postgres[part]);
    const ours = new Set(sqlite[part]);
    for (const line of sqlite[part])
      if (!theirs.has(line)) differences.push(`sqlite only: ${line}`);
    for (const line of postgres[part])
      if (!ours.has(line)) differences.push(`postgres only: ${line}`);
  }
  return differences;
}
