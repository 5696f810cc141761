import { percentile } from "../lib/stats.ts";
import type {
  CustomScenario,
  Measurement,
  RunOptions,
  RunTarget,
  WrkScenario,
} from "../lib/types.ts";
import { runWrk } from "../lib/wrk.ts";
import {
  CAPTURE_PATH,
  type ChainKind,
  drainedRuns,
  lastRunRowid,
  prepareChain,
  runsRecorded,
  seededWeir,
} from "./actions-setup.ts";
import { webhookBody } from "./ingest-setup.ts";

/** Captures sent one at a time after the load, for the chain's cost without a queue behind it. */
const PACED_CAPTURES = 200;

const REQUEST: WrkScenario["request"] = { method: "POST", path: CAPTURE_PATH, body: webhookBody() };

/** One capture at a time, each answered before the next is sent. */
async function pacedCaptures(origin: string): Promise<void> {
  for (let i = 0; i < PACED_CAPTURES; i++) {
    const response = await fetch(`${origin}${CAPTURE_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: REQUEST.body,
    });
    if (!response.ok) throw new Error(`paced capture answered ${response.status}`);
    await response.arrayBuffer();
  }
}

/**
 * Weir with the chain on its endpoint: the wrk load, then every run it left owed is awaited and
 * counted from the run records; a capture whose chain was skipped (too many runs waiting) counts
 * as an error, since a rate that drops chains is not the rate of running them. Then
 * PACED_CAPTURES captures one at a time give the chain's (and the script's) own time with no
 * load around it.
 */
async function measureChain(
  target: RunTarget,
  options: RunOptions,
  kind: ChainKind,
): Promise<Measurement> {
  await prepareChain(target.origin, kind);
  await drainedRuns(target.port);
  const before = lastRunRowid(target.port);
  const startedAt = Date.now();
  const wrk = await runWrk(REQUEST, target, options);
  await drainedRuns(target.port);
  const loaded = runsRecorded(target.port, before);
  await pacedCaptures(target.origin);
  await drainedRuns(target.port);
  const paced = runsRecorded(target.port, loaded.lastRowid);
  const accepted = wrk.totalRequests - wrk.non2xx;
  const missing =
    Math.max(0, accepted - loaded.ran - loaded.skipped) +
    Math.max(0, PACED_CAPTURES - paced.ran - paced.skipped);
  const skipped = loaded.skipped + paced.skipped;
  const incomplete = loaded.incomplete + paced.incomplete;
  const lost = skipped + missing + incomplete;
  const endToEnd = loaded.ran / ((loaded.lastAt - startedAt) / 1000);
  process.stderr.write(
    `    ${accepted} captures: ${loaded.ran} chains run (${loaded.incomplete} with an action ` +
      `not ok), ${loaded.skipped} skipped, ` +
      `last recorded ${((loaded.lastAt - startedAt) / 1000).toFixed(1)} s after the start; ` +
      `paced: chain p50 ${percentile(paced.chainMs, 0.5).toFixed(3)} ms` +
      (kind === "script"
        ? `, run_script p50 ${percentile(paced.scriptMs, 0.5).toFixed(3)} ms, ` +
          `p99 ${percentile(paced.scriptMs, 0.99).toFixed(3)} ms (target p50 < 1 ms)`
        : "") +
      "\n",
  );
  return {
    ...wrk,
    errors: wrk.errors + lost,
    errorDetail: lost
      ? `${skipped} captures' chains skipped, ${missing} never recorded, ` +
        `${incomplete} with an action not ok`
      : wrk.errorDetail,
    figures: {
      "chains run/s (end to end)": endToEnd,
      "chain p50 ms (loaded)": percentile(loaded.chainMs, 0.5),
      "chain p50 ms (paced)": percentile(paced.chainMs, 0.5),
      ...(kind === "script"
        ? {
            "run_script p50 ms (loaded)": percentile(loaded.scriptMs, 0.5),
            "run_script p50 ms (paced)": percentile(paced.scriptMs, 0.5),
            "run_script p99 ms (paced)": percentile(paced.scriptMs, 0.99),
          }
        : {}),
    },
  };
}

/** The baseline is the same Weir and the same load on an endpoint without actions. */
function runActions(kind: ChainKind) {
  return (target: RunTarget, options: RunOptions): Promise<Measurement> =>
    target.role === "baseline"
      ? runWrk(REQUEST, target, options)
      : measureChain(target, options, kind);
}

const LOAD_KEY = "capture POST 1 KiB webhook to /w/{slug}";

/**
 * The same chain with one trivial run_script before its store_variable: what a script adds to a
 * chain, read from the run records (the action's duration_ms) of captures sent one at a time.
 */
const actionsScript: CustomScenario = {
  name: "actions-script",
  description:
    "the actions scenario with a trivial run_script in the chain: its duration_ms per capture",
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: runActions("script"),
  unit: "req/s",
  loadKey: LOAD_KEY,
  targets: { maxFigures: { "run_script p50 ms (paced)": 1 } },
};

/**
 * What an endpoint's chain costs capture: 1 KiB JSON to /w/{slug} on an endpoint whose chain is
 * condition → extract_json → store_variable (every body passes the condition), against the same
 * capture on an endpoint without actions, same rounds. Ratio ≥ 0.70. `actions-script` runs with
 * it (a reference): the same chain with a run_script.
 */
export const actions: CustomScenario = {
  name: "actions",
  description:
    "POST 1 KiB JSON to /w/{slug} with a chain condition → extract_json → store_variable ÷ the same endpoint without actions",
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: runActions("plain"),
  unit: "req/s",
  loadKey: LOAD_KEY,
  targets: { minRatio: 0.7 },
  references: [{ scenario: actionsScript }],
};
