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
