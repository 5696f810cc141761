/** Shapes shared by the harness, the scenarios and the reports. */

/** How to start one server process (the subject, or what the ratio is taken against). */
export interface ServerSpec {
  /** argv; the first element is the executable. Spawned directly, never through a shell. */
  command: string[];
  /** Added to a clean environment (the caller's WEIR_* variables are dropped, see server.ts). */
  env?: Record<string, string>;
  /** Polled until it answers 2xx; the server counts as started then. */
  healthPath: string;
  /** Deadline for the health URL to answer; default 30 s (first `bun src/main.ts` transpiles). */
  startupTimeoutMs?: number;
}

/** What the harness hands a scenario so it can build its ServerSpec. */
export interface LaunchContext {
  /** A free port on 127.0.0.1 picked for this launch. */
  port: number;
  /** A fresh, empty directory for this launch only (e.g. a data dir); removed on exit. */
  dir: string;
  /** How to run Weir: `[bun, src/main.ts]`, or `[dist/weir]` with `--binary`. */
  weirCommand: string[];
  /** The bun executable running the harness. */
  bunPath: string;
  /** Repository root; servers run with it as their working directory. */
  repoRoot: string;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request shape that wrk repeats. */
export interface RequestSpec {
  method: HttpMethod;
  path: string;
  /** Size of a generated JSON body in bytes (exact); omit for no body. */
  bodyBytes?: number;
  /** An exact body instead of a generated one (JSON unless a Content-Type says otherwise). */
  body?: string;
  /**
   * Text inside `body` replaced on every request by a zero-padded counter of the same width, so
   * no two requests of a run (or of the runs after it) carry the same body. Costs wrk a little
   * Lua per request.
   */
  uniqueToken?: string;
  headers?: Record<string, string>;
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
}

/** The result of one load run against one server. */
export interface Measurement {
  /** Completed operations per second (requests for wrk; a custom runner says what in `unit`). */
  rate: number;
  /** Latency percentiles in milliseconds; null when the runner does not measure them. */
  latencyMs: Percentiles | null;
  /** Responses with a status >= 400 (wrk: "Non-2xx or 3xx responses"). */
  non2xx: number;
  /** Socket errors (connect, read, write, timeout) added up. */
  errors: number;
  /** Human detail of the errors, e.g. "connect 0, read 3, write 0, timeout 12". */
  errorDetail?: string;
  /** Other figures a custom runner measured, by name (e.g. "end-to-end events/s"); medians are reported. */
  figures?: Record<string, number>;
}

/** A server the load is pointed at. */
export interface RunTarget {
  role: "baseline" | "subject";
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  origin: string;
  port: number;
  pid: number;
}

/** What a load runner is told; custom runners must honour pinning via `loadPrefix`. */
export interface RunOptions {
  durationSec: number;
  connections: number;
  /** Prefix the load generator's argv with this (e.g. `taskset -c 1`); empty when unpinned. */
  loadPrefix: string[];
  /** Scratch directory for this run (scripts, fixtures); removed on exit. */
  dir: string;
}

/** Pass/miss bounds; the harness prints PASS/MISS for each one given. */
export interface Targets {
  /** Subject rate / baseline rate must be at least this (e.g. 0.40). */
  minRatio?: number;
  /** ...and at most this; for sanity checks whose ratio must sit near 1.00. */
  maxRatio?: number;
  /** Median rate must be at least this, in the scenario's unit (an absolute figure: noisy). */
  minRate?: number;
  /** Median p99 latency must be at most this many milliseconds. */
  maxP99Ms?: number;
  /** Each named figure's median must be at least this (see Measurement.figures). */
  minFigures?: Record<string, number>;
  /** Each named figure's median must be at most this (a cost, e.g. "run_script p50 ms"). */
  maxFigures?: Record<string, number>;
}

interface ScenarioBase {
  /** Unique, kebab-case; what you pass on the command line. */
  name: string;
  description: string;
  /** How to start the subject. */
  subject: (ctx: LaunchContext) => ServerSpec;
  /** What the ratio is taken against; default: the raw Bun.serve baseline (baseline-server.ts). */
  baseline?: (ctx: LaunchContext) => ServerSpec;
  /** True when the subject is Weir (via ctx.weirCommand, which honours `--binary`); the header then says how Weir ran. */
  weir?: boolean;
  targets?: Targets;
  /**
   * Other servers this subject is compared with, under the same load in the same interleaved
   * rounds (e.g. a prototype of the stack's limit, a catcher a user might install instead).
   * Selecting the subject selects them; the report adds subject ÷ reference for each.
   */
  references?: readonly Reference[];
}

/** A scenario measured alongside a subject, and how the subject must compare with it. */
export interface Reference {
  /** Must send the same load as the subject, so both share one baseline and one set of rounds. */
  scenario: Scenario;
  /** Subject rate / reference rate must be at least this (e.g. 0.90). */
  minRatio?: number;
}

/** The common case: wrk sends `request` to the baseline and the subject alike. */
export interface WrkScenario extends ScenarioBase {
  request: RequestSpec;
  run?: never;
}

/** A scenario with its own load generator (e.g. WebSocket fan-out), run against both servers. */
export interface CustomScenario extends ScenarioBase {
  run: (target: RunTarget, options: RunOptions) => Promise<Measurement>;
  /**
   * What `rate` counts, e.g. "deliveries/s"; shown beside the figure. Scenarios sharing a
   * `loadKey` share one baseline measurement (run with the first one's `run`); each subject is
   * measured with its own `run`.
   */
  unit: string;
  /** Identifies the load for grouping under a shared baseline; default: the scenario name. */
  loadKey?: string;
  request?: never;
}

export type Scenario = WrkScenario | CustomScenario;
