import type { PostgresDb, PostgresSql } from "../db/db.postgres-handle.ts";
import type { Action, ActionResult, ActionType } from "./actions.model.ts";
import type { ActionsStore } from "./actions.store.ts";

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

const toAction = (row: ActionRow): Action => ({
  id: row.id,
  organizationId: row.organizationId,
  endpointId: row.endpointId,
  type: row.type as ActionType,
  name: row.name,
  config: JSON.parse(row.config) as Record<string, unknown>,
  position: row.position,
  enabled: row.enabled === 1,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** The PostgreSQL ActionsStore: the same rows and order as the SQLite repo gives. */
export function createActionsPostgresStore(pg: PostgresDb): ActionsStore {
  const { sql } = pg;
  const columns = sql`id, organization_id AS "organizationId", endpoint_id AS "endpointId", type,
    name, config, position, enabled, created_at AS "createdAt", updated_at AS "updatedAt"`;
  const actions = (rows: ActionRow[]) => rows.map(toAction);
  const lastRun = async (requestId: string): Promise<ActionResult[] | null> => {
    const [row] = await sql`SELECT results FROM action_runs WHERE request_id = ${requestId}
      ORDER BY id DESC LIMIT 1`;
    return row ? (JSON.parse(row.results) as ActionResult[]) : null;
  };
  const insert = (tx: PostgresSql, action: Action) =>
    tx`INSERT INTO endpoint_actions (id, organization_id, endpoint_id, type, name, config,
        position, enabled, created_at, updated_at)
      VALUES (${action.id}, ${action.organizationId}, ${action.endpointId}, ${action.type},
        ${action.name}, ${JSON.stringify(action.config)}, ${action.position},
        ${action.enabled ? 1 : 0}, ${action.createdAt}, ${action.updatedAt})`;
  /** Serializes the chain changes of one endpoint across nodes until the transaction ends. */
  const lockChain = (tx: PostgresSql, endpointId: string) =>
    tx`SELECT pg_advisory_xact_lock(hashtext(${`endpoint_actions:${endpointId}`}))`;
  return {
    list: async (organizationId, endpointId) =>
      actions(
        await sql`SELECT ${columns} FROM endpoint_actions
        WHERE organization_id = ${organizationId} AND endpoint_id = ${endpointId}
        ORDER BY position, created_at`,
      ),
    chain: async (endpointId) =>
      actions(
        await sql`SELECT ${columns} FROM endpoint_actions
        WHERE endpoint_id = ${endpointId} ORDER BY position, created_at`,
      ),
    ofOrganization: async (organizationId) =>
      actions(
        await sql`SELECT ${columns} FROM endpoint_actions
        WHERE organization_id = ${organizationId}`,
      ),
    async find(organizationId, endpointId, id) {
      const [row] = await sql`SELECT ${columns} FROM endpoint_actions
        WHERE organization_id = ${organizationId} AND endpoint_id = ${endpointId} AND id = ${id}`;
      return row ? toAction(row) : null;
    },
    async count(endpointId) {
      const [row] = await sql`SELECT count(*)::integer AS n FROM endpoint_actions
        WHERE endpoint_id = ${endpointId}`;
      return row?.n ?? 0;
    },
    async insert(action) {
      await insert(sql, action);
    },
    append: (fields, cap) =>
      sql.begin(async (tx) => {
        await lockChain(tx, fields.endpointId);
        const [row] = await tx`SELECT count(*)::integer AS n FROM endpoint_actions
          WHERE endpoint_id = ${fields.endpointId}`;
        const count: number = row?.n ?? 0;
        if (count >= cap) return null;
        const action: Action = { ...fields, position: count };
        await insert(tx, action);
        return action;
      }),
    async update(action) {
      await sql`UPDATE endpoint_actions SET name = ${action.name},
          config = ${JSON.stringify(action.config)}, enabled = ${action.enabled ? 1 : 0},
          updated_at = ${action.updatedAt}
        WHERE organization_id = ${action.organizationId} AND id = ${action.id}`;
    },
    async reorder(ids) {
      await sql.begin(async (tx) => {
        for (const [position, id] of ids.entries()) {
          await tx`UPDATE endpoint_actions SET position = ${position} WHERE id = ${id}`;
        }
      });
    },
    remove: (organizationId, endpointId, id) =>
      sql.begin(async (tx) => {
        await lockChain(tx, endpointId);
        const result = await tx`DELETE FROM endpoint_actions
          WHERE organization_id = ${organizationId} AND endpoint_id = ${endpointId} AND id = ${id}`;
        if (result.count === 0) return false;
        await tx`UPDATE endpoint_actions SET position = ranked.n - 1
          FROM (SELECT id, row_number() OVER (ORDER BY position, created_at) AS n
            FROM endpoint_actions
            WHERE organization_id = ${organizationId} AND endpoint_id = ${endpointId}) ranked
          WHERE endpoint_actions.id = ranked.id`;
        return true;
      }),
    lastRun,
    async lastRuns(requestIds) {
      const found = new Map<string, ActionResult[]>();
      for (const requestId of requestIds) {
        const results = await lastRun(requestId);
        if (results) found.set(requestId, results);
      }
      return found;
    },
    async variables(endpointId) {
      const out: Record<string, unknown> = {};
      const rows = await sql`SELECT name, value FROM endpoint_variables
        WHERE endpoint_id = ${endpointId}`;
      for (const row of rows) out[row.name] = JSON.parse(row.value);
      return out;
    },
  };
}
