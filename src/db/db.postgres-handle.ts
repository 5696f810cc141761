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

/**
 * The client and a transaction's handle, for ports that run inside another room's PostgreSQL
 * transaction: rooms name them from here, so only stores and src/db import Bun's SQL client.
 */
export type { SQL as PostgresSql, TransactionSQL as PostgresTx } from "bun";
