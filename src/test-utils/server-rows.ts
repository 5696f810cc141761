import type { AnyAppDeps } from "../deps.ts";

/**
 * Rows a test server holds, read on whichever store it runs (`$1`-style parameters): for e2e
 * checks of what is at rest, which the API does not show. bigint columns come back as text on
 * PostgreSQL.
 */
export async function serverRows<T extends Record<string, unknown>>(
  server: { deps: AnyAppDeps },
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const { postgres, db } = server.deps;
  if (postgres) return [...(await postgres.sql.unsafe(sql, params as never[]))] as T[];
  if (!db) throw new Error("the test server holds no database");
  return db.sqlite.query(sql.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])) as T[];
}
