import type { DbHandle } from "../db/db.tx.ts";
import { type AlertsRepo, createAlertsRepo } from "./alerts.repo.ts";
import type { AlertsStore } from "./alerts.store.ts";

/** The alerts store on SQLite: the unchanged synchronous repo, answered as promises. */
export function createAlertsSqliteStore(
  db: DbHandle,
  repo: AlertsRepo = createAlertsRepo(db),
): AlertsStore {
  return {
    insertRule: async (stored) => repo.insertRule(stored),
    updateRule: async (stored) => repo.updateRule(stored),
    findRule: async (organizationId, id) => repo.findRule(organizationId, id),
    findRuleById: async (id) => repo.findRuleById(id),
    page: async (organizationId, limit, offset) => repo.page(organizationId, limit, offset),
    allRules: async (organizationId) => repo.allRules(organizationId),
    enabledRules: async (organizationId) => repo.enabledRules(organizationId),
    enabledRulesOfType: async (type) => repo.enabledRulesOfType(type),
    removeRule: async (organizationId, id) => repo.removeRule(organizationId, id),
    insertFiring: async (firing) => repo.insertFiring(firing),
    tenantsWithRules: async () => repo.tenantsWithRules(),
    ruleIdsOf: async (organizationId) => repo.ruleIdsOf(organizationId),
    firingsBefore: async (ruleId, beforeIso, after, limit) =>
      repo.firingsBefore(ruleId, beforeIso, after, limit),
    removeFirings: async (ids) => repo.removeFirings(ids),
    findFiring: async (id) => repo.findFiring(id),
    firingsPage: async (ruleId, limit, offset) => repo.firingsPage(ruleId, limit, offset),
  };
}
