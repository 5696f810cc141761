// The messages between the pool (main thread) and a sandbox worker. Everything crossing is a
// structured-clone copy: input and host values travel as JSON text, so no host object (with its
// prototype) ever reaches a script, and nothing of a script reaches the host but plain data.
import type { SandboxLimits, ScriptResult } from "./sandbox.model.ts";

/** One script run as the worker receives it: already validated and serialized by the pool. */
export interface RunJob {
  code: string;
  inputJson: string;
  entry?: string;
  limits: Required<SandboxLimits>;
  hostNames: string[];
  /** Run in the worker's reusable realm of this key (ScriptRequest.reuseKey). */
  reuseKey?: string;
  /** Parse only (ScriptRequest.compileOnly). */
  compileOnly?: boolean;
}

/** The host's answer to one host function call. */
export type HostReply = { ok: true; json: string } | { ok: false; message: string };

/** How the engine reaches host functions: the pool relays calls to the main thread. */
export type HostBridge = (name: string, argsJson: string) => Promise<HostReply>;

export type ToWorker =
  | { type: "run"; runId: number; job: RunJob }
  | { type: "host-reply"; runId: number; callId: number; reply: HostReply };

export type FromWorker =
  | { type: "ready" }
  | { type: "host-call"; runId: number; callId: number; name: string; argsJson: string }
  | {
      type: "done";
      runId: number;
      result: ScriptResult;
      /** The engine is in doubt (a host fault) or holds a grown heap: replace this worker. */
      recycle: boolean;
      /** Always false from a real worker; lets the pool prove where a run happened. */
      mainThread: boolean;
      /** The run found its realm prepared by an earlier run (and kept it, if `kept`). */
      reused: boolean;
      /** The worker holds this run's realm for the next run with its key. */
      kept: boolean;
    }
  | { type: "fatal"; message: string };
