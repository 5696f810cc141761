// The sandbox's behaviour as callers see it: every run here goes through the worker pool.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSandbox, type Sandbox, type ScriptResult } from "./sandbox.runner.ts";

const MIB = 1024 * 1024;

let sandbox: Sandbox;

beforeAll(() => {
  sandbox = createSandbox({
    limits: { cpuMs: 1000, memoryBytes: 32 * MIB },
    workers: 2,
    queueLimit: 50,
  });
});

afterAll(() => {
  sandbox.close();
});

function expectOk(result: ScriptResult): unknown {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output;
}

function expectError(result: ScriptResult, kind: string): string {
  if (result.ok) throw new Error(`expected ${kind}, got output ${JSON.stringify(result.output)}`);
  expect(result.error.kind).toBe(kind as never);
  return result.error.message;
}

describe("results", () => {
  test("returns the completion value of the script", async () => {
    expect(expectOk(await sandbox.runScript({ code: "const a = 20; a + 22" }))).toBe(42);
    const object = await sandbox.runScript({ code: "({ list: [1, 'two', null], ok: true })" });
    expect(expectOk(object)).toEqual({ list: [1, "two", null], ok: true });
  });

  test("undefined and non-JSON values come back as null", async () => {
    expect(expectOk(await sandbox.runScript({ code: "undefined" }))).toBeNull();
    expect(expectOk(await sandbox.runScript({ code: "(function () {})" }))).toBeNull();
  });

  test("exposes the input as a global copy", async () => {
    const input = { n: 2, nested: { tag: "x" } };
    const result = await sandbox.runScript({
      code: "input.nested.tag = 'changed'; input.n * 21",
      input,
    });
    expect(expectOk(result)).toBe(42);
    expect(input.nested.tag).toBe("x");
  });

  test("calls the named entry function with the input", async () => {
    const code = "function transform(req) { return { ...req, extra: 1 }; }";
    const result = await sandbox.runScript({ code, entry: "transform", input: { a: "b" } });
    expect(expectOk(result)).toEqual({ a: "b", extra: 1 });
  });

  test("a missing entry function is a script error", async () => {
    const result = await sandbox.runScript({ code: "var transform = 3;", entry: "transform" });
    expect(expectError(result, "script_error")).toContain('"transform"');
  });

  test("resolves an async result by running promise jobs", async () => {
    const code =
      "(async () => { await null; const v = await Promise.resolve(input.n); return v + 1; })()";
    expect(expectOk(await sandbox.runScript({ code, input: { n: 41 } }))).toBe(42);
    const entry = "async function handle(x) { await null; return [x, 'done']; }";
    expect(expectOk(await sandbox.runScript({ code: entry, entry: "handle", input: 7 }))).toEqual([
      7,
      "done",
    ]);
  });

  test("a rejected promise is a script error with the rejection's message", async () => {
    const code = "(async () => { await null; throw new RangeError('nope'); })()";
    expect(expectError(await sandbox.runScript({ code }), "script_error")).toBe("RangeError: nope");
  });

  test("a promise that can never settle is a script error", async () => {
    const result = await sandbox.runScript({ code: "new Promise(() => {})" });
    expect(expectError(result, "script_error")).toContain("never settled");
  });

  test("output that JSON cannot carry is a script error", async () => {
    const result = await sandbox.runScript({ code: "({ big: 10n })" });
    expect(expectError(result, "script_error")).toContain("BigInt");
  });

  test("per-call limits override the defaults", async () => {
    const result = await sandbox.runScript({ code: "for (;;) {}", limits: { cpuMs: 50 } });
    expect(expectError(result, "timeout")).toBe("script exceeded its 50 ms CPU limit");
  });
});

describe("console", () => {
  test("captures every level in order with formatted arguments", async () => {
    const code = `
      console.log("hello", 1, { a: [true] });
      console.info("info");
      console.warn(undefined, null);
      console.error("bad", "news");
      console.debug(["d"]);
      (async () => { await null; console.log("later"); })();
      "done"`;
    const result = await sandbox.runScript({ code });
    expect(expectOk(result)).toBe("done");
    expect(result.logs).toEqual([
      { level: "log", message: 'hello 1 {"a":[true]}' },
      { level: "info", message: "info" },
      { level: "warn", message: "undefined null" },
      { level: "error", message: "bad news" },
      { level: "debug", message: '["d"]' },
      { level: "log", message: "later" },
    ]);
  });

  test("caps the number of lines and the size of each line", async () => {
    const code = `console.log("x".repeat(100000)); for (let i = 0; i < 1000; i++) console.log(i); 1`;
    const result = await sandbox.runScript({ code });
    expect(expectOk(result)).toBe(1);
    expect(result.logs).toHaveLength(200);
    expect(result.logs[0]?.message).toHaveLength(4096);
  });

  test("logs written before a failure are kept", async () => {
    const result = await sandbox.runScript({
      code: "console.warn('before'); throw new Error('x')",
    });
    expectError(result, "script_error");
    expect(result.logs).toEqual([{ level: "warn", message: "before" }]);
  });
});

describe("limits", () => {
  test("an infinite loop stops with a timeout", async () => {
    const started = performance.now();
    const result = await sandbox.runScript({ code: "while (true) {}", limits: { cpuMs: 100 } });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(expectError(result, "timeout")).toBe("script exceeded its 100 ms CPU limit");
    expect(result.durationMs).toBeGreaterThanOrEqual(100);
  });

  test("an endless promise chain stops with a timeout", async () => {
    const code = "(async () => { for (;;) await null; })()";
    const result = await sandbox.runScript({ code, limits: { cpuMs: 100 } });
    expectError(result, "timeout");
  });

  test("catastrophic regex backtracking stops with a timeout", async () => {
    const code = "/^(a+)+$/.test('a'.repeat(40) + 'b')";
    const result = await sandbox.runScript({ code, limits: { cpuMs: 100 } });
    expectError(result, "timeout");
  });

  test("a memory bomb stops with memory_limit", async () => {
    const limits = { memoryBytes: 8 * MIB, cpuMs: 10_000 };
    const bombs = [
      "let a = [1]; for (;;) a = a.concat(a);",
      "'x'.repeat(16 * 1024 * 1024)",
      "var s = 'x'; for (;;) s = s + s;",
    ];
    for (const code of bombs) {
      const result = await sandbox.runScript({ code, limits });
      expect(expectError(result, "memory_limit")).toBe("script exceeded its 8 MiB memory limit");
      expect(result.durationMs).toBeLessThan(5000);
    }
  });

  test("unbounded recursion is a memory_limit (stack) failure", async () => {
    const result = await sandbox.runScript({ code: "function f() { return f() + 1; } f()" });
    expect(expectError(result, "memory_limit")).toContain("stack");
  });

  test("deep native recursion is contained and the sandbox recovers", async () => {
    // Nesting this deep can overflow the host's stack inside the engine before QuickJS notices.
    const deep = await sandbox.runScript({ code: "JSON.parse('['.repeat(200000))" });
    expectError(deep, "memory_limit");
    expect(expectOk(await sandbox.runScript({ code: "'still alive'" }))).toBe("still alive");
  });

  test("inputs larger than the memory limit are refused up front", async () => {
    const input = { blob: "x".repeat(3 * MIB) };
    const result = await sandbox.runScript({ code: "1", input, limits: { memoryBytes: 2 * MIB } });
    expect(expectError(result, "script_error")).toBe("input too large");
  });
});

describe("errors", () => {
  test("a thrown error is reported with its name and message", async () => {
    const result = await sandbox.runScript({ code: "throw new TypeError('bad thing')" });
    expect(expectError(result, "script_error")).toBe("TypeError: bad thing");
  });

  test("a thrown non-error is reported in its string form", async () => {
    expect(expectError(await sandbox.runScript({ code: "throw 'plain'" }), "script_error")).toBe(
      "plain",
    );
    expect(expectError(await sandbox.runScript({ code: "throw 42" }), "script_error")).toBe("42");
  });

  test("a syntax error is a script error", async () => {
    const result = await sandbox.runScript({ code: "let = = 1;" });
    expect(expectError(result, "script_error")).toStartWith("SyntaxError");
  });
});

describe("isolation", () => {
  test("nothing of the host is reachable", async () => {
    const code = `[typeof Bun, typeof process, typeof fetch, typeof require, typeof setTimeout,
      typeof module, typeof std, typeof os, typeof WebAssembly]`;
    const result = await sandbox.runScript({ code });
    expect(expectOk(result)).toEqual(Array(9).fill("undefined"));
  });

  test("modules cannot be loaded", async () => {
    const dynamic = await sandbox.runScript({ code: "import('fs')" });
    expect(expectError(dynamic, "script_error")).toContain("fs");
    const caught = "import('fs').then(() => 'loaded', () => 'refused')";
    expect(expectOk(await sandbox.runScript({ code: caught }))).toBe("refused");
    const staticImport = await sandbox.runScript({ code: "import fs from 'fs'; fs" });
    expect(expectError(staticImport, "script_error")).toStartWith("SyntaxError");
  });

  test("a script cannot affect the next one", async () => {
    const first = `globalThis.leak = 1; var declared = 2; Array.prototype.evil = 3;
      JSON.stringify = () => "hijacked"; console.log = null; "set"`;
    expect(expectOk(await sandbox.runScript({ code: first }))).toBe("set");
    const second = `[typeof leak, typeof declared, typeof [].evil, JSON.stringify(1), typeof console.log]`;
    const result = await sandbox.runScript({ code: second });
    expect(expectOk(result)).toEqual(["undefined", "undefined", "undefined", "1", "function"]);
  });

  test("still works after a timeout", async () => {
    expectError(await sandbox.runScript({ code: "for (;;) {}", limits: { cpuMs: 20 } }), "timeout");
    expect(expectOk(await sandbox.runScript({ code: "input + 1", input: 1 }))).toBe(2);
  });

  test("300 runs complete and dispose their runtimes cleanly", async () => {
    // QuickJS aborts on dispose when a handle leaked: the worker would report its engine in
    // doubt and be replaced, so a clean run of 300 replaces no worker.
    const codes = [
      "input * 2",
      "throw new Error('e')",
      "(async () => input)()",
      "[input]",
      "(async () => [await twice(input), await twice(1)])()",
    ];
    const replacedBefore = sandbox.stats().replaced;
    for (let i = 0; i < 300; i++) {
      const result = await sandbox.runScript({
        code: codes[i % codes.length] ?? "",
        input: i,
        hostFunctions: { twice: (n) => Number(n) * 2 },
      });
      expect(result.ok).toBe(i % codes.length !== 1);
    }
    expect(sandbox.stats().replaced).toBe(replacedBefore);
    expect(sandbox.stats().runsInWorkers).toBeGreaterThanOrEqual(300);
  });

  test("a closed sandbox refuses to run", async () => {
    const own = createSandbox({
      limits: { cpuMs: 1000, memoryBytes: 8 * MIB },
      workers: 1,
      queueLimit: 1,
    });
    expect(expectOk(await own.runScript({ code: "1" }))).toBe(1);
    own.close();
    await expect(own.runScript({ code: "1" })).rejects.toThrow("closed");
  });
});
