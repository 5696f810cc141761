import { serverRows } from "./server-rows.ts";
import type { TestServer } from "./test-server.ts";

type Row = Record<string, unknown>;

/**
 * Rows of `table` where `column` is `value`, read straight from whichever database the test
 * server keeps its data in (the PostgreSQL schema keeps SQLite's table and column names): what
 * a test checks is what was stored, not what the API shows.
 */
export async function storedRows(
  server: Pick<TestServer, "deps" | "postgres">,
  table: string,
  column: string,
  value: string,
): Promise<Row[]> {
  if (server.postgres) {
    return [
      ...(await server.postgres.sql.unsafe(`SELECT * FROM ${table} WHERE ${column} = $1`, [value])),
    ] as Row[];
  }
  return server.deps.db.sqlite
    .query<Row, [string]>(`SELECT * FROM ${table} WHERE ${column} = ?`)
    .all(value);
}

/** The row of `table` with this id, or null. */
export async function storedRow(
  server: Pick<TestServer, "deps" | "postgres">,
  table: string,
  id: string,
): Promise<Row | null> {
  return (await storedRows(server, table, "id", id))[0] ?? null;
}

/** Every row of `table`, from whichever database the test server keeps its data in. */
export async function everyStoredRow(
  server: Pick<TestServer, "deps" | "postgres">,
  table: string,
): Promise<Row[]> {
  if (server.postgres) return [...(await server.postgres.sql.unsafe(`SELECT * FROM ${table}`))];
  return server.deps.db.sqlite.query<Row, []>(`SELECT * FROM ${table}`).all();
}

/** SQLite's `?` placeholders as PostgreSQL's `$1, $2, …` (the statements here quote no `?`). */
const numbered = (statement: string) => {
  let n = 0;
  return statement.replace(/\?/g, () => `$${++n}`);
};

/**
 * Runs `statement` (written with `?` placeholders, in SQL both databases read) on whichever
 * database the test server keeps its data in, and returns its rows: a test that counts or
 * changes stored rows directly does it the same way on both stores.
 */
export async function onStore(
  server: Pick<TestServer, "deps" | "postgres">,
  statement: string,
  ...args: (string | number | null)[]
): Promise<Row[]> {
  return serverRows<Row>(server, numbered(statement), args);
}

/** `SELECT count(*) AS n …` on either store, as a number (PostgreSQL answers a bigint). */
export async function storedCount(
  server: Pick<TestServer, "deps" | "postgres">,
  statement: string,
  ...args: (string | number | null)[]
): Promise<number> {
  const [row] = await onStore(server, statement, ...args);
  return Number(row?.n ?? 0);
}

/** The names of the database's tables (Weir's own, not the database's catalog). */
export async function storedTableNames(
  server: Pick<TestServer, "deps" | "postgres">,
): Promise<string[]> {
  const rows = server.postgres
    ? await onStore(
        server,
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      )
    : await onStore(server, "SELECT name FROM sqlite_master WHERE type = 'table'");
  return rows.map((row) => String(row.name));
}
