import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Token buckets shared by the nodes of one PostgreSQL database (token-bucket.postgres.ts), so a
 * limit holds for the whole cluster rather than once per node. A SQLite server keeps its buckets
 * in memory (token-bucket.ts) and leaves this table empty.
 */
export const rateBuckets = sqliteTable("rate_buckets", {
  /** The limiter's name and the limited key, e.g. `login:203.0.113.7`. */
  key: text("key").primaryKey(),
  tokens: real("tokens").notNull(),
  /** Epoch ms of the last take: the bucket has refilled since then. */
  updatedAt: integer("updated_at").notNull(),
});
