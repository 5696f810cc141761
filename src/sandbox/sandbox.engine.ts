// The in-thread engine: runs one script in a fresh QuickJS runtime+context inside a WASM module
// (or in a reusable realm, sandbox.realm.ts), so nothing of the host (Bun, process, fetch, require, the file system) exists there: only
// `input`, `console`, the host functions a run was given and the standard ECMAScript globals.
// Scripts are synchronous plus promise jobs: there is no setTimeout, no I/O and no module
// loading, so a promise that waits on anything but a host function never settles.
// Production runs it only inside a sandbox worker (sandbox.worker.ts), never on the main thread.
import variant from "@jitl/quickjs-singlefile-cjs-release-sync";
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import {
  type SandboxFailure,
  type SandboxLimits,
  ScriptFailure,
  type ScriptLog,
  type ScriptResult,
  scriptFailure,
  stackFailure,
  timeoutFailure,
} from "./sandbox.model.ts";
import type { HostBridge, RunJob } from "./sandbox.protocol.ts";
import { openRealm, type Realm, type RealmCache } from "./sandbox.realm.ts";
import {
  beginRun,
  call,
  copyInput,
  disposeVm,
  endRun,
  evaluate,
  exportOutput,
  openVm,
  SCRIPT_FILE,
  settle,
  startClock,
  unwrap,
  type Vm,
} from "./sandbox.vm.ts";

/** A run's result, and whether the module it ran in can still be trusted. */
export interface RunOutcome {
  result: ScriptResult;
  // A host exception thrown out of a VM call (typically the host's own stack overflow, which
  // this WASM build can hit before QuickJS's stack check does) leaves the module's memory in an
  // unknown state: such a module is never touched again, not even to dispose it.
  poisoned: boolean;
  /** The run found its realm prepared by an earlier run. */
  reused: boolean;
  /** The run's realm was kept for the next run of its key. */
  kept: boolean;
}

type Verdict = { ok: true; output: unknown } | { ok: false; error: SandboxFailure };

// One throwaway run lets the host JIT the engine, so the first real script is not the one
// paying for it.
function warmUp(module: QuickJSWASMModule): void {
  const runtime = module.newRuntime();
  const context = runtime.newContext();
  context.evalCode("[1].map((x) => x + 1)").dispose();
  context.dispose();
  runtime.dispose();
}

/** Loads and warms a QuickJS WASM module (tens of milliseconds: done once per worker). */
export async function loadEngine(): Promise<QuickJSWASMModule> {
  const module = await newQuickJSWASMModuleFromVariant(variant);
  warmUp(module);
  return module;
}

/**
 * Bytes of the module's WASM memory, which grows to the largest heap any run needed and never
 * shrinks. Read from the emscripten module inside quickjs-emscripten (not public API: undefined
 * if a later version moves it, and then no worker is recycled for its size).
 */
export function wasmHeapBytes(module: QuickJSWASMModule): number | undefined {
  const inner = (module as unknown as { module?: { HEAPU8?: Uint8Array } }).module;
  return inner?.HEAPU8?.buffer.byteLength;
}

function hostFailure(error: unknown, vm: Vm | undefined, limits: SandboxLimits): SandboxFailure {
  if (error instanceof ScriptFailure) return error.failure;
  if (vm?.state.interrupted) return timeoutFailure(limits);
  if (error instanceof RangeError && /call stack/i.test(error.message)) return stackFailure();
  return scriptFailure(`sandbox internal error: ${String(error)}`);
}

/** Disposes a VM; false when even that failed (the module is then in doubt). */
export function closeVm(vm: Vm): boolean {
  try {
    disposeVm(vm);
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` as one run of `vm`, classifying whatever it throws; never throws. */
async function attempt(
  vmOf: () => Vm | undefined,
  job: RunJob,
  work: () => Promise<unknown>,
): Promise<{ verdict: Verdict; poisoned: boolean }> {
  let verdict: Verdict;
  let poisoned = false;
  try {
    verdict = { ok: true, output: await work() };
  } catch (error) {
    poisoned = !(error instanceof ScriptFailure);
    verdict = { ok: false, error: hostFailure(error, vmOf(), job.limits) };
  }
  // Whichever limit fired first decides the kind; once interrupted, every later error is noise.
  if (vmOf()?.state.interrupted) verdict = { ok: false, error: timeoutFailure(job.limits) };
  return { verdict, poisoned };
}

function resultOf(verdict: Verdict, logs: ScriptLog[], startedAt: number): ScriptResult {
  return { ...verdict, logs, durationMs: performance.now() - startedAt };
}

/** Runs one job in a fresh runtime of `module`; never throws. */
export async function runIsolated(
  module: QuickJSWASMModule,
  job: RunJob,
  bridge: HostBridge,
): Promise<RunOutcome> {
  const startedAt = performance.now();
  let vm: Vm | undefined;
  const { verdict, poisoned } = await attempt(
    () => vm,
    job,
    async () => {
      vm = openVm(module, job.limits, job.hostNames);
      beginRun(vm, job.limits, bridge);
      startClock(vm);
      if (job.compileOnly) return compileOnly(vm, job.code);
      const input = copyInput(vm, job.inputJson, true);
      return exportOutput(vm, await settle(vm, evaluate(vm, job, input)));
    },
  );
  const logs = vm ? [...vm.logs] : [];
  const closed = vm !== undefined && !poisoned && closeVm(vm);
  const result = resultOf(verdict, logs, startedAt);
  return {
    result,
    poisoned: poisoned || (vm !== undefined && !closed),
    reused: false,
    kept: false,
  };
}

/** Parses `code` as the global script a run would evaluate, running none of it. */
function compileOnly(vm: Vm, code: string): null {
  unwrap(vm, vm.context.evalCode(code, SCRIPT_FILE, { type: "global", compileOnly: true }));
  return null;
}

/** One run in the realm of `realm`: a fresh top level, then the entry function on the input. */
async function runInRealm(realm: Realm, job: RunJob): Promise<unknown> {
  const { vm } = realm;
  startClock(vm);
  const input = copyInput(vm, job.inputJson, false);
  const entry = call(vm, realm.factory, []);
  if (vm.context.typeof(entry) !== "function") {
    throw new ScriptFailure(scriptFailure(`entry function "${job.entry}" is not defined`));
  }
  return exportOutput(vm, await settle(vm, call(vm, entry, [input])));
}

/**
 * Runs a job with a reuseKey in its realm from `realms`, building the realm on a miss, and keeps
 * the realm only when the run ended on its own (a result or a thrown error) and left no promise
 * job behind; never throws.
 */
export async function runReusing(
  module: QuickJSWASMModule,
  realms: RealmCache,
  job: RunJob & { reuseKey: string },
  bridge: HostBridge,
): Promise<RunOutcome> {
  const startedAt = performance.now();
  let realm = realms.take(job);
  const reused = realm !== undefined;
  const { verdict, poisoned } = await attempt(
    () => realm?.vm,
    job,
    async () => {
      realm ??= openRealm(module, job);
      beginRun(realm.vm, job.limits, bridge);
      return runInRealm(realm, job);
    },
  );
  if (!realm) return { result: resultOf(verdict, [], startedAt), poisoned, reused, kept: false };
  const { vm } = realm;
  const logs = [...vm.logs];
  let kept = false;
  if (!poisoned) {
    // A thrown error leaves nothing reachable either; a limit may have stopped the engine
    // anywhere, so that realm is not trusted again.
    const finished = verdict.ok || verdict.error.kind === "script_error";
    const clean = finished && !vm.state.interrupted && !vm.runtime.hasPendingJob();
    try {
      endRun(vm);
      if (clean) {
        realms.keep(realm);
        kept = true;
      }
    } catch {
      // Freeing the run's handles failed: the realm is in doubt, so it is not kept.
    }
    if (!kept && !closeVm(vm))
      return { result: resultOf(verdict, logs, startedAt), poisoned: true, reused, kept };
  }
  return { result: resultOf(verdict, logs, startedAt), poisoned, reused, kept };
}
