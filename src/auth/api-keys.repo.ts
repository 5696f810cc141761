import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { DbHandle } from "../db/db.tx.ts";
import type { UsageBatch } from "./api-keys.usage.ts";
import type { ActiveKey, ApiKeyRow, NewApiKey } from "./auth.store.ts";
import { apiKeys, organizations } from "./auth.table.ts";

type StoredKey = typeof apiKeys.$inferSelect;

const decode = (row: StoredKey): ApiKeyRow => ({
  ...row,
  allowedIps: row.allowedIps ? (JSON.parse(row.allowedIps) as string[]) : null,
});

/** The SQL of API keys (part of the auth room's repo). The per-request lookup is prepared once. */
export function createApiKeysRepo(db: DbHandle) {
  const orm = db.orm;
  const activeKeyByHash = orm
    .select({
      id: apiKeys.id,
      organizationId: apiKeys.organizationId,
      name: apiKeys.name,
      plan: organizations.plan,
      role: apiKeys.role,
      expiresAt: apiKeys.expiresAt,
      rateLimitPerMinute: apiKeys.rateLimitPerMinute,
      allowedIps: apiKeys.allowedIps,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .prepare();
  return {
    insertApiKey: (row: NewApiKey) =>
      orm
        .insert(apiKeys)
        .values({ ...row, allowedIps: row.allowedIps ? JSON.stringify(row.allowedIps) : null })
        .run(),
    activeKeyByHash: (hash: string): ActiveKey | undefined => activeKeyByHash.get({ hash }),
    listApiKeys: (organizationId: string): ApiKeyRow[] =>
      orm
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.organizationId, organizationId))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
        .all()
        .map(decode),
    findApiKey(organizationId: string, id: string): ApiKeyRow | undefined {
      const row = orm
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, id), eq(apiKeys.organizationId, organizationId)))
        .get();
      return row ? decode(row) : undefined;
    },
    /** Active keys of every organization whose expiry falls in [`from`, `until`), soonest first. */
    keysExpiringBetween(from: string, until: string, limit: number): ApiKeyRow[] {
      return orm
        .select()
        .from(apiKeys)
        .where(
          and(
            isNull(apiKeys.revokedAt),
            sql`${apiKeys.expiresAt} > ${from}`,
            sql`${apiKeys.expiresAt} <= ${until}`,
          ),
        )
        .orderBy(asc(apiKeys.expiresAt))
        .limit(limit)
        .all()
        .map(decode);
    },
    /** Revokes an active key of the organization; the revoked row, or null when none was active. */
    revokeApiKey(organizationId: string, id: string, revokedAt: string): ApiKeyRow | null {
      const [revoked] = orm
        .update(apiKeys)
        .set({ revokedAt })
        .where(
          and(
            eq(apiKeys.id, id),
            eq(apiKeys.organizationId, organizationId),
            isNull(apiKeys.revokedAt),
          ),
        )
        .returning()
        .all();
      return revoked ? decode(revoked) : null;
    },
    /** A key's stored day counts from `since` (a date) on. */
    usageDaysSince(apiKeyId: string, since: string) {
      return db.sqlite
        .query<{ date: string; requests: number; errors: number }, [string, string]>(
          "SELECT date, requests, errors FROM api_key_usage_days WHERE api_key_id = ? AND date >= ?",
        )
        .all(apiKeyId, since);
    },
    /**
     * Writes a batch of last uses and day counts in one transaction, and drops counts older
     * than `keepSince` (a date): nothing reads them.
     */
    writeApiKeyUsage(batch: UsageBatch, keepSince: string): void {
      const touch = db.sqlite.prepare(
        "UPDATE api_keys SET last_used_at = ?, last_ip = ?, last_user_agent = ? WHERE id = ?",
      );
      // A key deleted with its organization since the count is skipped, not a failed batch.
      const addDay = db.sqlite.prepare(
        `INSERT INTO api_key_usage_days (api_key_id, date, requests, errors)
         SELECT id, ?, ?, ? FROM api_keys WHERE id = ?
         ON CONFLICT (api_key_id, date) DO UPDATE SET
           requests = requests + excluded.requests, errors = errors + excluded.errors`,
      );
      db.sqlite.transaction(() => {
        for (const [id, use] of batch.uses) touch.run(use.at, use.ip, use.userAgent, id);
        for (const day of batch.days) addDay.run(day.date, day.requests, day.errors, day.apiKeyId);
        if (batch.days.length > 0) {
          db.sqlite.run("DELETE FROM api_key_usage_days WHERE date < ?", [keepSince]);
        }
      })();
    },
  };
}
