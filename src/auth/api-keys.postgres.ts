import type { TransactionSQL } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { ApiKeyEvent } from "./api-keys.ports.ts";
import type { Plan, Role } from "./auth.model.ts";
import type { ActiveKey, ApiKeyRow, AuthStore } from "./auth.store.ts";

type ApiKeysStore = Pick<
  AuthStore,
  | "insertApiKey"
  | "activeKeyByHash"
  | "listApiKeys"
  | "findApiKey"
  | "keysExpiringBetween"
  | "revokeApiKey"
  | "announceKeyEvent"
  | "usageDaysSince"
  | "writeApiKeyUsage"
>;

export interface ApiKeysPostgresOptions {
  /** Hears key events inside the transaction of their cause. */
  keyEvents?: (tx: TransactionSQL, event: ApiKeyEvent) => Promise<void>;
}

type Row = Record<string, unknown>;

const toKey = (row: Row): ApiKeyRow => ({
  id: row.id as string,
  organizationId: row.organization_id as string,
  name: row.name as string,
  keyHash: row.key_hash as string,
  createdBy: row.created_by as string | null,
  createdAt: row.created_at as string,
  lastUsedAt: row.last_used_at as string | null,
  revokedAt: row.revoked_at as string | null,
  role: row.role as Role,
  expiresAt: row.expires_at as string | null,
  rateLimitPerMinute: row.rate_limit_per_minute as number | null,
  allowedIps: row.allowed_ips ? (JSON.parse(row.allowed_ips as string) as string[]) : null,
  lastIp: row.last_ip as string | null,
  lastUserAgent: row.last_user_agent as string | null,
});

/**
 * API keys and their usage over PostgreSQL (part of the auth room's store). A usage batch is two
 * statements whatever its size: its rows go as one JSON document, in key order, so two nodes
 * flushing at once lock the same rows in the same order.
 */
export function createApiKeysPostgresStore(
  pg: PostgresDb,
  options: ApiKeysPostgresOptions = {},
): ApiKeysStore {
  const { sql } = pg;
  const { keyEvents } = options;
  return {
    insertApiKey: async (row, event) => {
      const allowedIps = row.allowedIps ? JSON.stringify(row.allowedIps) : null;
      await sql.begin(async (tx) => {
        await tx`
          INSERT INTO api_keys (id, organization_id, name, key_hash, created_by, created_at,
            last_used_at, revoked_at, role, expires_at, rate_limit_per_minute, allowed_ips)
          VALUES (${row.id}, ${row.organizationId}, ${row.name}, ${row.keyHash}, ${row.createdBy},
            ${row.createdAt}, ${row.lastUsedAt}, ${row.revokedAt}, ${row.role}, ${row.expiresAt},
            ${row.rateLimitPerMinute}, ${allowedIps})`;
        await keyEvents?.(tx, event);
      });
    },
    activeKeyByHash: async (hash) => {
      const [row] = await sql`
        SELECT k.id, k.organization_id, k.name, o.plan, k.role, k.expires_at,
               k.rate_limit_per_minute, k.allowed_ips
        FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`;
      if (!row) return undefined;
      return {
        id: row.id,
        organizationId: row.organization_id,
        name: row.name,
        plan: row.plan as Plan,
        role: row.role as Role,
        expiresAt: row.expires_at,
        rateLimitPerMinute: row.rate_limit_per_minute,
        allowedIps: row.allowed_ips,
      } satisfies ActiveKey;
    },
    listApiKeys: async (organizationId) =>
      (
        await sql`SELECT * FROM api_keys WHERE organization_id = ${organizationId}
                  ORDER BY created_at, id`
      ).map(toKey),
    findApiKey: async (organizationId, id) => {
      const [row] = await sql`
        SELECT * FROM api_keys WHERE id = ${id} AND organization_id = ${organizationId}`;
      return row ? toKey(row) : undefined;
    },
    keysExpiringBetween: async (from, until, limit) =>
      (
        await sql`
          SELECT * FROM api_keys
          WHERE revoked_at IS NULL AND expires_at > ${from} AND expires_at <= ${until}
          ORDER BY expires_at LIMIT ${limit}`
      ).map(toKey),
    revokeApiKey: (organizationId, id, revokedAt, event) =>
      sql.begin(async (tx) => {
        const [row] = await tx`
          UPDATE api_keys SET revoked_at = ${revokedAt}
          WHERE id = ${id} AND organization_id = ${organizationId} AND revoked_at IS NULL
          RETURNING *`;
        if (!row) return null;
        const revoked = toKey(row);
        await keyEvents?.(tx, event(revoked));
        return revoked;
      }),
    announceKeyEvent: async (event) => {
      if (keyEvents) await sql.begin((tx) => keyEvents(tx, event));
    },
    usageDaysSince: async (apiKeyId, since) =>
      (
        await sql`SELECT date, requests, errors FROM api_key_usage_days
                  WHERE api_key_id = ${apiKeyId} AND date >= ${since} ORDER BY date`
      ).map((row: Row) => ({
        date: row.date as string,
        // bigint columns arrive as text
        requests: Number(row.requests),
        errors: Number(row.errors),
      })),
    writeApiKeyUsage: async (batch, keepSince) => {
      const uses = [...batch.uses]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([id, use]) => ({ id, at: use.at, ip: use.ip, user_agent: use.userAgent }));
      const days = [...batch.days]
        .sort((a, b) => (a.apiKeyId === b.apiKeyId ? 0 : a.apiKeyId < b.apiKeyId ? -1 : 1))
        .map((day) => ({
          id: day.apiKeyId,
          date: day.date,
          requests: day.requests,
          errors: day.errors,
        }));
      await sql.begin(async (tx) => {
        if (uses.length > 0) {
          await tx`
            UPDATE api_keys k SET last_used_at = u.at, last_ip = u.ip, last_user_agent = u.user_agent
            FROM jsonb_to_recordset(${JSON.stringify(uses)}::text::jsonb)
              AS u(id text, at text, ip text, user_agent text)
            WHERE k.id = u.id`;
        }
        if (days.length === 0) return;
        // A key deleted with its organization since the count is skipped, not a failed batch.
        await tx`
          INSERT INTO api_key_usage_days (api_key_id, date, requests, errors)
          SELECT d.id, d.date, d.requests, d.errors
          FROM jsonb_to_recordset(${JSON.stringify(days)}::text::jsonb)
            AS d(id text, date text, requests bigint, errors bigint)
          JOIN api_keys k ON k.id = d.id
          ORDER BY d.id, d.date
          ON CONFLICT (api_key_id, date) DO UPDATE SET
            requests = api_key_usage_days.requests + excluded.requests,
            errors = api_key_usage_days.errors + excluded.errors`;
        await tx`DELETE FROM api_key_usage_days WHERE date < ${keepSince}`;
      });
    },
  };
}
