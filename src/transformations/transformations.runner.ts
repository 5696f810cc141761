import type { Sandbox, ScriptLog } from "../sandbox/sandbox.model.ts";
import {
  ENTRY,
  interpretOutput,
  type ScriptableRequest,
  syntaxErrorMessage,
  type TransformationOutcome,
  transformationError,
  wrapSource,
} from "./transformations.model.ts";

/** A run with what the script logged, as the test endpoints show it. */
export type TransformationRun = TransformationOutcome & { logs: ScriptLog[] };

/**
 * Runs transformations in the sandbox, each under its key: a saved transformation's id, or one
 * key per organization for unsaved code. The sandbox keeps the key's code compiled in a frozen
 * realm (ScriptRequest.reuseKey) and hands it to the next run of the same version, which still
 * sees nothing an earlier run left behind; new code under a key replaces its realm.
 */
export function createTransformationRunner(sandbox: Sandbox) {
  const prepared = new Map<string, { code: string; source: string }>();
  const MAX_PREPARED = 1000;

  function sourceFor(key: string, code: string): string {
    const hit = prepared.get(key);
    if (hit && hit.code === code) return hit.source;
    if (prepared.size >= MAX_PREPARED) prepared.clear();
    const source = wrapSource(code);
    prepared.set(key, { code, source });
    return source;
  }

  return {
    /**
     * Runs `code`, the current version under `key`, on one request; `tenant` (the organization)
     * waits in its own turn in the sandbox's queue.
     */
    async run(
      key: string,
      code: string,
      request: ScriptableRequest,
      env: Record<string, string>,
      tenant?: string,
    ): Promise<TransformationRun> {
      const result = await sandbox.runScript({
        code: sourceFor(key, code),
        input: { request, env },
        entry: ENTRY,
        reuseKey: `transformation:${key}`,
        tenant,
      });
      if (!result.ok) return { error: transformationError(result.error, code), logs: result.logs };
      return { ...interpretOutput(result.output, request), logs: result.logs };
    },

    /**
     * The 422 message for code that does not parse, or null. The wrapped source is parsed the
     * way every run evaluates it, as a global script, so what passes here also compiles at run
     * time (a top-level `return`, or braces closing the wrapper early, do not); nothing runs.
     */
    async syntaxError(code: string, tenant?: string): Promise<string | null> {
      const result = await sandbox.runScript({ code: wrapSource(code), compileOnly: true, tenant });
      if (result.ok) return null;
      if (result.error.kind !== "script_error") {
        return `could not be checked: ${result.error.message}`;
      }
      return syntaxErrorMessage(result.error, code);
    },

    forget(key: string): void {
      prepared.delete(key);
    },
  };
}

export type TransformationRunner = ReturnType<typeof createTransformationRunner>;
