import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Facts about this installation (e.g. its id and when it was first started), as key/value rows. */
export const instanceFacts = sqliteTable("instance_facts", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: text("updated_at").notNull(),
});
