import type { DbHandle } from "../db/db.tx.ts";
import type { FiringSnapshot } from "./alert-message.model.ts";
import {
  type AlertChannelType,
  type AlertRule,
  type ChannelSettings,
  type ConditionType,
  MONITOR_CONDITIONS,
} from "./alerts.model.ts";
import type { ApiKeySnapshot } from "./api-key-alert.model.ts";

export interface RuleRow {
  id: string;
  organization_id: string;
  name: string;
  condition_type: ConditionType;
  condition_value: number | null;
  condition_monitor_ids: string | null;
  channel_type: AlertChannelType;
  channel: string;
  signing_secret: string | null;
  previous_signing_secret: string | null;
  previous_secret_until: number | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

/** A webhook channel's sealed signing secrets: the current one, and one a rotation replaced. */
export interface SealedSecrets {
  current: string | null;
  previous: string | null;
  /** Epoch ms until which `previous` still signs. */
  previousUntil: number | null;
}

export const NO_SECRETS: SealedSecrets = { current: null, previous: null, previousUntil: null };

/** A rule as stored, with its webhook channel's sealed secrets (they never leave the room). */
export interface StoredRule {
  rule: AlertRule;
  secrets: SealedSecrets;
}

/**
 * One alert a rule raised (the subject of its delivery). A key event's firing keeps the key's
 * id in `issueId` (the column that makes a firing once per subject) and an ApiKeySnapshot.
 */
export interface AlertFiring {
  id: string;
  organizationId: string;
  ruleId: string;
  issueId: string | null;
  conditionKey: string;
  test: boolean;
  snapshot: FiringSnapshot | ApiKeySnapshot;
  createdAt: string;
}

export interface FiringRow {
  id: string;
  organization_id: string;
  rule_id: string;
  issue_id: string | null;
  condition_key: string;
  test: number;
  payload: string;
  created_at: string;
}

export const toStored = (row: RuleRow): StoredRule => ({
  rule: {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    condition: {
      type: row.condition_type,
      value: row.condition_value,
      ...(row.condition_monitor_ids !== null || MONITOR_CONDITIONS.includes(row.condition_type)
        ? { monitorIds: row.condition_monitor_ids && JSON.parse(row.condition_monitor_ids) }
        : {}),
    },
    channelType: row.channel_type,
    channel: JSON.parse(row.channel) as ChannelSettings,
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  },
  secrets: {
    current: row.signing_secret,
    previous: row.previous_signing_secret,
    previousUntil: row.previous_secret_until,
  },
});

export const toFiring = (row: FiringRow): AlertFiring => ({
  id: row.id,
  organizationId: row.organization_id,
  ruleId: row.rule_id,
  issueId: row.issue_id,
  conditionKey: row.condition_key,
  test: row.test === 1,
  snapshot: JSON.parse(row.payload) as FiringSnapshot | ApiKeySnapshot,
  createdAt: row.created_at,
});

type RuleValues = [
  string,
  string,
  number | null,
  string,
  string,
  string | null,
  string | null,
  number | null,
  number,
  string,
];

/** All SQL of the alerts room; every read a caller can name is scoped to its organization. */
export function createAlertsRepo(db: DbHandle) {
  const { sqlite } = db;
  const insertRule = sqlite.prepare<unknown, [string, string, ...RuleValues, string]>(
    `INSERT INTO alert_rules (id, organization_id, name, condition_type, condition_value,
       channel_type, channel, signing_secret, previous_signing_secret, previous_secret_until,
       enabled, updated_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateRule = sqlite.prepare<unknown, [...RuleValues, string]>(
    `UPDATE alert_rules SET name = ?, condition_type = ?, condition_value = ?, channel_type = ?,
       channel = ?, signing_secret = ?, previous_signing_secret = ?, previous_secret_until = ?,
       enabled = ?, updated_at = ? WHERE id = ?`,
  );
  const byId = sqlite.prepare<RuleRow, [string]>("SELECT * FROM alert_rules WHERE id = ?");
  const page = sqlite.prepare<RuleRow, [string, number, number]>(
    `SELECT * FROM alert_rules WHERE organization_id = ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const count = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM alert_rules WHERE organization_id = ?",
  );
  const allOf = sqlite.prepare<RuleRow, [string]>(
    "SELECT * FROM alert_rules WHERE organization_id = ? ORDER BY created_at, id",
  );
  const enabledOf = sqlite.prepare<RuleRow, [string]>(
    "SELECT * FROM alert_rules WHERE organization_id = ? AND enabled = 1",
  );
  const enabledOfType = sqlite.prepare<RuleRow, [string]>(
    "SELECT * FROM alert_rules WHERE condition_type = ? AND enabled = 1",
  );
  const setMonitorIds = sqlite.prepare<unknown, [string | null, string]>(
    "UPDATE alert_rules SET condition_monitor_ids = ? WHERE id = ?",
  );
  const monitorIdsOf = (s: StoredRule) =>
    s.rule.condition.monitorIds ? JSON.stringify(s.rule.condition.monitorIds) : null;
  const remove = sqlite.prepare<unknown, [string, string]>(
    "DELETE FROM alert_rules WHERE id = ? AND organization_id = ?",
  );
  const insertFiring = sqlite.prepare<
    unknown,
    [string, string, string, string | null, string, number, string, string]
  >(
    `INSERT INTO alert_firings (id, organization_id, rule_id, issue_id, condition_key, test, payload, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rule_id, issue_id, condition_key) DO NOTHING`,
  );
  const firingById = sqlite.prepare<FiringRow, [string]>(
    "SELECT * FROM alert_firings WHERE id = ?",
  );
  const firingsPage = sqlite.prepare<FiringRow, [string, number, number]>(
    `SELECT * FROM alert_firings WHERE rule_id = ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const firingsCount = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM alert_firings WHERE rule_id = ?",
  );
  const tenants = sqlite.prepare<{ id: string; plan: string | null }, []>(
    `SELECT o.id, o.plan FROM organizations o
      WHERE EXISTS (SELECT 1 FROM alert_rules r WHERE r.organization_id = o.id)`,
  );
  const ruleIdsOf = sqlite.prepare<{ id: string }, [string]>(
    "SELECT id FROM alert_rules WHERE organization_id = ?",
  );
  // The (rule_id, created_at) index walks a rule's oldest firings; (created_at, id) is the cursor.
  const oldFirings = sqlite.prepare<
    { id: string; issue_id: string | null; created_at: string },
    [string, string, string, string, number]
  >(
    `SELECT id, issue_id, created_at FROM alert_firings
      WHERE rule_id = ?1 AND created_at < ?2 AND (created_at > ?3 OR (created_at = ?3 AND id > ?4))
      ORDER BY created_at, id LIMIT ?5`,
  );
  const removeFiring = sqlite.prepare<unknown, [string]>("DELETE FROM alert_firings WHERE id = ?");
  const values = (s: StoredRule): RuleValues => [
    s.rule.name,
    s.rule.condition.type,
    s.rule.condition.value,
    s.rule.channelType,
    JSON.stringify(s.rule.channel),
    s.secrets.current,
    s.secrets.previous,
    s.secrets.previousUntil,
    s.rule.enabled ? 1 : 0,
    s.rule.updatedAt,
  ];
  return {
    insertRule(stored: StoredRule): void {
      insertRule.run(
        stored.rule.id,
        stored.rule.organizationId,
        ...values(stored),
        stored.rule.createdAt,
      );
      setMonitorIds.run(monitorIdsOf(stored), stored.rule.id);
    },
    updateRule(stored: StoredRule): void {
      updateRule.run(...values(stored), stored.rule.id);
      setMonitorIds.run(monitorIdsOf(stored), stored.rule.id);
    },
    /** The organization's rule, or null (another organization's rule is null too). */
    findRule(organizationId: string, id: string): StoredRule | null {
      const row = byId.get(id);
      return row && row.organization_id === organizationId ? toStored(row) : null;
    },
    /** A rule by id alone: for send time, where the delivery row names the organization. */
    findRuleById(id: string): StoredRule | null {
      const row = byId.get(id);
      return row ? toStored(row) : null;
    },
    page(organizationId: string, limit: number, offset: number) {
      return {
        rules: page.all(organizationId, limit, offset).map((row) => toStored(row).rule),
        total: count.get(organizationId)?.n ?? 0,
      };
    },
    /** Every rule of the organization, oldest first. */
    allRules: (organizationId: string) =>
      allOf.all(organizationId).map((row) => toStored(row).rule),
    enabledRules: (organizationId: string) => enabledOf.all(organizationId).map(toStored),
    enabledRulesOfType: (type: ConditionType) => enabledOfType.all(type).map(toStored),
    removeRule: (organizationId: string, id: string) => remove.run(id, organizationId).changes > 0,
    /** False when the rule already fired for this issue under this condition. */
    insertFiring(firing: AlertFiring): boolean {
      const f = firing;
      return (
        insertFiring.run(
          f.id,
          f.organizationId,
          f.ruleId,
          f.issueId,
          f.conditionKey,
          f.test ? 1 : 0,
          JSON.stringify(f.snapshot),
          f.createdAt,
        ).changes > 0
      );
    },
    /** Organizations that have alert rules, with their plan (for the retention sweep). */
    tenantsWithRules: () => tenants.all().map((row) => ({ id: row.id, plan: row.plan ?? "free" })),
    ruleIdsOf: (organizationId: string) => ruleIdsOf.all(organizationId).map((row) => row.id),
    /** A rule's firings created before `beforeIso`, oldest first, after the cursor. */
    firingsBefore(
      ruleId: string,
      beforeIso: string,
      after: { createdAt: string; id: string },
      limit: number,
    ) {
      return oldFirings
        .all(ruleId, beforeIso, after.createdAt, after.id, limit)
        .map((row) => ({ id: row.id, issueId: row.issue_id, createdAt: row.created_at }));
    },
    removeFirings(ids: readonly string[]): void {
      for (const id of ids) removeFiring.run(id);
    },
    findFiring(id: string): AlertFiring | null {
      const row = firingById.get(id);
      return row ? toFiring(row) : null;
    },
    firingsPage(ruleId: string, limit: number, offset: number) {
      return {
        firings: firingsPage.all(ruleId, limit, offset).map(toFiring),
        total: firingsCount.get(ruleId)?.n ?? 0,
      };
    },
  };
}

export type AlertsRepo = ReturnType<typeof createAlertsRepo>;
