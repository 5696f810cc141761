import type { SQL } from "bun";

/**
 * An open PostgreSQL database (`--database postgres://…`): Bun's SQL client over a pool of
 * connections. Every query is asynchronous, which is why a room's storage is an interface with
 * a SQLite and a PostgreSQL implementation rather than one repo over both.
 */
export interface PostgresDb {
  dialect: "postgres";
  sql: SQL;
  close(): Promise<void>;
}
