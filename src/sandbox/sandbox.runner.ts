// The sandbox room: the only place user JavaScript runs. Each script gets a fresh QuickJS runtime
// and context inside a WASM module, so nothing of the host (Bun, process, fetch, require, the
// file system) exists there: only `input`, `console` and the standard ECMAScript globals.
// Scripts are synchronous plus promise jobs: there is no setTimeout, no I/O and no module
// loading, so a promise that waits on anything else never settles.
import variant from "@jitl/quickjs-singlefile-cjs-release-sync";
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import {
  resolveLimits,
  type Sandbox,
  type SandboxFailure,
  type SandboxLimits,
  ScriptFailure,
  type ScriptLog,
  type ScriptRequest,
  type ScriptResult,
  scriptFailure,
  stackFailure,
  timeoutFailure,
} from "./sandbox.model.ts";
import { copyInput, evaluate, exportOutput, openVm, settle, type Vm } from "./sandbox.vm.ts";

export type {
  Sandbox,
  SandboxErrorKind,
  SandboxLimits,
  ScriptLog,
  ScriptResult,
} from "./sandbox.model.ts";

// A host exception thrown out of a VM call (typically the host's own stack overflow, which
// this WASM build can hit before QuickJS's stack check does) leaves the module's memory in an
// unknown state: such a module is never touched again, not even to dispose it.
interface Engine {
  module: QuickJSWASMModule;
  poisoned: boolean;
}

interface RunOutcome {
  result: ScriptResult;
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

function loadEngine(): Promise<Engine> {
  const pending = newQuickJSWASMModuleFromVariant(variant).then((module) => {
    warmUp(module);
    return { module, poisoned: false };
  });
  // A background reload nobody awaits yet must not become an unhandled rejection.
  pending.catch(() => undefined);
  return pending;
}

function serializeInput(input: unknown, limits: SandboxLimits): string {
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

function hostFailure(error: unknown, vm: Vm | undefined, limits: SandboxLimits): SandboxFailure {
  if (error instanceof ScriptFailure) return error.failure;
  if (vm?.state.interrupted) return timeoutFailure(limits);
  if (error instanceof RangeError && /call stack/i.test(error.message)) return stackFailure();
  return scriptFailure(`sandbox internal error: ${String(error)}`);
}

function closeVm(vm: Vm): boolean {
  try {
    vm.scope.dispose();
    return true;
  } catch {
    return false;
  }
}

function runIsolated(
  module: QuickJSWASMModule,
  request: ScriptRequest,
  limits: Required<SandboxLimits>,
): RunOutcome {
  const startedAt = performance.now();
  const logs: ScriptLog[] = [];
  let vm: Vm | undefined;
  let verdict: { ok: true; output: unknown } | { ok: false; error: SandboxFailure };
  let poisoned = false;
  try {
    const json = serializeInput(request.input, limits);
    vm = openVm(module, limits, logs);
    const output = exportOutput(vm, settle(vm, evaluate(vm, request, copyInput(vm, json))));
    verdict = { ok: true, output };
  } catch (error) {
    poisoned = !(error instanceof ScriptFailure);
    verdict = { ok: false, error: hostFailure(error, vm, limits) };
  }
  // Whichever limit fired first decides the kind; once interrupted, every later error is noise.
  if (vm?.state.interrupted) verdict = { ok: false, error: timeoutFailure(limits) };
  if (vm && !poisoned) poisoned = !closeVm(vm);
  return { poisoned, result: { ...verdict, logs, durationMs: performance.now() - startedAt } };
}

/**
 * Loads the QuickJS engine once and returns a sandbox whose runs are each isolated in a fresh
 * runtime, bounded by `defaults` unless a call overrides them.
 */
export async function createSandbox(defaults: SandboxLimits): Promise<Sandbox> {
  resolveLimits(defaults);
  let engine: Promise<Engine> | null = loadEngine();
  await engine;

  const nextEngine = (): Promise<Engine> => {
    const pending = engine;
    if (pending === null) return Promise.reject(new Error("sandbox is closed"));
    return pending.catch((error: unknown) => {
      if (engine === pending) engine = loadEngine();
      throw error;
    });
  };

  return {
    async runScript(request) {
      const limits = resolveLimits(defaults, request.limits);
      for (;;) {
        const current = await nextEngine();
        // Checked with no await before the run: a concurrent run may have poisoned this engine
        // (and already started its replacement) while we were waiting.
        if (current.poisoned) continue;
        const outcome = runIsolated(current.module, request, limits);
        if (outcome.poisoned) {
          current.poisoned = true;
          if (engine !== null) engine = loadEngine();
        }
        return outcome.result;
      }
    },
    close() {
      engine = null;
    },
  };
}
