import type { Action, ActionResult } from "./actions.model.ts";

/**
 * The actions room's storage of chains and run reads, on SQLite or PostgreSQL. Management
 * methods are organization-scoped; run reads go by endpoint or request.
 */
export interface ActionsStore {
  list(organizationId: string, endpointId: string): Promise<Action[]>;
  /** The endpoint's chain in run order, whoever asks (the capture path). */
  chain(endpointId: string): Promise<Action[]>;
  ofOrganization(organizationId: string): Promise<Action[]>;
  find(organizationId: string, endpointId: string, id: string): Promise<Action | null>;
  count(endpointId: string): Promise<number>;
  insert(action: Action): Promise<void>;
  /**
   * Appends the action at the end of the chain unless the endpoint already has `cap` actions
   * (null then); counted in the insert's transaction, so two appends cannot both take the last place.
   */
  append(action: Omit<Action, "position">, cap: number): Promise<Action | null>;
  update(action: Action): Promise<void>;
  /** Positions 0..n-1 in the order given, in one transaction. */
  reorder(ids: readonly string[]): Promise<void>;
  /** Deletes the action and moves the ones after it up (positions stay 0..n-1), in one transaction. */
  remove(organizationId: string, endpointId: string, id: string): Promise<boolean>;
  lastRun(requestId: string): Promise<ActionResult[] | null>;
  lastRuns(requestIds: readonly string[]): Promise<Map<string, ActionResult[]>>;
  variables(endpointId: string): Promise<Record<string, unknown>>;
}
