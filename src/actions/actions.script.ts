// How a run_script action's code is wrapped for the sandbox and what its run means. Pure.
import type { ScriptResult } from "../sandbox/sandbox.model.ts";
import type { RunState } from "./actions.model.ts";

export const SCRIPT_ENTRY = "__weirAction";

/**
 * The code runs as the body of a function of `request` and `variables`: it may set
 * `variables.x = …` or return an object whose members become variables. Only JSON crosses back.
 */
export function scriptSource(code: string): string {
  return `function ${SCRIPT_ENTRY}(input) {
  var variables = input.variables;
  var result = (function (request, variables) {
${code}
  })(input.request, variables);
  return { variables: variables, result: result === undefined ? null : result };
}`;
}

/** What a script sees of the request: method, path, query, headers and the (parsed) body. */
export function scriptRequest(state: RunState) {
  const { method, path, query, headers, body } = state.request;
  return { method, path, query, headers, body };
}

export interface ScriptOutcome {
  result?: unknown;
  variables?: Record<string, unknown>;
  error?: string;
}

/** The sandbox's answer as variables to set and a result, or an error message. */
export function scriptOutcome(run: ScriptResult): ScriptOutcome {
  if (!run.ok) {
    const where = run.error.location ? ` (line ${run.error.location.line - 3})` : "";
    return { error: `${run.error.kind}: ${run.error.message}${where}` };
  }
  const output = run.output as { variables?: unknown; result?: unknown } | null;
  const variables = isRecord(output?.variables) ? { ...output.variables } : {};
  if (isRecord(output?.result)) Object.assign(variables, output.result);
  return { result: output?.result ?? null, variables };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
