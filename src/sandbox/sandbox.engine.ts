// The in-thread engine: runs one script in a fresh QuickJS runtime+context inside a WASM module,
// so nothing of the host (Bun, process, fetch, require, the file system) exists there: only
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
import {
  copyInput,
  disposeVm,
  evaluate,
  exportOutput,
  openVm,
  settle,
  type Vm,
} from "./sandbox.vm.ts";

/** A run's result, and whether the module it ran in can still be trusted. */
export interface RunOutcome {
  result: ScriptResult;
  // A host exception thrown out of a VM call (typically the host's own stack overflow, which
  // this WASM build can hit before QuickJS's stack check does) leaves the module's memory in an
  // unknown state: such a module is never touched again, not even to dispose it.
  poisoned: boolean;
}

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

function closeVm(vm: Vm): boolean {
  try {
    disposeVm(vm);
    return true;
  } catch {
    return false;
  }
}

/** Runs one job in a fresh runtime of `module`; never throws. */
export async function runIsolated(
  module: QuickJSWASMModule,
  job: RunJob,
  bridge: HostBridge,
): Promise<RunOutcome> {
  const startedAt = performance.now();
  const logs: ScriptLog[] = [];
  let vm: Vm | undefined;
  let verdict: { ok: true; output: unknown } | { ok: false; error: SandboxFailure };
  let poisoned = false;
  try {
    vm = openVm(module, job.limits, logs, job.hostNames, bridge);
    const input = copyInput(vm, job.inputJson);
    const output = exportOutput(vm, await settle(vm, evaluate(vm, job, input)));
    verdict = { ok: true, output };
  } catch (error) {
    poisoned = !(error instanceof ScriptFailure);
    verdict = { ok: false, error: hostFailure(error, vm, job.limits) };
  }
  // Whichever limit fired first decides the kind; once interrupted, every later error is noise.
  if (vm?.state.interrupted) verdict = { ok: false, error: timeoutFailure(job.limits) };
  if (vm && !poisoned) poisoned = !closeVm(vm);
  return { poisoned, result: { ...verdict, logs, durationMs: performance.now() - startedAt } };
}
