// The sandbox room's public face: the only place user JavaScript runs. Callers get a pool of
// worker threads (sandbox.pool.ts), each running scripts in fresh QuickJS runtimes
// (sandbox.engine.ts) or, for a request with a reuseKey, in a frozen realm kept for the same code
// (sandbox.realm.ts), so no script ever runs on the main event loop.

export type {
  HostFunction,
  Sandbox,
  SandboxErrorKind,
  SandboxLimits,
  SandboxStats,
  ScriptLocation,
  ScriptLog,
  ScriptRequest,
  ScriptResult,
} from "./sandbox.model.ts";
export { createSandbox, type SandboxOptions } from "./sandbox.pool.ts";
