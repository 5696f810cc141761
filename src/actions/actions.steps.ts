import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import { compileFilters } from "../routing/filters.model.ts";
import type { Sandbox } from "../sandbox/sandbox.model.ts";
import { substituteSecrets } from "../shared/secret-template.ts";
import {
  type Action,
  type ActionStatus,
  conditionFilter,
  hasTemplate,
  lookup,
  parseJson,
  type RunState,
  renderTemplate,
  renderValue,
} from "./actions.model.ts";
import { SCRIPT_ENTRY, scriptOutcome, scriptRequest, scriptSource } from "./actions.script.ts";

/** How far a run may reach: `live` sends and persists, `dry` (the test route) only says what it would. */
export type RunMode = "live" | "dry";

/** What the steps use, and the run's own limits. */
export interface StepContext {
  outbound: OutboundSender;
  sandbox: Sandbox;
  mode: RunMode;
  /** The capture carried the loop-guard header: its http_request actions are not sent. */
  loopGuarded: boolean;
  /** Milliseconds left of the chain's budget. */
  remainingMs(): number;
  /** The most of an answer body kept in outputs and `$http.body$`. */
  bodyLimit: number;
  /** The sandbox's own CPU limit per script; the chain's budget may only lower it. */
  scriptCpuMs: number;
  /** The organization's secrets by name, for `{{NAME}}` in an http_request's url and headers. */
  secrets(): Promise<(name: string) => string | undefined>;
  /** The organization the run is for (the sandbox's fair share between organizations). */
  tenant: string;
}

/** One action's verdict before it is timed and recorded. */
export interface StepOutcome {
  status: ActionStatus;
  output: unknown;
  error?: string;
  /** A condition that did not match: the rest of the chain does not run. */
  stop?: boolean;
  /** A modify_response action's answer (status, headers, body). */
  answer?: { status?: number; headers?: Record<string, string>; body?: string };
  /** A store_variable to persist once the run is recorded (live runs only). */
  store?: { name: string; value: unknown };
}

type Step = (action: Action, state: RunState, context: StepContext) => Promise<StepOutcome>;

type Matcher = ReturnType<typeof compileFilters>;
/**
 * Conditions compiled once per saved config (the chain is cached, so its configs are the same
 * objects run after run); null when the config has templates and is compiled per run instead.
 */
const fixedConditions = new WeakMap<object, Matcher | null>();

function conditionMatcher(config: Record<string, unknown>, state: RunState): Matcher {
  let fixed = fixedConditions.get(config);
  if (fixed === undefined) {
    fixed = hasTemplate(config) ? null : compileFilters([conditionFilter(config)]);
    fixedConditions.set(config, fixed);
  }
  if (fixed) return fixed;
  return compileFilters([conditionFilter(renderValue(config, state) as Record<string, unknown>)]);
}

const condition: Step = async ({ config }, state) => {
  const matches = conditionMatcher(
    config,
    state,
  )({
    body: state.request.body,
    headers: state.request.headers,
    query: state.request.query,
    path: state.variables,
  });
  return { status: "ok", output: { matched: matches }, stop: !matches };
};

const extractJson: Step = async ({ config }, state) => {
  const source = sourceOf(config.source as string, state);
  if (source === null || typeof source !== "object") {
    return { status: "error", output: null, error: "the source is not a JSON object or array" };
  }
  const extracted: Record<string, unknown> = {};
  for (const { path, variable } of config.extractions as { path: string; variable: string }[]) {
    const value = lookup(source, path.replace(/^\$?\.?(body\.)?/, "")) ?? null;
    state.variables[variable] = value;
    extracted[variable] = value;
  }
  return { status: "ok", output: { variables: extracted } };
};

function sourceOf(source: string, state: RunState): unknown {
  if (source === "body" || source === "request.body" || source === "$request.body.json$") {
    return state.request.body;
  }
  if (source === "http.body" || source === "$http.body$") return state.http?.body ?? null;
  const rendered = renderValue(source, state);
  return typeof rendered === "string" ? parseJson(rendered) : rendered;
}

const httpRequest: Step = async ({ config }, state, context) => {
  const url = renderTemplate(config.url as string, state);
  const method = config.method as string;
  const headers: [string, string][] = Object.entries(
    (config.headers as Record<string, string> | undefined) ?? {},
  ).map(([name, value]) => [name.toLowerCase(), renderTemplate(value, state)]);
  const body = requestBody(config.body, state, headers);
  const sending = { url, method, headers: Object.fromEntries(headers), body };
  if (context.loopGuarded) {
    return { status: "skipped", output: { reason: "loop_guard", would_send: sending } };
  }
  if (context.mode === "dry") return { status: "skipped", output: { would_send: sending } };
  // Secrets are opened for the send alone: outputs and records keep the `{{NAME}}` as written.
  // Only a send that names a secret reads them.
  const named = [url, ...headers.map(([, value]) => value)].some((text) => text.includes("{{"));
  const opened = withSecrets(url, headers, named ? await context.secrets() : () => undefined);
  if ("missing" in opened) {
    return { status: "error", output: { url }, error: `missing_secret: ${opened.missing}` };
  }
  const problem = context.outbound.urlProblem(opened.url);
  if (problem) return { status: "error", output: { url }, error: `url ${problem}` };
  // The loop guard of forwards: a capture carrying it does not send again (decisions.md §6).
  opened.headers.push(["x-weir-forwarded", "1"]);
  const result = await context.outbound.send({
    url: opened.url,
    method,
    headers: opened.headers,
    body: method === "GET" || method === "HEAD" ? null : body,
    timeoutMs: Math.max(1, context.remainingMs()),
  });
  const text = new TextDecoder().decode(result.body.subarray(0, context.bodyLimit));
  state.http = { status: result.status, body: parseJson(text) };
  const output = {
    url,
    method,
    status: result.status,
    body: text,
    latency_ms: Math.round(result.latencyMs),
  };
  if (result.error === null) return { status: "ok", output };
  return { status: "error", output, error: `${result.error.code}: ${result.error.message}` };
};

function withSecrets(
  url: string,
  headers: [string, string][],
  secret: (name: string) => string | undefined,
): { url: string; headers: [string, string][] } | { missing: string } {
  const openedUrl = substituteSecrets(url, secret);
  if (!openedUrl.ok) return { missing: openedUrl.missing };
  const opened: [string, string][] = [];
  for (const [name, value] of headers) {
    const text = substituteSecrets(value, secret);
    if (!text.ok) return { missing: text.missing };
    opened.push([name, text.text]);
  }
  return { url: openedUrl.text, headers: opened };
}

/** Text as rendered; JSON rendered value by value and sent as JSON. */
function requestBody(raw: unknown, state: RunState, headers: [string, string][]): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "string") return renderTemplate(raw, state);
  if (!headers.some(([name]) => name === "content-type")) {
    headers.push(["content-type", "application/json"]);
  }
  return JSON.stringify(renderValue(raw, state));
}

/**
 * Saved run_script configs whose code failed in a frozen realm: such code may rely on what a
 * fresh runtime allows and a frozen one does not (an undeclared `total = 0`, a new member of a
 * built-in), so it runs in a fresh runtime each time, as it always did.
 */
const isolatedScripts = new WeakSet<object>();

const runScript: Step = async ({ id, config }, state, context) => {
  const input = { request: scriptRequest(state), variables: state.variables };
  const run = (reuse: boolean) =>
    context.sandbox.runScript({
      code: scriptSource(config.code as string),
      entry: SCRIPT_ENTRY,
      input,
      // The action's code stays compiled in a frozen realm of a sandbox worker: a run costs a
      // call, not a new runtime and prelude, and still sees nothing an earlier run left.
      reuseKey: reuse ? `action:${context.tenant}:${id}` : undefined,
      limits: { cpuMs: Math.max(1, Math.min(context.remainingMs(), context.scriptCpuMs)) },
      tenant: context.tenant,
    });
  let result = await run(!isolatedScripts.has(config));
  if (!result.ok && result.error.kind === "script_error" && !isolatedScripts.has(config)) {
    // A script has no side effects, so running it again where it used to run is safe.
    isolatedScripts.add(config);
    result = await run(false);
  }
  const outcome = scriptOutcome(result);
  if (outcome.variables) Object.assign(state.variables, outcome.variables);
  return outcome.error
    ? { status: "error", output: { logs: result.logs }, error: outcome.error }
    : { status: "ok", output: { result: outcome.result, logs: result.logs } };
};

/** The largest value a store_variable keeps, as JSON text: variables are read on every capture. */
export const VARIABLE_LIMIT = 65_536;

const storeVariable: Step = async ({ config }, state, context) => {
  const name = config.name as string;
  const value = renderValue(config.value, state);
  const size = JSON.stringify(value ?? null).length;
  if (size > VARIABLE_LIMIT) {
    return {
      status: "error",
      output: { name, size },
      error: `the value is ${size} bytes of JSON; a stored variable holds at most ${VARIABLE_LIMIT}`,
    };
  }
  state.variables[name] = value;
  const persisted = context.mode === "live";
  return {
    status: "ok",
    output: { name, value, persisted },
    store: persisted ? { name, value } : undefined,
  };
};

const modifyResponse: Step = async ({ config }, state) => {
  const answer: StepOutcome["answer"] = {};
  if (config.status !== undefined) answer.status = config.status as number;
  if (config.headers !== undefined) {
    answer.headers = Object.fromEntries(
      Object.entries(config.headers as Record<string, string>).map(([n, v]) => [
        n,
        renderTemplate(v, state),
      ]),
    );
  }
  if (config.body !== undefined) answer.body = renderTemplate(config.body as string, state);
  return { status: "ok", output: answer, answer };
};

/** Each type's step (decisions.md §12). */
export const STEPS: Record<Action["type"], Step> = {
  condition,
  extract_json: extractJson,
  http_request: httpRequest,
  run_script: runScript,
  store_variable: storeVariable,
  modify_response: modifyResponse,
};
