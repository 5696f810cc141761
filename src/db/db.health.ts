import type { Db } from "./db.open.ts";
import type { PostgresDb } from "./db.postgres-handle.ts";

/**
 * A function that throws unless the database answers a trivial query: what `/healthz` checks.
 * Kept here so the HTTP layer never holds a dialect's handle.
 */
export function createDbPing(db: Pick<Db, "sqlite">): () => void {
  const ping = db.sqlite.query<{ ok: number }, []>("SELECT 1 AS ok");
  return () => {
    ping.get();
  };
}

/** The same check on PostgreSQL: one round trip on the pool. */
export function createPostgresPing(pg: PostgresDb): () => Promise<void> {
  return async () => {
    await pg.sql`SELECT 1`;
  };
}
