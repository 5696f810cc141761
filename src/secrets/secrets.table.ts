import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/**
 * An organization's named secrets (decisions.md §8). `sealed_value` is AES-256-GCM under the
 * `secrets` key with the organization and name as associated data: the plaintext is never stored.
 */
export const secrets = sqliteTable(
  "secrets",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    sealedValue: text("sealed_value").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("secrets_org_name_unique").on(t.organizationId, t.name)],
);
