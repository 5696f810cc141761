// Host functions: a script calls back into the host across the worker boundary.
import { afterAll, describe, expect, test } from "bun:test";
import { pollUntil } from "../test-utils/poll.ts";
import { createSandbox, type ScriptResult } from "./sandbox.runner.ts";

const sandbox = createSandbox({
  limits: { cpuMs: 1000, memoryBytes: 16 * 1024 * 1024 },
  workers: 1,
  queueLimit: 10,
});

afterAll(() => sandbox.close());

function output(result: ScriptResult): unknown {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output;
}

describe("host functions", () => {
  test("arguments go out and results come back as JSON copies", async () => {
    const seen: unknown[][] = [];
    const result = await sandbox.runScript({
      code: `(async () => {
        const user = await lookup(input.id, { deep: [1, undefined] });
        return { name: user.name, missing: await lookup() };
      })()`,
      input: { id: 7 },
      hostFunctions: {
        lookup: (...args) => {
          seen.push(args);
          return args.length ? { name: `user ${args[0]}`, at: new Date(0) } : undefined;
        },
      },
    });
    expect(output(result)).toEqual({ name: "user 7", missing: null });
    expect(seen).toEqual([[7, { deep: [1, null] }], []]);
  });

  test("an async host function is awaited; its wait is not charged to the CPU budget", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = sandbox.runScript({
      code: "(async () => { const v = await slow(); return v + 1; })()",
      limits: { cpuMs: 50 },
      hostFunctions: {
        slow: async () => {
          await gate;
          return 41;
        },
      },
    });
    const waited = performance.now();
    // Released only once far more than the CPU budget of wall-clock time has passed.
    await pollUntil(() => performance.now() - waited > 200, { what: "4x the CPU budget to pass" });
    release();
    expect(output(await run)).toBe(42);
  });

  test("a host function that throws rejects the script's promise with its message", async () => {
    const result = await sandbox.runScript({
      code: `(async () => {
        try { await fail(); return "no error"; } catch (e) { return [e instanceof Error, e.message]; }
      })()`,
      hostFunctions: {
        fail: () => {
          throw new Error("upstream refused");
        },
      },
    });
    expect(output(result)).toEqual([true, "upstream refused"]);
  });

  test("an unhandled host failure fails the run as a script error, located at its await", async () => {
    const result = await sandbox.runScript({
      code: "(async () => await fail())()",
      hostFunctions: { fail: async () => Promise.reject(new Error("nope")) },
    });
    expect(result.ok ? null : result.error).toEqual({
      kind: "script_error",
      message: "Error: nope",
      location: { line: 1, column: 24 },
    });
  });

  test("an entry function can use host functions and console together", async () => {
    const result = await sandbox.runScript({
      code: "async function handle(x) { console.log('asking'); return await add(x, 1); }",
      entry: "handle",
      input: 2,
      hostFunctions: { add: (a, b) => Number(a) + Number(b) },
    });
    expect(output(result)).toBe(3);
    expect(result.logs).toEqual([{ level: "log", message: "asking" }]);
  });

  test("a script spinning after a host call still stops at its CPU deadline", async () => {
    const result = await sandbox.runScript({
      code: "(async () => { await ping(); for (;;) {} })()",
      limits: { cpuMs: 100 },
      hostFunctions: { ping: () => "pong" },
    });
    expect(result.ok ? null : result.error.kind).toBe("timeout");
  });

  test("names that are not plain identifiers or shadow a sandbox global are refused", async () => {
    for (const name of ["input", "console", "not valid", "a-b"]) {
      await expect(
        sandbox.runScript({ code: "1", hostFunctions: { [name]: () => 1 } }),
      ).rejects.toThrow("not allowed");
    }
  });
});
