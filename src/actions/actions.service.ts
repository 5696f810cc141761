import type { Endpoint } from "../endpoints/endpoints.model.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import { actionErrors } from "./actions.errors.ts";
import type { Action } from "./actions.model.ts";
import type { ActionsStore } from "./actions.store.ts";
import { type UrlCheck, validateActionChanges, validateNewAction } from "./actions.validate.ts";

export interface ActionsDeps {
  store: ActionsStore;
  requireEndpoint(organizationId: string, endpointId: string): Promise<Endpoint>;
  plans: PlanTable;
  clock: Clock;
  ids: Ids;
  checkUrl: UrlCheck;
  /** Told after every committed change of an endpoint's chain (the capture path caches chains). */
  changed(endpointId: string): void;
}

/** The organization asking, with the plan whose quota applies. */
export interface Tenant {
  organizationId: string;
  plan: Plan;
}

/** The endpoint's actions in run order; 404 unless the endpoint is the organization's. */
export async function listActions(
  tenant: Tenant,
  endpointId: string,
  deps: ActionsDeps,
): Promise<Action[]> {
  await deps.requireEndpoint(tenant.organizationId, endpointId);
  return deps.store.list(tenant.organizationId, endpointId);
}

export async function getAction(
  tenant: Tenant,
  endpointId: string,
  id: string,
  deps: ActionsDeps,
): Promise<Action> {
  await deps.requireEndpoint(tenant.organizationId, endpointId);
  const action = await deps.store.find(tenant.organizationId, endpointId, id);
  if (!action) throw actionErrors.notFound();
  return action;
}

/**
 * Appends an action to the chain (decisions.md §3): 403 `feature_not_available` on a plan without
 * automations, 422 by field, 403 `action_limit_reached` at the plan's cap (counted in the insert's
 * transaction, so two creates at once cannot both pass the last place).
 */
export async function createAction(
  tenant: Tenant,
  endpointId: string,
  body: unknown,
  deps: ActionsDeps,
): Promise<Action> {
  const endpoint = await deps.requireEndpoint(tenant.organizationId, endpointId);
  const cap = deps.plans[tenant.plan].actions_per_endpoint;
  if (cap <= 0) throw actionErrors.featureNotAvailable();
  const fields = validateNewAction(body, deps.checkUrl);
  const now = isoAt(deps.clock.now());
  const action = await deps.store.append(
    {
      id: deps.ids.uuid(),
      organizationId: tenant.organizationId,
      endpointId: endpoint.id,
      ...fields,
      createdAt: now,
      updatedAt: now,
    },
    cap,
  );
  if (!action) throw actionErrors.limitReached();
  deps.changed(endpoint.id);
  return action;
}

/** Changes name, config (checked against the action's type) and/or enabled. */
export async function updateAction(
  tenant: Tenant,
  endpointId: string,
  id: string,
  body: unknown,
  deps: ActionsDeps,
): Promise<Action> {
  const current = await getAction(tenant, endpointId, id, deps);
  const changes = validateActionChanges(body, current.type, deps.checkUrl);
  const updated: Action = {
    ...current,
    name: changes.name ?? current.name,
    config: changes.config ?? current.config,
    enabled: changes.enabled ?? current.enabled,
    updatedAt: isoAt(deps.clock.now()),
  };
  await deps.store.update(updated);
  deps.changed(current.endpointId);
  return updated;
}

/** Deletes an action; the ones after it move up, so positions stay 0..n-1. */
export async function deleteAction(
  tenant: Tenant,
  endpointId: string,
  id: string,
  deps: ActionsDeps,
): Promise<void> {
  await deps.requireEndpoint(tenant.organizationId, endpointId);
  if (!(await deps.store.remove(tenant.organizationId, endpointId, id))) {
    throw actionErrors.notFound();
  }
  deps.changed(endpointId);
}

/**
 * Puts the chain in the order of `action_ids`, which must name every action of the endpoint
 * exactly once (interface.md, reorder); 422 `action_ids` otherwise.
 */
export async function reorderActions(
  tenant: Tenant,
  endpointId: string,
  body: unknown,
  deps: ActionsDeps,
): Promise<Action[]> {
  await deps.requireEndpoint(tenant.organizationId, endpointId);
  const ids = (body as { action_ids?: unknown } | null)?.action_ids;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) {
    throw actionErrors.badOrder("must be an array of action ids");
  }
  const current = new Set(
    (await deps.store.list(tenant.organizationId, endpointId)).map((a) => a.id),
  );
  const given = new Set(ids as string[]);
  if (given.size !== ids.length) throw actionErrors.badOrder("lists an action more than once");
  const unknown = (ids as string[]).filter((id) => !current.has(id));
  if (unknown.length > 0) throw actionErrors.badOrder(`unknown action ids: ${unknown.join(", ")}`);
  if (given.size !== current.size) {
    throw actionErrors.badOrder("must list every action of the endpoint");
  }
  await deps.store.reorder(ids as string[]);
  const reordered = await deps.store.list(tenant.organizationId, endpointId);
  deps.changed(endpointId);
  return reordered;
}
