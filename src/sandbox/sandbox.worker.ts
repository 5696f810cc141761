// Entry of a sandbox worker thread: loads its own QuickJS engine, then runs one job at a time
// for the pool (sandbox.pool.ts) and relays the script's host calls back to it. Between runs it
// holds the engine and the reusable realms of recent scripts (sandbox.realm.ts); every other run
// gets a fresh runtime.
// It is a separate entrypoint of the compiled binary (scripts/build, EXTRA_ENTRYPOINTS).
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { isMainThread } from "node:worker_threads";
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { closeVm, loadEngine, runIsolated, runReusing, wasmHeapBytes } from "./sandbox.engine.ts";
import type { ScriptResult } from "./sandbox.model.ts";
import type { FromWorker, HostBridge, HostReply, RunJob, ToWorker } from "./sandbox.protocol.ts";
import { REALMS_PER_WORKER, RealmCache } from "./sandbox.realm.ts";

declare const self: Worker;

// When a script and the main loop (captures, socket pushes) want the same core, the main loop
// should win: this thread runs at a lower scheduling priority. Linux nice values apply per
// thread; elsewhere, or if refused, the worker simply keeps the default priority.
const WORKER_NICE = 10;

function lowerThreadPriority(): void {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isSafeInteger(threadId) && threadId > 0) setPriority(threadId, WORKER_NICE);
  } catch {
    // Best effort only.
  }
}

const post = (message: FromWorker) => self.postMessage(message);
const replies = new Map<number, (reply: HostReply) => void>();
let nextCallId = 0;
// A realm that cannot even be disposed leaves the module in doubt: the next run recycles.
let disposeFailed = false;
const realms = new RealmCache(REALMS_PER_WORKER, (realm) => {
  if (!closeVm(realm.vm)) disposeFailed = true;
});

/**
 * A run that went over its memory limit can leave this thread's WASM memory up to twice the
 * limit larger, for good (it never shrinks). A fresh worker gives that memory back. A stack
 * overflow is a memory_limit failure too but grows nothing, so it keeps its worker, and so does
 * a successful run that needed a large heap (bounded by the limit, reused by later runs).
 */
function overLimitAndGrew(result: ScriptResult, bytesBefore: number, bytesAfter: number): boolean {
  if (result.ok || result.error.kind !== "memory_limit") return false;
  return bytesAfter > bytesBefore;
}

async function run(module: QuickJSWASMModule, runId: number, job: RunJob): Promise<void> {
  const bridge: HostBridge = (name, argsJson) => {
    nextCallId += 1;
    const callId = nextCallId;
    post({ type: "host-call", runId, callId, name, argsJson });
    return new Promise<HostReply>((resolve) => replies.set(callId, resolve));
  };
  const bytesBefore = wasmHeapBytes(module) ?? 0;
  const { reuseKey } = job;
  const outcome =
    reuseKey === undefined || job.compileOnly
      ? await runIsolated(module, job, bridge)
      : await runReusing(module, realms, { ...job, reuseKey }, bridge);
  replies.clear();
  const grew = overLimitAndGrew(outcome.result, bytesBefore, wasmHeapBytes(module) ?? 0);
  post({
    type: "done",
    runId,
    result: outcome.result,
    recycle: outcome.poisoned || disposeFailed || grew,
    mainThread: isMainThread,
    reused: outcome.reused,
    kept: outcome.kept,
  });
}

lowerThreadPriority();
try {
  const module = await loadEngine();
  self.onmessage = (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    if (message.type === "run") void run(module, message.runId, message.job);
    else replies.get(message.callId)?.(message.reply);
  };
  post({ type: "ready" });
} catch (error) {
  post({ type: "fatal", message: error instanceof Error ? error.message : String(error) });
}
