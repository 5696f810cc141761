import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import type { Sandbox } from "../sandbox/sandbox.model.ts";
import type { Action, ActionResult, RunState } from "./actions.model.ts";
import { type RunMode, STEPS, type StepOutcome } from "./actions.steps.ts";

/** The most of an http_request answer kept in a run (as forwards keep theirs). */
export const ANSWER_BODY_LIMIT = 65_536;
/** The most of one action's output a run record keeps, as JSON text. */
export const OUTPUT_LIMIT = 65_536;

export interface ChainDeps {
  outbound: OutboundSender;
  sandbox: Sandbox;
  /** The sandbox's CPU limit of a script (`WEIR_SANDBOX_TIMEOUT_MS`): a run_script never gets more. */
  scriptCpuMs: number;
}

export interface ChainOptions {
  mode: RunMode;
  /** The chain's whole time budget (`WEIR_ACTIONS_BUDGET_MS`). */
  budgetMs: number;
  /** Actions run at most (the plan's cap per endpoint): bounded work per capture. */
  maxActions: number;
  loopGuarded: boolean;
  /** The organization's secrets by name (`{{NAME}}` in an http_request), read when first asked. */
  secrets(): Promise<(name: string) => string | undefined>;
  /** The organization the chain runs for: its scripts wait in its own sandbox queue. */
  tenant: string;
}

/** What a chain came to: each action's result, the answer it set, the variables to persist. */
export interface ChainRun {
  results: ActionResult[];
  answer: NonNullable<StepOutcome["answer"]> | null;
  stores: { name: string; value: unknown }[];
}

/**
 * Runs the actions in order on one request (decisions.md §12, §13). A disabled action is skipped;
 * after a condition that did not match, so is every later one; an action that fails is recorded
 * and the chain goes on. Actions that would start after the budget ran out are not run.
 */
export async function runChain(
  actions: readonly Action[],
  state: RunState,
  options: ChainOptions,
  deps: ChainDeps,
): Promise<ChainRun> {
  const deadline = performance.now() + options.budgetMs;
  const context = {
    ...deps,
    mode: options.mode,
    loopGuarded: options.loopGuarded,
    secrets: options.secrets,
    tenant: options.tenant,
    bodyLimit: ANSWER_BODY_LIMIT,
    remainingMs: () => Math.floor(deadline - performance.now()),
  };
  const run: ChainRun = { results: [], answer: null, stores: [] };
  let stoppedBy: string | null = null;
  for (const action of actions.slice(0, options.maxActions)) {
    const result = (outcome: StepOutcome, durationMs = 0): ActionResult => ({
      action_id: action.id,
      type: action.type,
      status: outcome.status,
      duration_ms: Math.round(durationMs * 100) / 100,
      output: boundedOutput(outcome.output),
      error: outcome.error ?? null,
    });
    if (!action.enabled) {
      run.results.push(result({ status: "skipped", output: { reason: "disabled" } }));
      continue;
    }
    if (stoppedBy !== null) {
      run.results.push(
        result({
          status: "skipped",
          output: { reason: "condition_not_met", condition: stoppedBy },
        }),
      );
      continue;
    }
    if (context.remainingMs() <= 0) {
      run.results.push(
        result({
          status: "error",
          output: { reason: "budget_exhausted" },
          error: `the chain's budget of ${options.budgetMs} ms ran out before this action`,
        }),
      );
      continue;
    }
    const started = performance.now();
    const outcome = await runStep(action, state, context);
    run.results.push(result(outcome, performance.now() - started));
    if (outcome.stop) stoppedBy = action.id;
    if (outcome.answer) run.answer = mergeAnswer(run.answer, outcome.answer);
    if (outcome.store) run.stores.push(outcome.store);
  }
  return run;
}

async function runStep(
  action: Action,
  state: RunState,
  context: Parameters<(typeof STEPS)["condition"]>[2],
): Promise<StepOutcome> {
  try {
    return await STEPS[action.type](action, state, context);
  } catch (error) {
    // An action's failure is its own result: never the capture's, never the endpoint's.
    return { status: "error", output: null, error: (error as Error).message ?? String(error) };
  }
}

/** A later modify_response overrides the fields it sets; headers merge. */
function mergeAnswer(
  previous: ChainRun["answer"],
  next: NonNullable<StepOutcome["answer"]>,
): NonNullable<ChainRun["answer"]> {
  if (!previous) return next;
  return {
    status: next.status ?? previous.status,
    headers: { ...previous.headers, ...next.headers },
    body: next.body ?? previous.body,
  };
}

/** An output too large to keep whole (a script's result, say) is kept as the start of its JSON. */
function boundedOutput(output: unknown): unknown {
  const text = JSON.stringify(output ?? null);
  if (text.length <= OUTPUT_LIMIT) return output ?? null;
  return { truncated: true, size: text.length, preview: text.slice(0, OUTPUT_LIMIT) };
}

/** The chain's run, or null when the budget passed first. */
export function withinBudget(chain: Promise<ChainRun>, budgetMs: number): Promise<ChainRun | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), budgetMs);
  });
  return Promise.race([chain, timeout]).finally(() => clearTimeout(timer));
}

/** The sender got the endpoint's own answer: each modify_response result says so. */
export function noteFallback(result: ChainRun, why: string): void {
  for (const entry of result.results) {
    if (entry.type !== "modify_response" || entry.status !== "ok") continue;
    entry.status = "error";
    entry.error = why;
  }
}

export const FELL_BACK = (budgetMs: number) =>
  `not applied: the chain took longer than its ${budgetMs} ms budget, so the endpoint's own answer was sent`;
export const RECOVERED =
  "not applied: this run was owed from before a restart, and the sender had the endpoint's own answer";
