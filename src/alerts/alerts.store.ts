import type { AlertRule, ConditionType } from "./alerts.model.ts";
import type { AlertFiring, StoredRule } from "./alerts.repo.ts";

/** A firing old enough for the retention sweep to weigh. */
export interface OldFiring {
  id: string;
  issueId: string | null;
  createdAt: string;
}

/**
 * The alerts room's storage, on SQLite or PostgreSQL. Every read a caller can name is scoped to
 * its organization; each method is a whole unit (its own transaction where it needs one).
 */
export interface AlertsStore {
  insertRule(stored: StoredRule): Promise<void>;
  updateRule(stored: StoredRule): Promise<void>;
  /** The organization's rule, or null (another organization's rule is null too). */
  findRule(organizationId: string, id: string): Promise<StoredRule | null>;
  /** A rule by id alone: for send time, where the delivery row names the organization. */
  findRuleById(id: string): Promise<StoredRule | null>;
  /** Newest first (created_at, then id, descending). */
  page(
    organizationId: string,
    limit: number,
    offset: number,
  ): Promise<{ rules: AlertRule[]; total: number }>;
  /** Every rule of the organization, oldest first. */
  allRules(organizationId: string): Promise<AlertRule[]>;
  enabledRules(organizationId: string): Promise<StoredRule[]>;
  enabledRulesOfType(type: ConditionType): Promise<StoredRule[]>;
  /** False when the organization has no such rule. */
  removeRule(organizationId: string, id: string): Promise<boolean>;
  /** False when the rule already fired for this issue under this condition (on any node). */
  insertFiring(firing: AlertFiring): Promise<boolean>;
  /** Organizations that have alert rules, with their plan (for the retention sweep). */
  tenantsWithRules(): Promise<{ id: string; plan: string }[]>;
  ruleIdsOf(organizationId: string): Promise<string[]>;
  /** A rule's firings created before `beforeIso`, oldest first, after the cursor. */
  firingsBefore(
    ruleId: string,
    beforeIso: string,
    after: { createdAt: string; id: string },
    limit: number,
  ): Promise<OldFiring[]>;
  removeFirings(ids: readonly string[]): Promise<void>;
  findFiring(id: string): Promise<AlertFiring | null>;
  /** A rule's firings, newest first. */
  firingsPage(
    ruleId: string,
    limit: number,
    offset: number,
  ): Promise<{ firings: AlertFiring[]; total: number }>;
}

/** What the firing paths on PostgreSQL read and write inside a transaction another room holds. */
export interface AlertsInTransaction<Tx> {
  enabledRules(tx: Tx, organizationId: string): Promise<StoredRule[]>;
  /** False when the rule already fired under this subject's key (on any node). */
  insertFiring(tx: Tx, firing: AlertFiring): Promise<boolean>;
  removeFirings(tx: Tx, ids: readonly string[]): Promise<void>;
  /** `ended` settles once `tx` has committed or rolled back (for work that must follow it). */
  endOf(tx: Tx): Promise<{ ended: Promise<void> }>;
}
