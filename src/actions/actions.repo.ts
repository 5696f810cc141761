import type { DbHandle } from "../db/db.tx.ts";
import type { Plan } from "../shared/plans.ts";
import type { Action, ActionResult, ActionType } from "./actions.model.ts";

interface ActionRow {
  id: string;
  organizationId: string;
  endpointId: string;
  type: string;
  name: string;
  config: string;
  position: number;
  enabled: number;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `id, organization_id AS organizationId, endpoint_id AS endpointId, type, name, config,
  position, enabled, created_at AS createdAt, updated_at AS updatedAt`;

/** A run still owed to a capture (a crash came between its commit and its run). */
export interface DueRun {
  requestId: string;
  endpointId: string;
  organizationId: string;
  plan: Plan;
}

const toAction = (row: ActionRow): Action => ({
  ...row,
  type: row.type as ActionType,
  config: JSON.parse(row.config) as Record<string, unknown>,
  enabled: row.enabled === 1,
});

/** All SQL of the actions room. Management reads are organization-scoped; runs go by endpoint. */
export function createActionsRepo(db: DbHandle) {
  const { sqlite } = db;
  const list = sqlite.prepare<ActionRow, [string, string]>(
    `SELECT ${COLUMNS} FROM endpoint_actions WHERE organization_id = ? AND endpoint_id = ?
     ORDER BY position, created_at`,
  );
  const ofOrganization = sqlite.prepare<ActionRow, [string]>(
    `SELECT ${COLUMNS} FROM endpoint_actions WHERE organization_id = ?`,
  );
  const chain = sqlite.prepare<ActionRow, [string]>(
    `SELECT ${COLUMNS} FROM endpoint_actions WHERE endpoint_id = ? ORDER BY position, created_at`,
  );
  const one = sqlite.prepare<ActionRow, [string, string, string]>(
    `SELECT ${COLUMNS} FROM endpoint_actions
     WHERE organization_id = ? AND endpoint_id = ? AND id = ?`,
  );
  const count = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM endpoint_actions WHERE endpoint_id = ?",
  );
  const insert = sqlite.prepare(
    `INSERT INTO endpoint_actions (id, organization_id, endpoint_id, type, name, config, position,
       enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = sqlite.prepare(
    `UPDATE endpoint_actions SET name = ?, config = ?, enabled = ?, updated_at = ?
     WHERE organization_id = ? AND id = ?`,
  );
  const move = sqlite.prepare("UPDATE endpoint_actions SET position = ? WHERE id = ?");
  const remove = sqlite.prepare(
    "DELETE FROM endpoint_actions WHERE organization_id = ? AND endpoint_id = ? AND id = ?",
  );
  const insertRun = sqlite.prepare(
    `INSERT INTO action_runs (id, request_id, endpoint_id, trigger, results, created_at)
     SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM captured_requests WHERE id = ?)`,
  );
  const lastRun = sqlite.prepare<{ results: string }, [string]>(
    "SELECT results FROM action_runs WHERE request_id = ? ORDER BY id DESC LIMIT 1",
  );
  const variables = sqlite.prepare<{ name: string; value: string }, [string]>(
    "SELECT name, value FROM endpoint_variables WHERE endpoint_id = ?",
  );
  const setVariable = sqlite.prepare(
    `INSERT INTO endpoint_variables (endpoint_id, name, value, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (endpoint_id, name) DO UPDATE SET value = excluded.value,
       updated_at = excluded.updated_at`,
  );
  const endpointLive = sqlite.prepare<{ one: number }, [string]>(
    "SELECT 1 AS one FROM debug_endpoints WHERE id = ? AND deleted_at IS NULL",
  );
  const insertDue = sqlite.prepare(
    `INSERT OR IGNORE INTO action_runs_due (request_id, endpoint_id, organization_id, created_at)
     VALUES (?, ?, ?, ?)`,
  );
  const deleteDue = sqlite.prepare("DELETE FROM action_runs_due WHERE request_id = ?");
  // The plan is read with the row: a plan lowered since the capture decides what is still owed.
  const listDue = sqlite.prepare<DueRun, [string, number]>(
    `SELECT d.request_id AS requestId, d.endpoint_id AS endpointId,
       d.organization_id AS organizationId, o.plan AS plan
     FROM action_runs_due d JOIN organizations o ON o.id = d.organization_id
     WHERE d.created_at < ? ORDER BY d.created_at, d.request_id LIMIT ?`,
  );
  return {
    /** Notes a run owed to a capture; called in the capture's own transaction. */
    owe(requestId: string, endpointId: string, organizationId: string, at: string): void {
      insertDue.run(requestId, endpointId, organizationId, at);
    },
    /** Owed runs of captures made before `beforeIso`, oldest first. */
    listDue: (beforeIso: string, limit: number) => listDue.all(beforeIso, limit),
    settleDue: (requestId: string) => void deleteDue.run(requestId),
    list: (organizationId: string, endpointId: string) =>
      list.all(organizationId, endpointId).map(toAction),
    /** The endpoint's chain in run order, whoever asks (the capture path). */
    chain: (endpointId: string) => chain.all(endpointId).map(toAction),
    /** Every action of the organization, whatever its endpoint (a secret's users). */
    ofOrganization: (organizationId: string) => ofOrganization.all(organizationId).map(toAction),
    find(organizationId: string, endpointId: string, id: string): Action | null {
      const row = one.get(organizationId, endpointId, id);
      return row ? toAction(row) : null;
    },
    count: (endpointId: string) => count.get(endpointId)?.n ?? 0,
    insert(action: Action): void {
      insert.run(
        action.id,
        action.organizationId,
        action.endpointId,
        action.type,
        action.name,
        JSON.stringify(action.config),
        action.position,
        action.enabled ? 1 : 0,
        action.createdAt,
        action.updatedAt,
      );
    },
    update(action: Action): void {
      update.run(
        action.name,
        JSON.stringify(action.config),
        action.enabled ? 1 : 0,
        action.updatedAt,
        action.organizationId,
        action.id,
      );
    },
    /** Positions 0..n-1 in the order given. */
    reorder(ids: readonly string[]): void {
      for (const [position, id] of ids.entries()) move.run(position, id);
    },
    remove: (organizationId: string, endpointId: string, id: string) =>
      remove.run(organizationId, endpointId, id).changes > 0,
    /** Records a run; nothing when the request is already gone (deleted while the chain ran). */
    insertRun(run: {
      id: string;
      requestId: string;
      endpointId: string;
      trigger: "capture" | "manual";
      results: ActionResult[];
      createdAt: string;
    }): boolean {
      const { id, requestId, endpointId, trigger, createdAt } = run;
      const results = JSON.stringify(run.results);
      return (
        insertRun.run(id, requestId, endpointId, trigger, results, createdAt, requestId).changes > 0
      );
    },
    lastRun(requestId: string): ActionResult[] | null {
      const row = lastRun.get(requestId);
      return row ? (JSON.parse(row.results) as ActionResult[]) : null;
    },
    /** The latest run of each request that has one. */
    lastRuns(requestIds: readonly string[]): Map<string, ActionResult[]> {
      const found = new Map<string, ActionResult[]>();
      for (const requestId of requestIds) {
        const row = lastRun.get(requestId);
        if (row) found.set(requestId, JSON.parse(row.results) as ActionResult[]);
      }
      return found;
    },
    variables(endpointId: string): Record<string, unknown> {
      const out: Record<string, unknown> = {};
      for (const row of variables.all(endpointId)) out[row.name] = JSON.parse(row.value);
      return out;
    },
    setVariable(endpointId: string, name: string, value: unknown, at: string): void {
      setVariable.run(endpointId, name, JSON.stringify(value ?? null), at);
    },
    /** An endpoint deleted meanwhile takes no new variables (its rows go with it). */
    endpointLive: (endpointId: string) => endpointLive.get(endpointId) !== null,
  };
}

export type ActionsRepo = ReturnType<typeof createActionsRepo>;
