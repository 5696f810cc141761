import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import {
  type AlertFiring,
  type FiringRow,
  type RuleRow,
  type StoredRule,
  toFiring,
  toStored,
} from "./alerts.repo.ts";
import type { AlertsInTransaction, AlertsStore } from "./alerts.store.ts";

// bigint columns come back as text from Bun's client; the rest of the row is as SQLite's.
const ruleOf = (row: RuleRow): StoredRule =>
  toStored({
    ...row,
    previous_secret_until:
      row.previous_secret_until === null ? null : Number(row.previous_secret_until),
  });

const monitorIdsOf = (s: StoredRule) =>
  s.rule.condition.monitorIds ? JSON.stringify(s.rule.condition.monitorIds) : null;

/**
 * Writes a firing in the caller's transaction, so a firing and its delivery commit together.
 * False when the rule already fired for this issue under this condition: the unique index
 * decides between nodes, as it does between SQLite writers.
 */
export async function insertFiringPostgres(
  sql: PostgresSql | PostgresTx,
  f: AlertFiring,
): Promise<boolean> {
  const rows = await sql`
    INSERT INTO alert_firings
      (id, organization_id, rule_id, issue_id, condition_key, test, payload, created_at)
    VALUES (${f.id}, ${f.organizationId}, ${f.ruleId}, ${f.issueId}, ${f.conditionKey},
      ${f.test ? 1 : 0}, ${JSON.stringify(f.snapshot)}, ${f.createdAt})
    ON CONFLICT (rule_id, issue_id, condition_key) DO NOTHING
    RETURNING id`;
  return rows.length > 0;
}

async function deleteFirings(sql: PostgresSql | PostgresTx, ids: readonly string[]) {
  if (ids.length > 0) await sql`DELETE FROM alert_firings WHERE id IN ${sql([...ids])}`;
}

/** The firing paths' reads and writes inside a transaction another room holds. */
export function alertsInPostgresTransaction(pg: PostgresDb): AlertsInTransaction<PostgresTx> {
  return {
    async enabledRules(tx, organizationId) {
      const rows: RuleRow[] = await tx`
        SELECT * FROM alert_rules WHERE organization_id = ${organizationId} AND enabled = 1`;
      return rows.map(ruleOf);
    },
    insertFiring: (tx, firing) => insertFiringPostgres(tx, firing),
    removeFirings: (tx, ids) => deleteFirings(tx, ids),
    // The transaction holds a lock of its own until it ends; another connection waits for it.
    async endOf(tx) {
      const key = crypto.randomUUID();
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
      const waited = pg.sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`;
      return { ended: waited.then(() => {}) };
    },
  };
}

/** The alerts store on PostgreSQL: the SQLite repo's statements, row for row. */
export function createAlertsPostgresStore(pg: PostgresDb): AlertsStore {
  const { sql } = pg;
  const rules = async (query: Promise<RuleRow[]>) => (await query).map(ruleOf);
  return {
    async insertRule(s) {
      const r = s.rule;
      await sql`
        INSERT INTO alert_rules (id, organization_id, name, condition_type, condition_value,
          condition_monitor_ids, channel_type, channel, signing_secret, previous_signing_secret,
          previous_secret_until, enabled, updated_at, created_at)
        VALUES (${r.id}, ${r.organizationId}, ${r.name}, ${r.condition.type},
          ${r.condition.value}, ${monitorIdsOf(s)}, ${r.channelType}, ${JSON.stringify(r.channel)},
          ${s.secrets.current}, ${s.secrets.previous}, ${s.secrets.previousUntil},
          ${r.enabled ? 1 : 0}, ${r.updatedAt}, ${r.createdAt})`;
    },
    async updateRule(s) {
      const r = s.rule;
      await sql`
        UPDATE alert_rules SET name = ${r.name}, condition_type = ${r.condition.type},
          condition_value = ${r.condition.value}, condition_monitor_ids = ${monitorIdsOf(s)},
          channel_type = ${r.channelType}, channel = ${JSON.stringify(r.channel)},
          signing_secret = ${s.secrets.current}, previous_signing_secret = ${s.secrets.previous},
          previous_secret_until = ${s.secrets.previousUntil}, enabled = ${r.enabled ? 1 : 0},
          updated_at = ${r.updatedAt}
        WHERE id = ${r.id}`;
    },
    async findRule(organizationId, id) {
      const [row] = await rules(sql`
        SELECT * FROM alert_rules WHERE id = ${id} AND organization_id = ${organizationId}`);
      return row ?? null;
    },
    async findRuleById(id) {
      const [row] = await rules(sql`SELECT * FROM alert_rules WHERE id = ${id}`);
      return row ?? null;
    },
    async page(organizationId, limit, offset) {
      const [page, [count]] = await Promise.all([
        rules(sql`
          SELECT * FROM alert_rules WHERE organization_id = ${organizationId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`),
        sql`SELECT count(*)::int AS n FROM alert_rules WHERE organization_id = ${organizationId}`,
      ]);
      return { rules: page.map((s) => s.rule), total: Number(count?.n ?? 0) };
    },
    allRules: async (organizationId) =>
      (
        await rules(sql`
          SELECT * FROM alert_rules WHERE organization_id = ${organizationId}
          ORDER BY created_at, id`)
      ).map((s) => s.rule),
    enabledRules: (organizationId) =>
      rules(sql`
        SELECT * FROM alert_rules WHERE organization_id = ${organizationId} AND enabled = 1`),
    enabledRulesOfType: (type) =>
      rules(sql`SELECT * FROM alert_rules WHERE condition_type = ${type} AND enabled = 1`),
    async removeRule(organizationId, id) {
      const gone = await sql`
        DELETE FROM alert_rules WHERE id = ${id} AND organization_id = ${organizationId}
        RETURNING id`;
      return gone.length > 0;
    },
    insertFiring: (firing) => insertFiringPostgres(sql, firing),
    async tenantsWithRules() {
      const rows: { id: string; plan: string | null }[] = await sql`
        SELECT o.id, o.plan FROM organizations o
         WHERE EXISTS (SELECT 1 FROM alert_rules r WHERE r.organization_id = o.id)`;
      return rows.map((row) => ({ id: row.id, plan: row.plan ?? "free" }));
    },
    async ruleIdsOf(organizationId) {
      const rows: { id: string }[] = await sql`
        SELECT id FROM alert_rules WHERE organization_id = ${organizationId}`;
      return rows.map((row) => row.id);
    },
    async firingsBefore(ruleId, beforeIso, after, limit) {
      const rows: { id: string; issue_id: string | null; created_at: string }[] = await sql`
        SELECT id, issue_id, created_at FROM alert_firings
         WHERE rule_id = ${ruleId} AND created_at < ${beforeIso}
           AND (created_at > ${after.createdAt} OR (created_at = ${after.createdAt} AND id > ${after.id}))
         ORDER BY created_at, id LIMIT ${limit}`;
      return rows.map((row) => ({ id: row.id, issueId: row.issue_id, createdAt: row.created_at }));
    },
    removeFirings: (ids) => deleteFirings(sql, ids),
    async findFiring(id) {
      const [row]: FiringRow[] = await sql`SELECT * FROM alert_firings WHERE id = ${id}`;
      return row ? toFiring(row) : null;
    },
    async firingsPage(ruleId, limit, offset) {
      const [rows, [count]] = await Promise.all([
        sql`SELECT * FROM alert_firings WHERE rule_id = ${ruleId}
            ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}` as Promise<
          FiringRow[]
        >,
        sql`SELECT count(*)::int AS n FROM alert_firings WHERE rule_id = ${ruleId}`,
      ]);
      return { firings: rows.map(toFiring), total: Number(count?.n ?? 0) };
    },
  };
}

/**
 * Each organization's mails of the current clock hour, counted in one `rate_buckets` row per
 * organization and hour that every node takes from (the row lock orders takes across nodes).
 * A node sweeps the rows of past hours the first time it takes in a new hour.
 */
export function createPostgresMailCounter(
  pg: PostgresDb,
  hourNow: () => number,
  perHour: number,
): (organizationId: string) => Promise<boolean> {
  const { sql } = pg;
  let swept = -1;
  return async (organizationId) => {
    const hour = hourNow();
    // Fixed width: keys of past hours sort before this hour's.
    const prefix = `alerts.mail:${String(hour).padStart(12, "0")}:`;
    if (hour !== swept) {
      swept = hour;
      await sql`DELETE FROM rate_buckets WHERE key LIKE 'alerts.mail:%' AND key < ${prefix}`;
    }
    const taken = await sql`
      INSERT INTO rate_buckets AS b (key, tokens, updated_at)
      VALUES (${prefix + organizationId}, ${perHour - 1}, ${hour})
      ON CONFLICT (key) DO UPDATE SET tokens = b.tokens - 1 WHERE b.tokens >= 1
      RETURNING 1`;
    return taken.length > 0;
  };
}
