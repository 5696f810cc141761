/** Which templates an action can use: what the request offers plus what earlier actions set. */
import type { ActionConfig, ActionType } from "./actions.api.ts";

interface Earlier {
  type: ActionType;
  config: ActionConfig;
  enabled: boolean;
}

const REQUEST_TEMPLATES = [
  "$request.method$",
  "$request.body.json$",
  "$request.body.<path>$",
  "$request.headers.<name>$",
  "$request.query.<name>$",
];

/** Variables a script sets by `variables.name = …`; a returned object's members can't be read statically. */
function scriptVariables(code: unknown): string[] {
  if (typeof code !== "string") return [];
  return [...code.matchAll(/variables\.([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]/g)].map((m) => m[1] ?? "");
}

function variablesOf(action: Earlier): string[] {
  const config = action.config;
  if (action.type === "extract_json" && Array.isArray(config.extractions))
    return config.extractions
      .map((e) => (e as { variable?: unknown }).variable)
      .filter((v): v is string => typeof v === "string" && v !== "");
  if (action.type === "store_variable" && typeof config.name === "string" && config.name)
    return [config.name];
  if (action.type === "run_script") return scriptVariables(config.code);
  return [];
}

/**
 * The templates available to the action at `position` of `chain` (the actions before it, in
 * order): the request's, each variable an earlier enabled action sets, and the last answer's after
 * an http_request.
 */
export function templatesAt(chain: readonly Earlier[], position: number): string[] {
  const before = chain.slice(0, position).filter((a) => a.enabled);
  const variables = [...new Set(before.flatMap(variablesOf))].map((v) => `$${v}$`);
  const http = before.some((a) => a.type === "http_request")
    ? ["$http.status$", "$http.body$", "$http.body.<path>$"]
    : [];
  return [...REQUEST_TEMPLATES, ...variables, ...http];
}

/** The order after moving the item at `index` by `step` (−1 up, +1 down); the same array at an edge. */
export function moved<T>(items: readonly T[], index: number, step: -1 | 1): readonly T[] {
  const target = index + step;
  if (target < 0 || target >= items.length) return items;
  const next = [...items];
  [next[index], next[target]] = [next[target] as T, next[index] as T];
  return next;
}
