// One isolated QuickJS runtime+context and the steps of a run inside it. Every handle created
// here is owned by the VM's scope; failures surface as ScriptFailure with a classified kind.
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
  type ScriptLog,
  scriptFailure,
  timeoutFailure,
} from "./sandbox.model.ts";
import { installPrelude, type PreludeHelpers } from "./sandbox.prelude.ts";
import type { HostBridge } from "./sandbox.protocol.ts";

/** A live runtime+context for one run; dispose through `scope`. */
export interface Vm {
  scope: Scope;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  helpers: PreludeHelpers;
  limits: Required<SandboxLimits>;
  state: { interrupted: boolean; deadline: number };
  host: HostCalls;
}

/** Creates a fresh runtime+context with the run's limits and console installed. */
export function openVm(
  module: QuickJSWASMModule,
  limits: Required<SandboxLimits>,
  logs: ScriptLog[],
  hostNames: readonly string[],
  bridge: HostBridge,
): Vm {
  const scope = new Scope();
  // The clock starts in copyInput: our own setup (slow on a freshly loaded engine) must not eat
  // into the script's budget.
  const state = { interrupted: false, deadline: Number.POSITIVE_INFINITY };
  const runtime = scope.manage(module.newRuntime());
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  // Called by QuickJS every few thousand branches; once past the deadline it keeps answering
  // "interrupt", so nothing more can run in this VM, not even our own helpers.
  runtime.setInterruptHandler(() => {
    if (performance.now() < state.deadline) return false;
    state.interrupted = true;
    return true;
  });
  const context = scope.manage(runtime.newContext());
  const host = newHostCalls();
  const helpers = installPrelude(context, scope, logs, { names: hostNames, calls: host, bridge });
  return { scope, runtime, context, helpers, limits, state, host };
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
  return new ScriptFailure(classifyException(text, vm.limits));
}

function unwrap(vm: Vm, result: VmCallResult<QuickJSHandle>): QuickJSHandle {
  if (result.error) throw failureOf(vm, vm.scope.manage(result.error));
  return vm.scope.manage(result.value);
}

function call(vm: Vm, fn: QuickJSHandle, args: QuickJSHandle[]): QuickJSHandle {
  return unwrap(vm, vm.context.callFunction(fn, vm.context.undefined, args));
}

/** Starts the CPU clock and copies the input in as the global `input` (parsed in the VM). */
export function copyInput(vm: Vm, json: string): QuickJSHandle {
  vm.state.deadline = performance.now() + vm.limits.cpuMs;
  const text = vm.scope.manage(vm.context.newString(json));
  const value = call(vm, vm.helpers.parse, [text]);
  vm.context.setProp(vm.context.global, "input", value);
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
  const completion = unwrap(vm, context.evalCode(request.code, "script.js", { type: "global" }));
  if (request.entry === undefined) return completion;
  const fn = vm.scope.manage(context.getProp(context.global, request.entry));
  if (vm.state.interrupted) throw new ScriptFailure(timeoutFailure(vm.limits));
  if (context.typeof(fn) !== "function") {
    throw new ScriptFailure(scriptFailure(`entry function "${request.entry}" is not defined`));
  }
  return call(vm, fn, [input]);
}

function drainJobs(vm: Vm): void {
  // Jobs run under the same interrupt handler, so the CPU deadline covers async work too.
  const jobs = vm.runtime.executePendingJobs(-1);
  if (jobs.error) throw failureOf(vm, vm.scope.manage(jobs.error));
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
      const text = vm.scope.manage(context.newString(reply.json));
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
  if (state.type === "rejected") throw failureOf(vm, vm.scope.manage(state.error));
  return state.notAPromise ? value : vm.scope.manage(state.value);
}

/** Copies the result out as JSON; undefined becomes null. */
export function exportOutput(vm: Vm, value: QuickJSHandle): unknown {
  const json = call(vm, vm.helpers.toJson, [value]);
  if (vm.context.typeof(json) !== "string") {
    throw new ScriptFailure(scriptFailure("script output is not JSON-serializable"));
  }
  return JSON.parse(vm.context.getString(json));
}

/** Frees the VM; open host promises hold handles, so they go before the context does. */
export function disposeVm(vm: Vm): void {
  disposeHostCalls(vm.host);
  vm.scope.dispose();
}
