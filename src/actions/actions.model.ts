// Pure rules of endpoint actions (interface.md, Action; decisions.md §12, §13): the types, what a
// run records, and the `$…$` templates. No I/O.

export const ACTION_TYPES = [
  "condition",
  "extract_json",
  "http_request",
  "run_script",
  "store_variable",
  "modify_response",
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const NAME_MAX = 255;

/** One action as stored; `config` has been checked against its type's schema. */
export interface Action {
  id: string;
  organizationId: string;
  endpointId: string;
  type: ActionType;
  name: string;
  config: Record<string, unknown>;
  position: number;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ActionStatus = "ok" | "skipped" | "error";

/** One action's outcome in a run (decisions.md §13). */
export interface ActionResult {
  action_id: string;
  type: ActionType;
  status: ActionStatus;
  duration_ms: number;
  output: unknown;
  error: string | null;
}

/** The captured request as actions see it: what templates, conditions and scripts read. */
export interface ActionRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The body text (templates' `$request.body.json$`). */
  bodyText: string;
  /** The parsed body when it is JSON, else the text. */
  body: unknown;
}

/** The last `http_request` answer of a run (`$http.status$`, `$http.body.<path>$`). */
export interface HttpAnswer {
  status: number | null;
  body: unknown;
}

/** What the actions of one run share: the request, the variables so far, the last answer. */
export interface RunState {
  request: ActionRequest;
  variables: Record<string, unknown>;
  http: HttpAnswer | null;
}

/** Builds the view of a request from its stored parts. */
export function actionRequest(input: {
  method: string;
  path: string;
  queryString: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
}): ActionRequest {
  const bodyText =
    typeof input.body === "string" ? input.body : new TextDecoder().decode(input.body);
  return {
    method: input.method,
    path: input.path,
    query: Object.fromEntries(new URLSearchParams(input.queryString)),
    headers: input.headers,
    bodyText,
    body: parseJson(bodyText),
  };
}

/** Parsed JSON, or the text itself when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const TEMPLATE = /\$([A-Za-z_][A-Za-z0-9_\-.[\]]*)\$/g;
const WHOLE_TEMPLATE = /^\$([A-Za-z_][A-Za-z0-9_\-.[\]]*)\$$/;

/**
 * The value a template names (decisions.md §12): `request.method`, `request.body.json` (the whole
 * body text), `request.body.<path>`, `request.headers.<name>`, `request.query.<name>`,
 * `http.status`, `http.body.<path>`, or a variable. Undefined when nothing is there.
 */
export function templateValue(name: string, state: RunState): unknown {
  if (name === "request.method") return state.request.method;
  if (name === "request.path") return state.request.path;
  if (name === "request.body.json" || name === "request.body") return state.request.bodyText;
  if (name.startsWith("request.body.")) return lookup(state.request.body, name.slice(13));
  if (name.startsWith("request.headers.")) {
    return state.request.headers[name.slice(16).toLowerCase()];
  }
  if (name.startsWith("request.query.")) return state.request.query[name.slice(14)];
  if (name === "http.status") return state.http?.status ?? undefined;
  if (name === "http.body") return state.http ? asText(state.http.body) : undefined;
  if (name.startsWith("http.body.")) return lookup(state.http?.body, name.slice(10));
  if (Object.hasOwn(state.variables, name)) return state.variables[name];
  return lookup(state.variables, name);
}

/** Replaces every `$…$` in `text`; a template naming nothing becomes "". */
export function renderTemplate(text: string, state: RunState): string {
  return text.replace(TEMPLATE, (_, name: string) => asText(templateValue(name, state)));
}

/**
 * A value with templates resolved: a string that is exactly one template keeps the value's own
 * type (so `$count$` stays a number); other strings are rendered; objects and arrays recursively.
 */
export function renderValue(value: unknown, state: RunState): unknown {
  if (typeof value === "string") {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole) return templateValue(whole[1] as string, state) ?? "";
    return renderTemplate(value, state);
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, state));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, renderValue(item, state)]),
    );
  }
  return value;
}

const HAS_TEMPLATE = /\$[A-Za-z_][A-Za-z0-9_\-.[\]]*\$/;

/** Whether any string inside `value` holds a template (`renderValue` would change it). */
export function hasTemplate(value: unknown): boolean {
  if (typeof value === "string") return HAS_TEMPLATE.test(value);
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasTemplate);
  return false;
}

/** How a value reads inside text: strings as they are, the rest as JSON ("" for nothing). */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** `a.b[0].c` looked up in a parsed value; undefined when any step is missing. */
export function lookup(root: unknown, path: string): unknown {
  let current: unknown = root;
  for (const step of path.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== "")) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      const index = Number(step);
      current = Number.isInteger(index) ? current[index] : undefined;
    } else {
      current = Object.hasOwn(current, step)
        ? (current as Record<string, unknown>)[step]
        : undefined;
    }
  }
  return current;
}

/** True when the chain answers the sender, so the capture waits for it (within the budget). */
export function answersSender(actions: readonly Action[]): boolean {
  return actions.some((action) => action.enabled && action.type === "modify_response");
}

/**
 * A condition's filter as the routing filters read it: `variables.<name>` paths are looked up in
 * the run's variables, which the view carries under the `path.` root (captures have no path
 * parameters of their own).
 */
export function conditionFilter(config: Record<string, unknown>): Record<string, unknown> {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key.startsWith("variables.") ? `path.${key.slice(10)}` : key,
        rewrite(inner),
      ]),
    );
  };
  return rewrite(config) as Record<string, unknown>;
}
