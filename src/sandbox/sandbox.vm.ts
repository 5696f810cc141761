// One QuickJS runtime+context and the steps of a run inside it. Handles that live as long as the
// VM (runtime, context, prelude helpers) are owned by `scope`; the handles of one run by `run`,
// disposed when the run ends, so a reusable realm (sandbox.realm.ts) carries none of them over.
// Failures surface as ScriptFailure with a classified kind.
import {
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
  Scope,
  type VmCallResult,
} from "quickjs-emscripten-core";
import { disposeHostCalls, type HostCalls, newHostCalls, nextReply } from "./sandbox.host.ts";
import {
  classifyException,
  memoryFailure,
  type SandboxLimits,
  ScriptFailure,
  type ScriptLocation,
  type ScriptLog,
  scriptFailure,
  timeoutFailure,
} from "./sandbox.model.ts";
import { installPrelude, type PreludeHelpers } from "./sandbox.prelude.ts";
import type { HostBridge, HostReply } from "./sandbox.protocol.ts";

/** The file name user code is evaluated under; stack frames in it locate an error. */
export const SCRIPT_FILE = "script.js";

/** A live runtime+context; dispose with disposeVm. */
export interface Vm {
  scope: Scope;
  /** Handles of the current run (beginRun replaces it, endRun disposes it). */
  run: Scope;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  helpers: PreludeHelpers;
  limits: Required<SandboxLimits>;
  state: { interrupted: boolean; deadline: number };
  host: HostCalls;
  /** What console.* wrote during the current run. */
  logs: ScriptLog[];
  /** Where the current run's host calls go. */
  bridge: HostBridge;
  /** Lines of wrapper in front of the request's code in SCRIPT_FILE. */
  lineOffset: number;
}

const noBridge: HostBridge = async () => ({ ok: false, message: "no run in progress" });

/** Creates a runtime+context with console and the host functions installed. */
export function openVm(
  module: QuickJSWASMModule,
  limits: Required<SandboxLimits>,
  hostNames: readonly string[],
): Vm {
  const scope = new Scope();
  // The clock starts in beginRun's caller: our own setup (slow on a freshly loaded engine) must
  // not eat into the script's budget.
  const state = { interrupted: false, deadline: Number.POSITIVE_INFINITY };
  const runtime = scope.manage(module.newRuntime());
  // Called by QuickJS every few thousand branches; once past the deadline it keeps answering
  // "interrupt", so nothing more can run in this VM, not even our own helpers.
  runtime.setInterruptHandler(() => {
    if (performance.now() < state.deadline) return false;
    state.interrupted = true;
    return true;
  });
  const context = scope.manage(runtime.newContext());
  const host = newHostCalls();
  const logs: ScriptLog[] = [];
  const vm = { scope, run: new Scope(), runtime, context, limits, state, host, logs } as Vm;
  vm.bridge = noBridge;
  vm.lineOffset = 0;
  const bridge = (name: string, argsJson: string): Promise<HostReply> => vm.bridge(name, argsJson);
  vm.helpers = installPrelude(context, scope, logs, { names: hostNames, calls: host, bridge });
  applyLimits(vm, limits);
  return vm;
}

function applyLimits(vm: Vm, limits: Required<SandboxLimits>): void {
  vm.limits = limits;
  vm.runtime.setMemoryLimit(limits.memoryBytes);
  vm.runtime.setMaxStackSize(limits.stackBytes);
}

/** Prepares the VM for one run: its limits, its host bridge, an empty log, a fresh clock. */
export function beginRun(vm: Vm, limits: Required<SandboxLimits>, bridge: HostBridge): void {
  applyLimits(vm, limits);
  vm.run = new Scope();
  vm.bridge = bridge;
  vm.logs.length = 0;
  vm.host.made = 0;
  vm.state.interrupted = false;
  vm.state.deadline = Number.POSITIVE_INFINITY;
}

/** Frees what the run created; open host promises hold handles, so they go first. */
export function endRun(vm: Vm): void {
  disposeHostCalls(vm.host);
  vm.bridge = noBridge;
  const finished = vm.run;
  vm.run = new Scope();
  finished.dispose();
}

/** Starts the script's CPU clock. */
export function startClock(vm: Vm): void {
  vm.state.deadline = performance.now() + vm.limits.cpuMs;
}

// A frame of the script's own code, as QuickJS prints it: "    at fn (script.js:3:7)", or
// "    at script.js:3:7" for a syntax error.
const FRAME_IN_SCRIPT = /[\s(]script\.js:(\d+):(\d+)/;

/** The innermost frame of the script's own code in a stack text, in the request's lines. */
export function locateInStack(stack: string, lineOffset: number): ScriptLocation | undefined {
  const match = FRAME_IN_SCRIPT.exec(stack);
  if (!match) return undefined;
  const line = Number(match[1]) - lineOffset;
  return line > 0 ? { line, column: Number(match[2]) } : undefined;
}

function locationOf(vm: Vm, error: QuickJSHandle): ScriptLocation | undefined {
  const { context, helpers } = vm;
  const stack = context.callFunction(helpers.stackOf, context.undefined, [error]);
  if (stack.error) {
    stack.error.dispose();
    return undefined;
  }
  const text = stack.value.consume((h) =>
    context.typeof(h) === "string" ? context.getString(h) : "",
  );
  return locateInStack(text, vm.lineOffset);
}

function failureOf(vm: Vm, error: QuickJSHandle): ScriptFailure {
  if (vm.state.interrupted) return new ScriptFailure(timeoutFailure(vm.limits));
  const { context, helpers } = vm;
  const described = context.callFunction(helpers.describe, context.undefined, [error]);
  if (described.error) {
    described.error.dispose();
    // The describer catches everything, so its own failure means the VM could not run even a
    // tiny function: it is out of time or out of heap.
    const failure = vm.state.interrupted ? timeoutFailure(vm.limits) : memoryFailure(vm.limits);
    return new ScriptFailure(failure);
  }
  const text = described.value.consume((h) =>
    context.typeof(h) === "string" ? context.getString(h) : "uncaught exception",
  );
  const failure = classifyException(text, vm.limits);
  if (failure.kind !== "script_error") return new ScriptFailure(failure);
  const location = locationOf(vm, error);
  return new ScriptFailure(location ? { ...failure, location } : failure);
}

/** The value of a VM call, owned by the run; a throw becomes a classified ScriptFailure. */
export function unwrap(vm: Vm, result: VmCallResult<QuickJSHandle>): QuickJSHandle {
  if (result.error) throw failureOf(vm, vm.run.manage(result.error));
  return vm.run.manage(result.value);
}

/** Calls `fn` with `args` (this = undefined); a throw becomes a classified ScriptFailure. */
export function call(vm: Vm, fn: QuickJSHandle, args: QuickJSHandle[]): QuickJSHandle {
  return unwrap(vm, vm.context.callFunction(fn, vm.context.undefined, args));
}

/** Copies the input in (parsed in the VM); `asGlobal` also makes it the global `input`. */
export function copyInput(vm: Vm, json: string, asGlobal: boolean): QuickJSHandle {
  const text = vm.run.manage(vm.context.newString(json));
  const value = call(vm, vm.helpers.parse, [text]);
  if (asGlobal) vm.context.setProp(vm.context.global, "input", value);
  return value;
}

/** Runs the script and, if asked, its entry function; returns the raw result. */
export function evaluate(
  vm: Vm,
  request: { code: string; entry?: string },
  input: QuickJSHandle,
): QuickJSHandle {
  const { context } = vm;
  // "global" keeps static import/export a syntax error; no loader is set, so import() rejects.
  const completion = unwrap(vm, context.evalCode(request.code, SCRIPT_FILE, { type: "global" }));
  if (request.entry === undefined) return completion;
  const fn = vm.run.manage(context.getProp(context.global, request.entry));
  if (vm.state.interrupted) throw new ScriptFailure(timeoutFailure(vm.limits));
  if (context.typeof(fn) !== "function") {
    throw new ScriptFailure(scriptFailure(`entry function "${request.entry}" is not defined`));
  }
  return call(vm, fn, [input]);
}

function drainJobs(vm: Vm): void {
  // Jobs run under the same interrupt handler, so the CPU deadline covers async work too.
  const jobs = vm.runtime.executePendingJobs(-1);
  if (jobs.error) throw failureOf(vm, vm.run.manage(jobs.error));
}

function isPending(vm: Vm, value: QuickJSHandle): boolean {
  const state = vm.context.getPromiseState(value);
  if (state.type === "fulfilled" && !state.notAPromise) state.value.dispose();
  if (state.type === "rejected") state.error.dispose();
  return state.type === "pending";
}

/** Settles the promises of the host calls that have been answered. */
function applyReplies(vm: Vm): void {
  const { context, host } = vm;
  for (const { callId, reply } of host.arrived.splice(0)) {
    const deferred = host.pending.get(callId);
    if (!deferred) continue;
    host.pending.delete(callId);
    if (reply.ok) {
      const text = vm.run.manage(context.newString(reply.json));
      deferred.resolve(call(vm, vm.helpers.parse, [text]));
    } else {
      context.newError(reply.message).consume((error) => deferred.reject(error));
    }
    deferred.dispose();
  }
}

/**
 * Drains promise jobs, waiting for host replies while the result still depends on them, and
 * unwraps a promise result. Time spent waiting on the host is not charged to the CPU budget.
 */
export async function settle(vm: Vm, value: QuickJSHandle): Promise<QuickJSHandle> {
  drainJobs(vm);
  while (vm.host.pending.size > 0 && isPending(vm, value)) {
    const waitStarted = performance.now();
    await nextReply(vm.host);
    vm.state.deadline += performance.now() - waitStarted;
    applyReplies(vm);
    drainJobs(vm);
  }
  const state = vm.context.getPromiseState(value);
  if (state.type === "pending") {
    const message = "script returned a promise that never settled (no timers or I/O exist here)";
    throw new ScriptFailure(scriptFailure(message));
  }
  if (state.type === "rejected") throw failureOf(vm, vm.run.manage(state.error));
  return state.notAPromise ? value : vm.run.manage(state.value);
}

/** Copies the result out as JSON; undefined becomes null. */
export function exportOutput(vm: Vm, value: QuickJSHandle): unknown {
  const json = call(vm, vm.helpers.toJson, [value]);
  if (vm.context.typeof(json) !== "string") {
    throw new ScriptFailure(scriptFailure("script output is not JSON-serializable"));
  }
  return JSON.parse(vm.context.getString(json));
}

/** Frees the VM: the current run's handles first, then the context and runtime. */
export function disposeVm(vm: Vm): void {
  endRun(vm);
  vm.scope.dispose();
}
