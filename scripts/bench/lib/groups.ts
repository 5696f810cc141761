/**
 * Scenarios that send the same load to the same kind of baseline share one baseline measurement,
 * interleaved with all of them, so each ratio compares like with like and no baseline runs twice.
 */
import { baselineServer } from "./subjects.ts";
import type {
  LaunchContext,
  Measurement,
  RunOptions,
  RunTarget,
  Scenario,
  ServerSpec,
} from "./types.ts";
import { runWrk } from "./wrk.ts";

type SpecFn = (ctx: LaunchContext) => ServerSpec;
type LoadFn = (target: RunTarget, options: RunOptions) => Promise<Measurement>;

export interface Group {
  /** What load the group shares, e.g. "GET /healthz" or "POST / (1024 B JSON)". */
  load: string;
  unit: string;
  runLoad: LoadFn;
  baseline: SpecFn;
  scenarios: Scenario[];
}

export function describeLoad(scenario: Scenario): string {
  if (scenario.run) return scenario.loadKey ?? `custom load of ${scenario.name}`;
  const { method, path, bodyBytes, body, uniqueToken } = scenario.request;
  const size = body === undefined ? bodyBytes : Buffer.byteLength(body);
  const unique = uniqueToken === undefined ? "" : ", unique";
  return `${method} ${path}${size === undefined ? "" : ` (${size} B JSON${unique})`}`;
}

function loadKey(scenario: Scenario): string {
  return scenario.run
    ? `custom:${scenario.loadKey ?? scenario.name}`
    : `wrk:${JSON.stringify(scenario.request)}`;
}

function loadFn(scenario: Scenario): LoadFn {
  if (scenario.run) return scenario.run;
  const { request } = scenario;
  return (target, options) => runWrk(request, target, options);
}

/** Groups scenarios by (baseline server, load), keeping the order they were given in. */
export function groupScenarios(scenarios: readonly Scenario[]): Group[] {
  const baselineIds = new Map<SpecFn, number>();
  const groups = new Map<string, Group>();
  for (const scenario of scenarios) {
    const baseline = scenario.baseline ?? baselineServer;
    if (!baselineIds.has(baseline)) baselineIds.set(baseline, baselineIds.size);
    const key = `${baselineIds.get(baseline)}|${loadKey(scenario)}`;
    const group = groups.get(key);
    if (group) group.scenarios.push(scenario);
    else {
      const unit = scenario.run ? scenario.unit : "req/s";
      groups.set(key, {
        load: describeLoad(scenario),
        unit,
        runLoad: loadFn(scenario),
        baseline,
        scenarios: [scenario],
      });
    }
  }
  return [...groups.values()];
}
