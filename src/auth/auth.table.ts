import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/** People who log in. `email` keeps the spelling given; `email_key` (lowercased) is what is unique. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    emailKey: text("email_key").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("users_email_key_unique").on(t.emailKey)],
);

/** Tenants. Every resource belongs to exactly one; `plan` selects the quota row (decisions.md §3). */
export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  plan: text("plan", { enum: ["free", "team", "enterprise"] }).notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** Who belongs to which organization, and with which role. */
export const memberships = sqliteTable(
  "memberships",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["member", "admin", "owner"] }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    index("memberships_user_idx").on(t.userId),
  ],
);

/** Organization API keys: only the SHA-256 of the key is kept (interface.md, API key). */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
    /** The rights the key acts with; keys made before roles existed are owners. */
    role: text("role", { enum: ["member", "admin", "owner"] })
      .notNull()
      .default("owner"),
    /** After this instant (ISO) the key is refused like a revoked one; null: never. */
    expiresAt: text("expires_at"),
    /** Requests per minute the key may make; null: no limit of its own. */
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    /** JSON array of CIDRs the key may be used from; null: anywhere. */
    allowedIps: text("allowed_ips"),
    /** Where the key was last used from, written with `last_used_at`. */
    lastIp: text("last_ip"),
    lastUserAgent: text("last_user_agent"),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_unique").on(t.keyHash),
    index("api_keys_org_idx").on(t.organizationId, t.createdAt),
  ],
);

/**
 * Requests made with a key, per UTC day: counted in memory and added here in batches (like
 * `last_used_at`), so a request never waits for a write. `errors` are the 4xx answers.
 */
export const apiKeyUsageDays = sqliteTable(
  "api_key_usage_days",
  {
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    date: text("date").notNull(),
    requests: integer("requests").notNull(),
    errors: integer("errors").notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.date] })],
);
