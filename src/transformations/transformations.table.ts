import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/** JavaScript transformations of an organization (decisions.md §8); run only in the sandbox. */
export const transformations = sqliteTable(
  "transformations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    code: text("code").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("transformations_org_idx").on(t.organizationId, t.createdAt)],
);
