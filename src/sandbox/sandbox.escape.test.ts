// Escape attempts: what a hostile script tries, and that each stays inside its sandbox.
import { afterAll, describe, expect, test } from "bun:test";
import { createSandbox, type ScriptResult } from "./sandbox.runner.ts";

const MIB = 1024 * 1024;
const sandbox = createSandbox({
  limits: { cpuMs: 1000, memoryBytes: 16 * MIB },
  workers: 2,
  queueLimit: 20,
});

afterAll(() => sandbox.close());

function output(result: ScriptResult): unknown {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output;
}

function failure(result: ScriptResult): string {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.output)}`);
  return `${result.error.kind}: ${result.error.message}`;
}

const HOST_NAMES = ["Bun", "process", "require", "fetch", "self", "postMessage", "Worker"];

describe("globalThis tricks", () => {
  test("every way to the global object reaches the sandbox's own, without host objects", async () => {
    const code = `
      const globals = [
        globalThis,
        Function("return this")(),
        (0, eval)("this"),
        ({}).constructor.constructor("return this")(),
        (function () { return this; })(),
        Object.getPrototypeOf(async function () {}).constructor("return this")
      ];
      const reached = globals.slice(0, 5).map((g) => g === globalThis);
      const names = Object.getOwnPropertyNames(globalThis);
      [reached, ${JSON.stringify(HOST_NAMES)}.filter((n) => names.includes(n) || typeof globalThis[n] !== "undefined")]`;
    expect(output(await sandbox.runScript({ code }))).toEqual([[true, true, true, true, true], []]);
  });

  test("the prelude's plumbing is not reachable from the script", async () => {
    const code = `[typeof hostCall, typeof sink, typeof helpers, typeof __quickjs,
      Object.getOwnPropertyNames(globalThis).filter((n) => /host|sink|prelude/i.test(n))]`;
    const result = await sandbox.runScript({ code, hostFunctions: { lookup: () => 1 } });
    expect(output(result)).toEqual(["undefined", "undefined", "undefined", "undefined", []]);
  });

  test("a constructor reached through a host function's promise is the sandbox's own", async () => {
    const code = `(async () => {
      const p = ping();
      const F = p.constructor.constructor;
      const viaThen = await p.then((v) => v.constructor.constructor("return typeof process")());
      return [F("return typeof Bun")(), viaThen, p instanceof Promise];
    })()`;
    const result = await sandbox.runScript({ code, hostFunctions: { ping: () => ({}) } });
    expect(output(result)).toEqual(["undefined", "undefined", true]);
  });

  test("overwriting globals and built-ins lasts one run only, on every worker", async () => {
    const poison = `globalThis.lookup = () => "hijacked"; Object.prototype.polluted = 1;
      Array.prototype.map = null; Promise.prototype.then = null; console.log = null; "done"`;
    await Promise.all([1, 2].map(() => sandbox.runScript({ code: poison })));
    const check = `(async () => [typeof ({}).polluted, typeof [].map, await lookup(), typeof console.log])()`;
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        sandbox.runScript({ code: check, hostFunctions: { lookup: () => "host" } }),
      ),
    );
    for (const result of results) {
      expect(output(result)).toEqual(["undefined", "function", "host", "function"]);
    }
  });
});

describe("prototype pollution of host objects", () => {
  test("changing the input or Object.prototype inside never touches the host's objects", async () => {
    const input = { nested: { tag: "kept" }, list: [1] };
    const code = `input.__proto__.polluted = "yes"; Object.prototype.admin = true;
      input.nested.tag = "changed"; input.list.push(2); input.constructor.prototype.evil = 1; 1`;
    expect(output(await sandbox.runScript({ code, input }))).toBe(1);
    expect(input).toEqual({ nested: { tag: "kept" }, list: [1] });
    const probe: Record<string, unknown> = {};
    expect([probe.polluted, probe.admin, probe.evil]).toEqual([undefined, undefined, undefined]);
  });

  test("a __proto__ key sent to a host function or returned stays plain data", async () => {
    let received: Record<string, unknown> = {};
    const code = `(async () => {
      await take(JSON.parse('{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}'));
      return JSON.parse('{"__proto__": {"isAdmin": true}}');
    })()`;
    const result = await sandbox.runScript({
      code,
      hostFunctions: {
        take: (value) => {
          received = value as Record<string, unknown>;
        },
      },
    });
    const out = output(result) as Record<string, unknown>;
    const probe: Record<string, unknown> = {};
    expect([probe.admin, probe.isAdmin, probe.x]).toEqual([undefined, undefined, undefined]);
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(received.admin).toBeUndefined();
    expect(out.isAdmin).toBeUndefined();
  });

  test("a host function's result is a copy: mutating it inside changes nothing outside", async () => {
    const shared = { list: [1], inner: { n: 1 } };
    const code = `(async () => {
      const r = await get(); r.list.push(2); r.inner.n = 99; r.__proto__.hacked = true;
      Object.getPrototypeOf(r).constructor.prototype.also = 1; return r.list.length;
    })()`;
    const result = await sandbox.runScript({ code, hostFunctions: { get: () => shared } });
    expect(output(result)).toBe(2);
    expect(shared).toEqual({ list: [1], inner: { n: 1 } });
    expect(({} as Record<string, unknown>).hacked).toBeUndefined();
  });
});

describe("binary buffers (allocated outside the engine's memory accounting)", () => {
  test("no typed array or ArrayBuffer can be built, so none can hold memory past the limit", async () => {
    const names = `["ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics", "Uint8Array",
      "Int32Array", "Float16Array", "Float64Array", "BigUint64Array"].filter((n) => n in globalThis)`;
    expect(output(await sandbox.runScript({ code: names }))).toEqual([]);
    const hoard = "const a = []; for (let i = 0; i < 2000; i++) a.push(new Uint8Array(1 << 20)); 1";
    expect(failure(await sandbox.runScript({ code: hoard }))).toContain("Uint8Array");
  });
});

describe("huge strings", () => {
  test("a string bigger than the heap is a memory_limit failure", async () => {
    for (const code of ["'x'.repeat(2 ** 28)", "let s = 'ab'; for (;;) s += s; s"]) {
      expect(failure(await sandbox.runScript({ code }))).toStartWith("memory_limit");
    }
  });

  test("a huge string sent to a host function is refused inside the script", async () => {
    let calls = 0;
    const code = `(async () => {
      try { await send("x".repeat(2 * 1024 * 1024)); return "sent"; } catch (e) { return e.message; }
    })()`;
    const result = await sandbox.runScript({ code, hostFunctions: { send: () => calls++ } });
    expect(output(result)).toBe("host call arguments too large");
    expect(calls).toBe(0);
  });

  test("a host result larger than the script's heap is refused, not copied in", async () => {
    const code = `(async () => { try { return (await big()).length; } catch (e) { return e.message; } })()`;
    const result = await sandbox.runScript({
      code,
      limits: { memoryBytes: 4 * MIB },
      hostFunctions: { big: () => "y".repeat(5 * MIB) },
    });
    expect(output(result)).toBe("result of host function big too large");
  });
});

describe("deep recursion and call floods", () => {
  test("recursion through promises and host calls hits the host call budget", async () => {
    const code = `async function f(n) { await ping(); return f(n + 1); } f(0)`;
    const result = await sandbox.runScript({ code, hostFunctions: { ping: () => 0 } });
    expect(failure(result)).toBe(
      "script_error: RangeError: a script may make at most 100 host calls",
    );
  });

  test("deep recursion in many shapes is contained; the pool keeps serving", async () => {
    const codes = [
      "function f() { return f() + 1; } f()",
      "const o = {}; o.toString = function () { return String(this); }; String(o)",
      "JSON.parse('['.repeat(200000))",
      "let a = []; for (let i = 0; i < 100000; i++) a = [a]; JSON.stringify(a)",
    ];
    for (const code of codes) {
      const result = await sandbox.runScript({ code });
      // Native recursion may outlast the CPU deadline on a busy machine before the stack check
      // fires; either limit contains it.
      expect(result.ok ? "ok" : result.error.kind).toMatch(/^(memory_limit|timeout)$/);
    }
    expect(output(await sandbox.runScript({ code: "'alive'" }))).toBe("alive");
  });
});
