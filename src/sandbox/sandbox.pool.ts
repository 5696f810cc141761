// The sandbox as the rest of Weir sees it: a small pool of worker threads, each with its own
// QuickJS engine, so a script spinning for its whole CPU budget never stalls the main event loop
// (capture commits, socket pushes). One run per worker at a time, a bounded queue in front, a
// wall-clock watchdog behind the in-engine CPU deadline, and a worker that crashes, hangs or
// grows past a limit is terminated and replaced.
import { sandboxBusy, sandboxClosed, sandboxUnavailable } from "./sandbox.errors.ts";
import {
  failedResult,
  type HostFunction,
  hostFunctionNames,
  resolveLimits,
  type Sandbox,
  type SandboxLimits,
  type SandboxStats,
  ScriptFailure,
  type ScriptRequest,
  type ScriptResult,
  scriptFailure,
  serializeInput,
  timeoutFailure,
} from "./sandbox.model.ts";
import type { FromWorker, RunJob, ToWorker } from "./sandbox.protocol.ts";
import { REALMS_PER_WORKER } from "./sandbox.realm.ts";
import { callHostFunction } from "./sandbox.relay.ts";
import { createTenantQueues } from "./sandbox.tenant-queues.ts";
import { startWatchdog, type Watchdog } from "./sandbox.watchdog.ts";

export interface SandboxOptions {
  /** Limits of a run unless the request overrides them. */
  limits: SandboxLimits;
  /** Worker threads at most (config sandbox_workers). */
  workers: number;
  /**
   * Runs of one tenant that may wait for a free worker before runScript refuses that tenant's
   * next (config sandbox_queue_limit).
   */
  queueLimit: number;
  /** Wall-clock time past the CPU limit before a run's worker is killed. */
  killGraceMs?: number;
  /** The worker's entry module; tests substitute a misbehaving one. */
  workerEntry?: string | URL;
}

// The memory limit can take seconds of GC thrash to fire (performance guide), and freeing a
// deeply nested heap takes its time on a busy machine, so the watchdog leaves generous room
// before it calls a worker hung: it is the backstop for engine faults, not the CPU limit.
const DEFAULT_KILL_GRACE_MS = 5000;

interface Job {
  runId: number;
  tenant: string;
  run: RunJob;
  hostFunctions: Record<string, HostFunction>;
  resolve(result: ScriptResult): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  watchdog: Watchdog | null;
  openHostCalls: number;
  /** Reuse keys whose realm the worker holds, least recently used first (mirrors its cache). */
  realmKeys: Set<string>;
}

/**
 * In a compiled binary every bundled module shares the main entry's import.meta.url
 * (/$bunfs/root/weir), and the worker, an extra entrypoint of scripts/build, is embedded under
 * its path relative to src/, the common root of those entrypoints.
 */
function defaultWorkerEntry(): string | URL {
  if (import.meta.url.includes("/$bunfs/")) {
    return new URL("./sandbox/sandbox.worker.ts", import.meta.url);
  }
  return new URL("./sandbox.worker.ts", import.meta.url);
}

/** Creates the worker pool; workers start on first use, not here. */
export function createSandbox(options: SandboxOptions): Sandbox {
  resolveLimits(options.limits);
  const entry = options.workerEntry ?? defaultWorkerEntry();
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const slots: Slot[] = [];
  const queue = createTenantQueues<Job>();
  const counters = { started: 0, replaced: 0, runsInWorkers: 0, reusedRuns: 0 };
  let nextRunId = 0;
  let closed = false;

  const send = (slot: Slot, message: ToWorker) => slot.worker.postMessage(message);

  function retire(slot: Slot): void {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    slot.watchdog?.cancel();
    slot.watchdog = null;
    slot.job = null;
    try {
      slot.worker.terminate();
    } catch {
      // Already gone.
    }
  }

  /** Drops a faulty worker; a fresh one takes its place at once so the next run finds it warm. */
  function replace(slot: Slot): void {
    retire(slot);
    counters.replaced += 1;
    if (!closed && slots.length < options.workers) spawn();
  }

  function failStartup(slot: Slot, reason: string): void {
    retire(slot);
    const error = sandboxUnavailable(reason);
    for (const job of queue.drain()) job.reject(error);
  }

  function finish(slot: Slot, result: ScriptResult): void {
    const job = slot.job;
    slot.watchdog?.cancel();
    slot.watchdog = null;
    slot.job = null;
    slot.openHostCalls = 0;
    job?.resolve(result);
  }

  function onHang(slot: Slot): void {
    const job = slot.job;
    if (!job) return;
    const failure = timeoutFailure(job.run.limits);
    const message = `${failure.message}; its worker did not stop and was killed`;
    replace(slot);
    job.resolve(failedResult({ kind: "timeout", message }, job.run.limits.cpuMs + killGraceMs));
    pump();
  }

  function onExit(slot: Slot, reason: string): void {
    if (!slots.includes(slot)) return;
    if (!slot.ready) {
      failStartup(slot, reason);
      return;
    }
    const job = slot.job;
    replace(slot);
    job?.resolve(failedResult(scriptFailure(`the sandbox worker crashed: ${reason}`)));
    pump();
  }

  async function relayHostCall(slot: Slot, message: FromWorker & { type: "host-call" }) {
    const job = slot.job;
    if (!job || job.runId !== message.runId) return;
    slot.openHostCalls += 1;
    slot.watchdog?.pause();
    const { name, argsJson } = message;
    const reply = await callHostFunction(
      job.hostFunctions,
      name,
      argsJson,
      job.run.limits.memoryBytes,
    );
    if (slot.job !== job) return;
    slot.openHostCalls -= 1;
    if (slot.openHostCalls === 0) slot.watchdog?.resume();
    send(slot, { type: "host-reply", runId: job.runId, callId: message.callId, reply });
  }

  function onMessage(slot: Slot, message: FromWorker): void {
    if (!slots.includes(slot)) return;
    if (message.type === "ready") slot.ready = true;
    else if (message.type === "fatal") {
      failStartup(slot, message.message);
      return;
    } else if (message.type === "host-call") void relayHostCall(slot, message);
    else if (slot.job?.runId === message.runId) {
      if (!message.mainThread) counters.runsInWorkers += 1;
      if (message.reused) counters.reusedRuns += 1;
      noteRealm(slot, slot.job.run.reuseKey, message.kept);
      finish(slot, message.result);
      if (message.recycle) replace(slot);
    }
    pump();
  }

  function spawn(): void {
    const worker = new Worker(entry);
    // Idle workers must not keep a process alive; a running job's watchdog timer does.
    worker.unref();
    const slot: Slot = {
      worker,
      ready: false,
      job: null,
      watchdog: null,
      openHostCalls: 0,
      realmKeys: new Set(),
    };
    slots.push(slot);
    counters.started += 1;
    worker.onmessage = (event: MessageEvent<FromWorker>) => onMessage(slot, event.data);
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      onExit(slot, event.message || "uncaught error");
    });
    worker.addEventListener("close", () => onExit(slot, "the worker thread exited"));
  }

  function start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.watchdog = startWatchdog(job.run.limits.cpuMs + killGraceMs, () => onHang(slot));
    send(slot, { type: "run", runId: job.runId, job: job.run });
  }

  function noteRealm(slot: Slot, key: string | undefined, kept: boolean): void {
    if (key === undefined) return;
    slot.realmKeys.delete(key);
    if (!kept) return;
    slot.realmKeys.add(key);
    for (const oldest of slot.realmKeys) {
      if (slot.realmKeys.size <= REALMS_PER_WORKER) break;
      slot.realmKeys.delete(oldest);
    }
  }

  /** An idle worker for `job`: preferably one that holds its realm already. */
  function pick(idle: Slot[], job: Job): number {
    const key = job.run.reuseKey;
    const affine = key === undefined ? -1 : idle.findIndex((slot) => slot.realmKeys.has(key));
    return Math.max(affine, 0);
  }

  function pump(): void {
    if (closed) return;
    const idle = slots.filter((slot) => slot.job === null);
    for (let missing = queue.size() - idle.length; missing > 0; missing--) {
      if (slots.length >= options.workers) break;
      spawn();
    }
    const ready = idle.filter((slot) => slot.ready);
    while (ready.length > 0) {
      const job = queue.shift();
      if (!job) break;
      const [slot] = ready.splice(pick(ready, job), 1);
      if (slot) start(slot, job);
    }
  }

  function enqueue(request: ScriptRequest): Promise<ScriptResult> {
    const limits = resolveLimits(options.limits, request.limits);
    const hostNames = hostFunctionNames(request);
    let inputJson: string;
    try {
      inputJson = serializeInput(request.input, limits);
    } catch (error) {
      if (error instanceof ScriptFailure) return Promise.resolve(failedResult(error.failure));
      throw error;
    }
    const tenant = request.tenant ?? "";
    if (queue.waiting(tenant) >= options.queueLimit) throw sandboxBusy(options.queueLimit);
    nextRunId += 1;
    const run: RunJob = {
      code: request.code,
      inputJson,
      entry: request.entry,
      limits,
      hostNames,
      reuseKey: request.reuseKey,
      compileOnly: request.compileOnly,
    };
    const hostFunctions = request.hostFunctions ?? {};
    return new Promise((resolve, reject) => {
      queue.push(tenant, { runId: nextRunId, tenant, run, hostFunctions, resolve, reject });
      pump();
    });
  }

  return {
    async runScript(request) {
      if (closed) throw sandboxClosed();
      return enqueue(request);
    },
    stats(): SandboxStats {
      return {
        size: options.workers,
        workers: slots.length,
        busy: slots.filter((slot) => slot.job !== null).length,
        queued: queue.size(),
        ...counters,
      };
    },
    close() {
      closed = true;
      for (const slot of [...slots]) {
        slot.job?.reject(sandboxClosed());
        retire(slot);
      }
      for (const job of queue.drain()) job.reject(sandboxClosed());
    },
  };
}
