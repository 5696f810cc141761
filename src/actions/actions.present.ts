import type { Action } from "./actions.model.ts";

/** An action as the API shows it (interface.md, Action). */
export function presentAction(action: Action) {
  return {
    id: action.id,
    type: action.type,
    name: action.name,
    config: action.config,
    position: action.position,
    enabled: action.enabled,
    created_at: action.createdAt,
    updated_at: action.updatedAt,
  };
}
