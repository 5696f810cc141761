// Entry of a sandbox worker thread: loads its own QuickJS engine, then runs one job at a time
// for the pool (sandbox.pool.ts) and relays the script's host calls back to it. It holds no state
// between runs beyond the engine itself; every run gets a fresh runtime.
// It is a separate entrypoint of the compiled binary (scripts/build, EXTRA_ENTRYPOINTS).
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { isMainThread } from "node:worker_threads";
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { loadEngine, runIsolated, wasmHeapBytes } from "./sandbox.engine.ts";
import type { ScriptResult } from "./sandbox.model.ts";
import type { FromWorker, HostReply, RunJob, ToWorker } from "./sandbox.protocol.ts";

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
let loadedBytes = 0;

/**
 * A run that went over its memory limit can leave this thread's WASM memory up to twice the
 * limit larger, for good (it never shrinks). A fresh worker gives that memory back. A stack
 * overflow is a memory_limit failure too but grows nothing, so it keeps its worker, and so does
 * a successful run that needed a large heap (bounded by the limit, reused by later runs).
 */
function overLimitAndGrown(module: QuickJSWASMModule, result: ScriptResult): boolean {
  if (result.ok || result.error.kind !== "memory_limit") return false;
  return (wasmHeapBytes(module) ?? loadedBytes) > loadedBytes;
}

async function run(module: QuickJSWASMModule, runId: number, job: RunJob): Promise<void> {
  const outcome = await runIsolated(module, job, (name, argsJson) => {
    nextCallId += 1;
    const callId = nextCallId;
    post({ type: "host-call", runId, callId, name, argsJson });
    return new Promise<HostReply>((resolve) => replies.set(callId, resolve));
  });
  replies.clear();
  post({
    type: "done",
    runId,
    result: outcome.result,
    recycle: outcome.poisoned || overLimitAndGrown(module, outcome.result),
    mainThread: isMainThread,
  });
}

lowerThreadPriority();
try {
  const module = await loadEngine();
  loadedBytes = wasmHeapBytes(module) ?? 0;
  self.onmessage = (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    if (message.type === "run") void run(module, message.runId, message.job);
    else replies.get(message.callId)?.(message.reply);
  };
  post({ type: "ready" });
} catch (error) {
  post({ type: "fatal", message: error instanceof Error ? error.message : String(error) });
}
