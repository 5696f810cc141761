// The VM-side prelude: installs `console` and the host functions, and hands back helpers the
// runner needs. It runs before
// user code, so the helpers hold the pristine JSON/String built-ins even if a script later
// replaces them.
import type { QuickJSContext, QuickJSHandle, Scope } from "quickjs-emscripten-core";
import { type HostCalls, newHostCallFunction } from "./sandbox.host.ts";
import {
  LOG_LEVELS,
  MAX_LOG_LINES,
  MAX_LOG_MESSAGE_CHARS,
  type ScriptLog,
  type ScriptLogLevel,
} from "./sandbox.model.ts";
import type { HostBridge } from "./sandbox.protocol.ts";

const PRELUDE_SOURCE = `(function (sink, maxChars, levels, hostCall, hostNames) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toStr = String;
  const ErrorCtor = Error;
  const slice = Function.prototype.call.bind(String.prototype.slice);
  const show = (v) => {
    if (typeof v === "string") return v;
    try {
      const s = stringify(v);
      return s === undefined ? toStr(v) : s;
    } catch {
      try { return toStr(v); } catch { return "[unprintable]"; }
    }
  };
  const logger = (level) => (...args) => {
    let line = "";
    for (let i = 0; i < args.length && line.length <= maxChars; i++) {
      line += (i === 0 ? "" : " ") + show(args[i]);
    }
    sink(level, slice(line, 0, maxChars));
  };
  // Binary buffers are allocated outside the engine's memory accounting: a script could hold
  // gigabytes under a 32 MiB limit. Scripts work on JSON and text, so they are removed before
  // user code runs; nothing left in the context can build one.
  for (const name of ["ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics",
    "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
    "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array",
    "BigUint64Array"]) {
    delete globalThis[name];
  }
  const console = {};
  for (let i = 0; i < levels.length; i++) console[levels[i]] = logger(levels[i]);
  Object.defineProperty(globalThis, "console", { value: console, writable: true, configurable: true });
  for (let i = 0; i < hostNames.length; i++) {
    const name = hostNames[i];
    const call = (...args) => hostCall(name, stringify(args));
    Object.defineProperty(globalThis, name, { value: call, writable: true, configurable: true });
  }
  return {
    parse,
    toJson: (v) => {
      const s = stringify(v);
      return s === undefined ? "null" : s;
    },
    describe: (e) => {
      try {
        if (!(e instanceof ErrorCtor)) return toStr(e);
        const message = toStr(e.message);
        return message === "" ? toStr(e.name) : toStr(e.name) + ": " + message;
      } catch {
        return "uncaught exception (could not be described)";
      }
    },
    stackOf: (e) => {
      try {
        const stack = e !== null && typeof e === "object" ? e.stack : undefined;
        return typeof stack === "string" ? slice(stack, 0, 4096) : "";
      } catch {
        return "";
      }
    },
  };
})`;

/** VM functions captured by the prelude, owned by the run's scope. */
export interface PreludeHelpers {
  /** JSON.parse, for copying host input in. */
  parse: QuickJSHandle;
  /** JSON.stringify that maps undefined to "null", for copying output out. */
  toJson: QuickJSHandle;
  /** Turns any thrown value into "Name: message" (errors) or its string form. */
  describe: QuickJSHandle;
  /** The `stack` text of a thrown error ("" for anything else), for its location. */
  stackOf: QuickJSHandle;
}

function newSink(context: QuickJSContext, logs: ScriptLog[]): QuickJSHandle {
  const levels = new Set<string>(LOG_LEVELS);
  // Argument handles are owned (and disposed) by quickjs-emscripten after the call returns.
  return context.newFunction("sink", (levelHandle, messageHandle) => {
    if (logs.length >= MAX_LOG_LINES || !levelHandle || !messageHandle) return;
    if (context.typeof(levelHandle) !== "string" || context.typeof(messageHandle) !== "string") {
      return;
    }
    const level = context.getString(levelHandle);
    if (!levels.has(level)) return;
    const message = context.getString(messageHandle).slice(0, MAX_LOG_MESSAGE_CHARS);
    logs.push({ level: level as ScriptLogLevel, message });
  });
}

function newStringArray(
  context: QuickJSContext,
  scope: Scope,
  strings: readonly string[],
): QuickJSHandle {
  const array = scope.manage(context.newArray());
  strings.forEach((text, index) => {
    context.newString(text).consume((h) => context.setProp(array, index, h));
  });
  return array;
}

/** The host functions one run may call, and where their calls go. */
export interface PreludeHost {
  names: readonly string[];
  calls: HostCalls;
  bridge: HostBridge;
}

/** Evaluates the prelude in a fresh context; every handle it creates is managed by `scope`. */
export function installPrelude(
  context: QuickJSContext,
  scope: Scope,
  logs: ScriptLog[],
  host: PreludeHost,
): PreludeHelpers {
  const factory = scope.manage(
    context.unwrapResult(context.evalCode(PRELUDE_SOURCE, "prelude.js")),
  );
  const args = [
    scope.manage(newSink(context, logs)),
    scope.manage(context.newNumber(MAX_LOG_MESSAGE_CHARS)),
    newStringArray(context, scope, LOG_LEVELS),
    scope.manage(newHostCallFunction(context, host.calls, host.bridge)),
    newStringArray(context, scope, host.names),
  ];
  const helpers = scope.manage(
    context.unwrapResult(context.callFunction(factory, context.undefined, args)),
  );
  return {
    parse: scope.manage(context.getProp(helpers, "parse")),
    toJson: scope.manage(context.getProp(helpers, "toJson")),
    describe: scope.manage(context.getProp(helpers, "describe")),
    stackOf: scope.manage(context.getProp(helpers, "stackOf")),
  };
}
