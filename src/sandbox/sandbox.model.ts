// Types, limits and error classification for the sandbox room. Pure: no QuickJS, no I/O.

/** Resource ceilings for one script run. */
export interface SandboxLimits {
  cpuMs: number;
  memoryBytes: number;
  stackBytes?: number;
}

export type SandboxErrorKind = "script_error" | "timeout" | "memory_limit";

export type ScriptLogLevel = "log" | "info" | "warn" | "error" | "debug";

export interface ScriptLog {
  level: ScriptLogLevel;
  message: string;
}

/** Where in the request's `code` an error was raised (1-based line and column). */
export interface ScriptLocation {
  line: number;
  column: number;
}

export interface SandboxFailure {
  kind: SandboxErrorKind;
  message: string;
  /** For script errors: the innermost frame of the script's own code, when there is one. */
  location?: ScriptLocation;
}

export type ScriptResult =
  | { ok: true; output: unknown; logs: ScriptLog[]; durationMs: number }
  | { ok: false; error: SandboxFailure; logs: ScriptLog[]; durationMs: number };

/**
 * A host function a script may call by name. It runs on the host's main thread; its arguments
 * and its result cross the sandbox boundary as JSON copies, and inside the script the call
 * returns a promise. Host functions are host code: they bound their own time (e.g. a request
 * timeout), since a run waiting on one is not charged CPU time.
 */
export type HostFunction = (...args: unknown[]) => unknown;

export interface ScriptRequest {
  code: string;
  input?: unknown;
  limits?: Partial<SandboxLimits>;
  entry?: string;
  /** Globals the script can call back into the host with, e.g. `{ lookup: (id) => ... }`. */
  hostFunctions?: Record<string, HostFunction>;
  /**
   * Run in a reusable realm (requires `entry`): `code` is compiled once as the body of a function
   * that every run calls afresh (so its top-level bindings are new each run) and that returns the
   * entry function, which gets the input as its argument (no `input` global). The realm's global
   * object and built-ins are frozen, so a run cannot leave anything behind for the next one, and a
   * worker keeps the realm for later runs with the same key and code.
   */
  reuseKey?: string;
  /**
   * Only parse `code` as a global script, running nothing of it (a save-time syntax check):
   * output null, or a script_error with the syntax error's location. Ignores input and entry.
   */
  compileOnly?: boolean;
  /**
   * Whose run it is (an organization id): waiting runs are taken from each tenant's queue in
   * turn, so one tenant's backlog never holds another's run for more than a run's CPU limit.
   */
  tenant?: string;
}

/** What a pool has done so far; for operators, the self-test and tests. */
export interface SandboxStats {
  /** Pool size: how many workers may run at once. */
  size: number;
  /** Workers alive now (started lazily, on first use). */
  workers: number;
  busy: number;
  queued: number;
  /** Workers started, including replacements. */
  started: number;
  /** Workers terminated because they crashed, hung or went over a limit. */
  replaced: number;
  /** Runs answered by a worker thread (never the main thread). */
  runsInWorkers: number;
  /** Runs that found their realm already prepared in their worker (see `reuseKey`). */
  reusedRuns: number;
}

export interface Sandbox {
  runScript(args: ScriptRequest): Promise<ScriptResult>;
  stats(): SandboxStats;
  close(): void;
}

export const LOG_LEVELS: readonly ScriptLogLevel[] = ["log", "info", "warn", "error", "debug"];

// A script must not be able to flood the host through its host functions.
export const MAX_HOST_CALLS = 100;
export const MAX_HOST_ARGS_CHARS = 1024 * 1024;
const HOST_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED_GLOBALS = new Set(["input", "console", "globalThis"]);

// A script must not be able to exhaust host memory through console output.
export const MAX_LOG_LINES = 200;
export const MAX_LOG_MESSAGE_CHARS = 4096;

// The WASM build runs QuickJS frames on the host's native stack, and QuickJS only measures part
// of what each frame uses; a small budget keeps its own "stack overflow" ahead of the host's.
export const DEFAULT_STACK_BYTES = 256 * 1024;

// Below this a fresh context cannot even hold the standard library.
export const MIN_MEMORY_BYTES = 1024 * 1024;

const MIB = 1024 * 1024;

/** Merges per-call overrides onto the defaults and rejects nonsensical values. */
export function resolveLimits(
  defaults: SandboxLimits,
  override: Partial<SandboxLimits> = {},
): Required<SandboxLimits> {
  const limits = {
    cpuMs: override.cpuMs ?? defaults.cpuMs,
    memoryBytes: override.memoryBytes ?? defaults.memoryBytes,
    stackBytes: override.stackBytes ?? defaults.stackBytes ?? DEFAULT_STACK_BYTES,
  };
  if (!(Number.isFinite(limits.cpuMs) && limits.cpuMs > 0)) {
    throw new RangeError(`sandbox cpuMs must be a positive number, got ${limits.cpuMs}`);
  }
  if (!(Number.isSafeInteger(limits.memoryBytes) && limits.memoryBytes >= MIN_MEMORY_BYTES)) {
    throw new RangeError(`sandbox memoryBytes must be an integer >= ${MIN_MEMORY_BYTES}`);
  }
  if (!(Number.isSafeInteger(limits.stackBytes) && limits.stackBytes > 0)) {
    throw new RangeError(`sandbox stackBytes must be a positive integer`);
  }
  return limits;
}

/** The host function names of a request, refusing names a script could not call plainly. */
export function hostFunctionNames(request: ScriptRequest): string[] {
  const names = Object.keys(request.hostFunctions ?? {});
  for (const name of names) {
    if (!HOST_NAME.test(name) || RESERVED_GLOBALS.has(name)) {
      throw new RangeError(`sandbox host function name ${JSON.stringify(name)} is not allowed`);
    }
  }
  return names;
}

/** The input as JSON text, refused up front when the script's heap could never hold it. */
export function serializeInput(input: unknown, limits: SandboxLimits): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(input ?? null);
  } catch (error) {
    throw new ScriptFailure(scriptFailure(`input is not JSON-serializable: ${String(error)}`));
  }
  // Checked in characters: a cheap upper bound that still refuses inputs the heap cannot hold.
  if (json === undefined) return "null";
  if (json.length > limits.memoryBytes) throw new ScriptFailure(scriptFailure("input too large"));
  return json;
}

/** A result for a run that failed before or outside the script (nothing logged, no time spent). */
export function failedResult(failure: SandboxFailure, durationMs = 0): ScriptResult {
  return { ok: false, error: failure, logs: [], durationMs };
}

function formatBytes(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

/** The failure reported when the CPU deadline interrupted the script. */
export function timeoutFailure(limits: SandboxLimits): SandboxFailure {
  return { kind: "timeout", message: `script exceeded its ${limits.cpuMs} ms CPU limit` };
}

/** The failure reported when the script ran out of heap. */
export function memoryFailure(limits: SandboxLimits): SandboxFailure {
  return {
    kind: "memory_limit",
    message: `script exceeded its ${formatBytes(limits.memoryBytes)} memory limit`,
  };
}

/** The failure reported when recursion went deeper than the stack allows. */
export function stackFailure(): SandboxFailure {
  return { kind: "memory_limit", message: "script exceeded its stack limit (recursion too deep)" };
}

/** A plain script error carrying the thrown value's description. */
export function scriptFailure(message: string): SandboxFailure {
  return { kind: "script_error", message };
}

// QuickJS reports resource exhaustion as ordinary exceptions; these exact descriptions are the
// engine's own, so matching them is how a limit is told apart from a script's own error.
const ENGINE_OOM = new Set(["InternalError: out of memory"]);
// Rope strings let `s = s + s` reach the engine's length cap without touching the heap limit;
// it is the same runaway allocation, so it counts against memory too.
const ENGINE_TOO_LONG = new Set([
  "InternalError: string too long",
  "RangeError: invalid string length",
]);
const ENGINE_STACK = new Set([
  "InternalError: stack overflow",
  "SyntaxError: stack overflow",
  "RangeError: Maximum call stack size exceeded",
]);

/** Maps the described exception of a run that was not interrupted to a failure. */
export function classifyException(description: string, limits: SandboxLimits): SandboxFailure {
  if (ENGINE_OOM.has(description) || ENGINE_TOO_LONG.has(description)) {
    return memoryFailure(limits);
  }
  if (ENGINE_STACK.has(description)) return stackFailure();
  if (description === "InternalError: interrupted") return timeoutFailure(limits);
  return scriptFailure(description);
}

/** Thrown inside a run to abort it with a classified failure; never escapes the runner. */
export class ScriptFailure extends Error {
  constructor(readonly failure: SandboxFailure) {
    super(failure.message);
    this.name = "ScriptFailure";
  }
}
