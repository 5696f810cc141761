import type { Sandbox, ScriptLog } from "../sandbox/sandbox.model.ts";
import {
  ENTRY,
  interpretOutput,
  type ScriptableRequest,
  SYNTAX_CHECK,
  syntaxErrorMessage,
  type TransformationOutcome,
  wrapSource,
} from "./transformations.model.ts";

/** A run with what the script logged, as the test endpoints show it. */
export type TransformationRun = TransformationOutcome & { logs: ScriptLog[] };

/**
 * Runs transformations in the sandbox. The wrapped source of each saved transformation is kept
 * per version (its code), so a run only pays for the sandbox; every run still gets its own
 * fresh runtime from the sandbox, so no state leaks from one event to the next.
 */
export function createTransformationRunner(sandbox: Sandbox) {
  const prepared = new Map<string, { code: string; source: string }>();
  const MAX_PREPARED = 1000;

  function sourceFor(key: string | null, code: string): string {
    if (key === null) return wrapSource(code);
    const hit = prepared.get(key);
    if (hit && hit.code === code) return hit.source;
    if (prepared.size >= MAX_PREPARED) prepared.clear();
    const source = wrapSource(code);
    prepared.set(key, { code, source });
    return source;
  }

  return {
    /** Runs `code` (saved under `key`, or unsaved when null) on one request. */
    async run(
      key: string | null,
      code: string,
      request: ScriptableRequest,
      env: Record<string, string>,
    ): Promise<TransformationRun> {
      const result = await sandbox.runScript({
        code: sourceFor(key, code),
        input: { request, env },
        entry: ENTRY,
      });
      if (!result.ok) {
        const { kind, message } = result.error;
        return { error: { code: kind, message }, logs: result.logs };
      }
      return { ...interpretOutput(result.output, request), logs: result.logs };
    },

    /** The 422 message for code that does not parse, or null. Parses without running it. */
    async syntaxError(code: string): Promise<string | null> {
      const result = await sandbox.runScript({
        code: SYNTAX_CHECK,
        input: { code },
        entry: "check",
      });
      if (!result.ok) return `could not be checked: ${result.error.message}`;
      const found = result.output as { message: string; line: number | null } | null;
      return found ? syntaxErrorMessage(found, code) : null;
    },

    forget(key: string): void {
      prepared.delete(key);
    },
  };
}

export type TransformationRunner = ReturnType<typeof createTransformationRunner>;
