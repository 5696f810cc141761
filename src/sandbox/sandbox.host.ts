// Host function calls, seen from inside one run: the script's call returns a QuickJS promise
// at once, the bridge carries the call to the host, and the reply settles that promise when the
// run next waits. Replies are applied between job drains, never re-entrantly.
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
} from "quickjs-emscripten-core";
import { MAX_HOST_ARGS_CHARS, MAX_HOST_CALLS } from "./sandbox.model.ts";
import type { HostBridge, HostReply } from "./sandbox.protocol.ts";

/** The host calls of one run: promises still open and replies not yet applied. */
export interface HostCalls {
  pending: Map<number, QuickJSDeferredPromise>;
  arrived: { callId: number; reply: HostReply }[];
  made: number;
  wake: (() => void) | null;
}

export function newHostCalls(): HostCalls {
  return { pending: new Map(), arrived: [], made: 0, wake: null };
}

/**
 * The native `hostCall(name, argsJson)` the prelude wraps into one global per host function.
 * It throws (inside the script) past the per-run call budget or for oversized arguments.
 */
export function newHostCallFunction(
  context: QuickJSContext,
  calls: HostCalls,
  bridge: HostBridge,
): QuickJSHandle {
  return context.newFunction("hostCall", (nameHandle, argsHandle) => {
    if (!nameHandle || !argsHandle) throw new TypeError("hostCall needs a name and arguments");
    if (calls.made >= MAX_HOST_CALLS) {
      throw new RangeError(`a script may make at most ${MAX_HOST_CALLS} host calls`);
    }
    const argsJson = context.getString(argsHandle);
    if (argsJson.length > MAX_HOST_ARGS_CHARS) {
      throw new RangeError("host call arguments too large");
    }
    calls.made += 1;
    const callId = calls.made;
    const deferred = context.newPromise();
    calls.pending.set(callId, deferred);
    const arrive = (reply: HostReply) => {
      calls.arrived.push({ callId, reply });
      calls.wake?.();
    };
    bridge(context.getString(nameHandle), argsJson).then(arrive, (error: unknown) =>
      arrive({ ok: false, message: error instanceof Error ? error.message : String(error) }),
    );
    // newFunction disposes the returned handle after duplicating it; the deferred keeps its
    // resolvers, which are freed when it settles or when the run ends.
    return deferred.handle;
  });
}

/** Resolves after at least one reply arrived. */
export function nextReply(calls: HostCalls): Promise<void> {
  if (calls.arrived.length > 0) return Promise.resolve();
  return new Promise((resolve) => {
    calls.wake = () => {
      calls.wake = null;
      resolve();
    };
  });
}

/** Disposes every promise still open: a run may end while host calls are in flight. */
export function disposeHostCalls(calls: HostCalls): void {
  for (const deferred of calls.pending.values()) deferred.dispose();
  calls.pending.clear();
  calls.arrived.length = 0;
  calls.wake = null;
}
