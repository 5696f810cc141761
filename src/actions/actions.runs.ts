import {
  type CapturedRequest,
  type CaptureEndpoint,
  isPreflight,
} from "../capture/capture.model.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { PlanTable } from "../shared/plans.ts";
import {
  type ChainDeps,
  type ChainRun,
  FELL_BACK,
  noteFallback,
  RECOVERED,
  runChain,
  withinBudget,
} from "./actions.chain.ts";
import { createChainCache } from "./actions.chains.ts";
import {
  type Action,
  type ActionResult,
  actionRequest,
  answersSender,
  type RunState,
} from "./actions.model.ts";
import type { RecorderHooks, RunRecorder } from "./actions.recorder.ts";
import type { ActionsRepo } from "./actions.repo.ts";
import type { Tenant } from "./actions.service.ts";
import type { RunMode } from "./actions.steps.ts";
import type { ActionsStore } from "./actions.store.ts";

/**
 * Runs of one endpoint waiting behind its running one, at most: a chain slower than its senders
 * would otherwise hold every capture in memory. Past it a capture's run is recorded as skipped.
 */
export const MAX_WAITING_RUNS = 1000;

export interface RunsDeps extends ChainDeps {
  store: Pick<ActionsStore, "chain" | "lastRun">;
  /**
   * SQLite only: the repo's synchronous reads and writes, for the capture batch's transaction
   * (`owe`) and so that a capture's run starts without waiting for a chain read.
   */
  repo?: Pick<ActionsRepo, "chain" | "owe">;
  /** Makes the recorder the runs' records commit through (SQLite group commit or PostgreSQL). */
  recorder(hooks: RecorderHooks): RunRecorder;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  plans: PlanTable;
  /** The chain's time budget, and the longest a capture's answer waits for it. */
  budgetMs: number;
  /** Told after a run was recorded (the realtime push). */
  completed(endpointId: string, requestId: string, results: ActionResult[]): void;
  /** The organization's secrets, opened at send time only. */
  resolveSecrets(organizationId: string): Promise<(name: string) => string | undefined>;
  /** Runs allowed to wait per endpoint (default MAX_WAITING_RUNS). */
  maxWaitingRuns?: number;
}

/** What a capture hands the actions: the stored request and its endpoint. */
export interface CaptureContext {
  request: CapturedRequest;
  endpoint: Pick<CaptureEndpoint, "id" | "organizationId" | "plan">;
}

type Answer = NonNullable<ChainRun["answer"]>;
type OwingEndpoint = Pick<CaptureEndpoint, "id" | "organizationId">;

/**
 * Runs endpoints' chains: on every committed capture, again on a stored request, or dry (tests).
 * Runs of one endpoint go one at a time in capture order, so a stored variable (a counter) read
 * by one run is the value the run before it wrote.
 */
export function createActionRuns(deps: RunsDeps) {
  const repo = deps.repo;
  const chains = createChainCache({
    now: repo && ((endpointId) => repo.chain(endpointId)),
    later: (endpointId) => deps.store.chain(endpointId),
  });
  const tails = new Map<string, Promise<unknown>>();
  const waiting = new Map<string, number>();
  /** Captures whose run this process has started and not yet recorded. */
  const inFlight = new Set<string>();
  const maxWaiting = deps.maxWaitingRuns ?? MAX_WAITING_RUNS;
  const recorder = deps.recorder({
    committed: (run) => deps.completed(run.endpointId, run.requestId, run.results),
    onHookError: (error) => deps.logger.error("action run push failed", { error }),
  });

  /** Queues `task` behind the endpoint's earlier runs. */
  const serial = <T>(endpointId: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(endpointId) ?? Promise.resolve();
    waiting.set(endpointId, (waiting.get(endpointId) ?? 0) + 1);
    const next = previous.then(task, task);
    const tail = next.catch(() => {});
    tails.set(endpointId, tail);
    void tail.then(() => {
      const left = (waiting.get(endpointId) ?? 1) - 1;
      if (left > 0) waiting.set(endpointId, left);
      else waiting.delete(endpointId);
      if (tails.get(endpointId) === tail) tails.delete(endpointId);
    });
    return next;
  };

  /** A run not started because too many wait: every action recorded as skipped. */
  const skipAll = (chain: readonly Action[], endpointId: string, requestId: string) => {
    const results: ActionResult[] = chain.map((action) => ({
      action_id: action.id,
      type: action.type,
      status: "skipped",
      duration_ms: 0,
      output: { reason: "too_many_runs_waiting" },
      error: `${maxWaiting} runs of this endpoint were already waiting`,
    }));
    const generation = recorder.generationOf(endpointId);
    const run = { results, answer: null, stores: [] };
    void record(endpointId, requestId, run, generation, "capture").catch((error) =>
      deps.logger.error("action run not recorded", { endpoint: endpointId, error }),
    );
  };

  /**
   * A run starts from the request and the endpoint's stored variables as the runs before it left
   * them (recorded or queued to be); the generation goes back with its record.
   */
  const stateFor = async (endpointId: string, request: CapturedRequest) => {
    const { values, generation } = await recorder.variablesOf(endpointId);
    const state: RunState = { request: actionRequest(request), variables: values, http: null };
    return { state, generation };
  };

  const run = (chain: readonly Action[], state: RunState, mode: RunMode, tenant: Tenant) => {
    // Read once per run, and only by a run that sends with a secret.
    let secrets: ReturnType<RunsDeps["resolveSecrets"]> | undefined;
    return runChain(
      chain,
      state,
      {
        mode,
        budgetMs: deps.budgetMs,
        maxActions: deps.plans[tenant.plan].actions_per_endpoint,
        loopGuarded: state.request.headers["x-weir-forwarded"] === "1",
        secrets: () => {
          secrets ??= deps.resolveSecrets(tenant.organizationId);
          return secrets;
        },
        tenant: tenant.organizationId,
      },
      deps,
    );
  };

  /**
   * Queues the run's row and its variables for the next group commit; the push follows the
   * commit. Resolves once committed (true: recorded).
   */
  const record = (
    endpointId: string,
    requestId: string,
    result: ChainRun,
    generation: number,
    trigger: "capture" | "manual",
  ): Promise<boolean> =>
    recorder.submit({
      id: deps.ids.uuid(),
      requestId,
      endpointId,
      trigger,
      results: result.results,
      stores: result.stores,
      createdAt: isoAt(deps.clock.now()),
      generation,
    });

  /**
   * The capture hook (after the commit): a chain without an enabled modify_response runs in the
   * background and the sender's answer does not wait; one with it is waited for at most the
   * budget, after which the endpoint's own answer goes out and the run record says so.
   */
  const onCapture = async ({ request, endpoint }: CaptureContext): Promise<Answer | null> => {
    const { organizationId } = endpoint;
    if (organizationId === null) return null;
    if (deps.plans[endpoint.plan].actions_per_endpoint <= 0) return null;
    const cached = chains.get(endpoint.id);
    const chain = Array.isArray(cached) ? cached : await cached;
    if (chain.length === 0) return null;
    if ((waiting.get(endpoint.id) ?? 0) >= maxWaiting) {
      skipAll(chain, endpoint.id, request.id);
      return null;
    }
    const waits = answersSender(chain);
    let finished: (run: ChainRun) => void = () => {};
    const chainDone = new Promise<ChainRun>((resolve) => {
      finished = resolve;
    });
    let decide: (fellBack: boolean) => void = () => {};
    const decided = new Promise<boolean>((resolve) => {
      decide = resolve;
    });
    inFlight.add(request.id);
    // The endpoint's next run starts once this one's record is queued; this capture stays in
    // flight (recovery leaves its owed row alone) until the record has committed.
    let committed: Promise<boolean> = Promise.resolve(false);
    const task = serial(endpoint.id, async () => {
      const tenant = { organizationId, plan: endpoint.plan };
      const { state, generation } = await stateFor(endpoint.id, request);
      const result = await run(chain, state, "live", tenant);
      finished(result);
      if (await decided) noteFallback(result, FELL_BACK(deps.budgetMs));
      committed = record(endpoint.id, request.id, result, generation, "capture");
    });
    task
      .then(() => committed)
      .catch((error) => deps.logger.error("action run failed", { endpoint: endpoint.id, error }))
      .finally(() => inFlight.delete(request.id));
    if (!waits) {
      decide(false);
      return null;
    }
    const answer = await withinBudget(chainDone, deps.budgetMs);
    decide(answer === null);
    return answer === null ? null : answer.answer;
  };

  return {
    onCapture,
    /** The endpoint's chain changed: the next capture reads it afresh. */
    forget: (endpointId: string) => chains.forget(endpointId),
    /** Runs the current chain on a stored request now, as a capture would (a new run record). */
    async rerun(tenant: Tenant, endpointId: string, request: CapturedRequest) {
      const chain = await deps.store.chain(endpointId);
      const { result, committed } = await serial(endpointId, async () => {
        const { state, generation } = await stateFor(endpointId, request);
        const result = await run(chain, state, "live", tenant);
        return { result, committed: record(endpointId, request.id, result, generation, "manual") };
      });
      await committed;
      return result.results;
    },
    /** Runs a chain with no side effect: nothing sent, stored or recorded. */
    async dryRun(
      tenant: Tenant,
      endpointId: string,
      chain: readonly Action[],
      request: CapturedRequest,
    ): Promise<ActionResult[]> {
      const { state } = await stateFor(endpointId, request);
      const result = await run(chain, state, "dry", tenant);
      return result.results;
    },
    /**
     * SQLite, in the capture batch's transaction: notes a run owed to each capture whose endpoint
     * has a chain, so a crash before the run leaves a row the recovery job finds. (PostgreSQL
     * notes them with oweActionRunsPostgres.)
     */
    owe(captures: readonly { request: CapturedRequest; endpoint: OwingEndpoint }[]): void {
      if (!repo) throw new Error("owe runs in a SQLite transaction only");
      for (const { request, endpoint } of captures) {
        if (endpoint.organizationId === null) continue;
        // On SQLite the cache reads at once: the chain is an array, never a promise.
        if ((chains.get(endpoint.id) as Action[]).length === 0) continue;
        // Capture answers a CORS preflight itself and runs no chain on it.
        if (isPreflight(request.method, request.headers)) continue;
        repo.owe(request.id, endpoint.id, endpoint.organizationId, request.createdAt);
      }
    },
    /** Whether this process is running (or about to run) the chain of this capture. */
    inFlight: (requestId: string) => inFlight.has(requestId),
    /** Every capture whose run this process is making or about to make (their leases to renew). */
    inFlightIds: (): readonly string[] => [...inFlight],
    /** Runs a chain owed from before a restart; its answer, if any, can no longer be given. */
    async runOwed(tenant: Tenant, endpointId: string, request: CapturedRequest) {
      const chain = await deps.store.chain(endpointId);
      inFlight.add(request.id);
      try {
        // Wrapped, so the endpoint's next run need not wait for this one's commit.
        const { committed } = await serial(endpointId, async () => {
          const { state, generation } = await stateFor(endpointId, request);
          const result = await run(chain, state, "live", tenant);
          noteFallback(result, RECOVERED);
          return { committed: record(endpointId, request.id, result, generation, "capture") };
        });
        await committed;
      } finally {
        inFlight.delete(request.id);
      }
    },
    lastResults: async (requestId: string) => (await deps.store.lastRun(requestId)) ?? [],
    savedChain: (endpointId: string) => deps.store.chain(endpointId),
    /** Commits the records queued now (shutdown). */
    close: () => recorder.close(),
  };
}

export type ActionRuns = ReturnType<typeof createActionRuns>;
