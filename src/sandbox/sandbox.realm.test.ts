// Reusable realms (reuseKey): the script is compiled once per worker, and still no run can see
// what an earlier run left behind.
import { afterAll, describe, expect, test } from "bun:test";
import { createSandbox, type ScriptRequest, type ScriptResult } from "./sandbox.runner.ts";

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

let keys = 0;
const freshKey = () => `realm-test-${++keys}`;

/** Runs `request` `times` times one after another; returns the results and the reuse count. */
async function runTimes(request: ScriptRequest, times: number) {
  const reusedBefore = sandbox.stats().reusedRuns;
  const results: ScriptResult[] = [];
  for (let i = 0; i < times; i++) results.push(await sandbox.runScript(request));
  return { results, reused: sandbox.stats().reusedRuns - reusedBefore };
}

// Reports what it finds, then tries every way it knows to leave something for the next run.
const LEAVER = `let runs = 0;
const registry = [];
function entry(input) {
  runs += 1;
  registry.push(input.n);
  const found = {
    runs, registry: registry.length, leak: typeof leak, sloppy: typeof sloppyGlobal,
    polluted: ({}).polluted ?? null, arrayHook: [].hook ?? null, map: [1].map((x) => x + 1),
    json: JSON.stringify({ a: 1 }), log: typeof console.log, mathTag: Math.tag ?? null,
    errorName: new TypeError("t").name, prepare: typeof Error.prepareStackTrace,
    weak: typeof WeakRef + "/" + typeof FinalizationRegistry,
    stamp: typeof Object.getPrototypeOf(function* () {}).stamp, late: typeof late,
  };
  try { globalThis.leak = 1; } catch {}
  try { sloppyGlobal = 2; } catch {}
  try { Object.prototype.polluted = 3; } catch {}
  try { Object.defineProperty(Array.prototype, "hook", { value: 4 }); } catch {}
  try { Array.prototype.map = () => "hijacked"; } catch {}
  try { JSON.stringify = () => "forged"; } catch {}
  try { console.log = null; } catch {}
  try { Math.tag = 5; } catch {}
  try { TypeError.prototype.name = "Hijacked"; } catch {}
  try { Error.prepareStackTrace = () => "x"; } catch {}
  try { Object.getPrototypeOf(function* () {}).stamp = 6; } catch {}
  Promise.resolve().then(() => { try { globalThis.late = 7; } catch {} });
  return found;
}`;

describe("a reused realm", () => {
  test("a run sees nothing a previous run left: globals, built-ins, top-level bindings", async () => {
    const request = { code: LEAVER, entry: "entry", input: { n: 1 }, reuseKey: freshKey() };
    const { results, reused } = await runTimes(request, 4);
    // Without reuse this test would prove nothing: every run after the first reused the realm.
    expect(reused).toBe(3);
    const clean = {
      runs: 1,
      registry: 1,
      leak: "undefined",
      sloppy: "undefined",
      polluted: null,
      arrayHook: null,
      map: [2],
      json: '{"a":1}',
      log: "function",
      mathTag: null,
      errorName: "TypeError",
      prepare: "undefined",
      weak: "undefined/undefined",
      stamp: "undefined",
      late: "undefined",
    };
    for (const result of results) expect(output(result)).toEqual(clean);
  });

  test("everything reachable from the realm, hidden intrinsics included, is frozen", async () => {
    const code = `function entry() {
      // This run's own objects are not frozen; what they inherit from is the realm's.
      const made = [function* () {}, async function () {}, async function* () {},
        [][Symbol.iterator](), new Map().entries(), new Set().values(), ""[Symbol.iterator](),
        "a".matchAll(/a/g), Iterator.from({ next() { return { done: true }; } }),
        Iterator.prototype.map.call([].values(), (x) => x), Promise.resolve()];
      const seen = new Set();
      const open = [];
      const pending = [globalThis, ...made.map((m) => Object.getPrototypeOf(m))];
      while (pending.length > 0) {
        const v = pending.pop();
        if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) continue;
        seen.add(v);
        if (!Object.isFrozen(v)) open.push(String(v.name ?? v.constructor?.name ?? v));
        pending.push(Object.getPrototypeOf(v));
        for (const key of Reflect.ownKeys(v)) {
          const d = Object.getOwnPropertyDescriptor(v, key);
          if ("value" in d) pending.push(d.value); else pending.push(d.get, d.set);
        }
      }
      return { checked: seen.size, open };
    }`;
    const result = output(
      await sandbox.runScript({ code, entry: "entry", reuseKey: freshKey() }),
    ) as { checked: number; open: string[] };
    expect(result.open).toEqual([]);
    expect(result.checked).toBeGreaterThan(500);
  });

  test("ordinary code still works: own toString, Error subclasses, Object.assign, classes", async () => {
    const code = `class Invalid extends Error {
      constructor(message) { super(message); this.name = "Invalid"; }
    }
    function entry(input) {
      const point = { x: input.x };
      point.toString = () => "P" + point.x;
      point.constructor = "kept";
      const merged = Object.assign({}, { toString: 1, valueOf: 2, hasOwnProperty: 3 });
      let caught;
      try { throw new Invalid("bad"); } catch (e) { caught = String(e) + "/" + (e instanceof Invalid); }
      return { text: String(point), ctor: point.constructor, merged, caught };
    }`;
    const request = { code, entry: "entry", input: { x: 7 }, reuseKey: freshKey() };
    const { results } = await runTimes(request, 2);
    for (const result of results) {
      expect(output(result)).toEqual({
        text: "P7",
        ctor: "kept",
        merged: { toString: 1, valueOf: 2, hasOwnProperty: 3 },
        caught: "Invalid: bad/true",
      });
    }
  });

  test("logs, host calls and their budget belong to each run alone", async () => {
    const code = `async function entry(input) {
      console.log("run", input.n);
      let total = 0;
      for (let i = 0; i < 60; i++) total += await add(input.n);
      return total;
    }`;
    const key = freshKey();
    const hostFunctions = { add: (n: unknown) => Number(n) };
    for (const n of [1, 2, 3]) {
      const result = await sandbox.runScript({
        code,
        entry: "entry",
        input: { n },
        reuseKey: key,
        hostFunctions,
      });
      expect(output(result)).toBe(60 * n);
      expect(result.logs).toEqual([{ level: "log", message: `run ${n}` }]);
    }
  });

  test("an error names its line in the script, past the realm's own wrapper", async () => {
    const code =
      "function entry(input) {\n  const body = input.body;\n  return body.missing.field;\n}";
    const result = await sandbox.runScript({
      code,
      entry: "entry",
      input: { body: {} },
      reuseKey: freshKey(),
    });
    expect(result.ok ? null : result.error).toEqual({
      kind: "script_error",
      message: "TypeError: cannot read property 'field' of undefined",
      location: { line: 3, column: 22 },
    });
  });

  test("code that would close the per-run function early is refused and runs nothing", async () => {
    const code = `}); globalThis.escaped = 1; (() => {\nfunction entry() { return typeof escaped; }`;
    const result = await sandbox.runScript({ code, entry: "entry", reuseKey: freshKey() });
    expect(result.ok ? null : result.error.kind).toBe("script_error");
    expect(result.ok ? "" : result.error.message).toStartWith("SyntaxError");
  });

  test("a run that hit a limit drops its realm; one that threw keeps it", async () => {
    const key = freshKey();
    const code = `function entry(input) {
      if (input.spin) for (;;) {}
      if (input.grow) return "x".repeat(2 ** 28);
      if (input.fail) throw new Error("refused");
      return "ok";
    }`;
    const run = (input: object) =>
      sandbox.runScript({ code, entry: "entry", input, reuseKey: key, limits: { cpuMs: 200 } });
    /** Whether the run found a realm prepared by an earlier run. */
    const reusing = async (input: object) => {
      const before = sandbox.stats().reusedRuns;
      const result = await run(input);
      return { result, reused: sandbox.stats().reusedRuns > before };
    };
    expect(output(await run({}))).toBe("ok");
    const spun = await reusing({ spin: true });
    expect([spun.result.ok ? null : spun.result.error.kind, spun.reused]).toEqual([
      "timeout",
      true,
    ]);
    const afterSpin = await reusing({});
    expect([output(afterSpin.result), afterSpin.reused]).toEqual(["ok", false]);
    const grown = await reusing({ grow: true });
    expect([grown.result.ok ? null : grown.result.error.kind, grown.reused]).toEqual([
      "memory_limit",
      true,
    ]);
    const afterGrowth = await reusing({});
    expect([output(afterGrowth.result), afterGrowth.reused]).toEqual(["ok", false]);
    // A thrown error is the script's own outcome, not a limit: its realm stays.
    const thrown = await reusing({ fail: true });
    expect([thrown.result.ok ? null : thrown.result.error.kind, thrown.reused]).toEqual([
      "script_error",
      true,
    ]);
    const afterThrow = await reusing({});
    expect([output(afterThrow.result), afterThrow.reused]).toEqual(["ok", true]);
  });

  test("new code under the same key replaces the realm", async () => {
    const key = freshKey();
    const first = await sandbox.runScript({
      code: "function entry() { return 1; }",
      entry: "entry",
      reuseKey: key,
    });
    const second = await sandbox.runScript({
      code: "function entry() { return 2; }",
      entry: "entry",
      reuseKey: key,
    });
    expect([output(first), output(second)]).toEqual([1, 2]);
  });

  test("a run goes to the worker that holds its realm when that worker is free", async () => {
    const pool = createSandbox({
      limits: { cpuMs: 2000, memoryBytes: 16 * MIB },
      workers: 2,
      queueLimit: 4,
    });
    try {
      // Two long runs at once: both workers start and are ready before either run ends.
      const spin = "const end = Date.now() + 700; while (Date.now() < end) {} 0";
      await Promise.all([pool.runScript({ code: spin }), pool.runScript({ code: spin })]);
      const one = { code: "function entry() { return 1; }", entry: "entry", reuseKey: "one" };
      const two = { code: "function entry() { return 2; }", entry: "entry", reuseKey: "two" };
      // Both at once, with both workers free: one realm in each.
      await Promise.all([pool.runScript(one), pool.runScript(two)]);
      // Alone, each would go to the first free worker, so one of them would miss its realm
      // there; each goes to its own instead.
      const answers = [];
      for (const request of [one, two, one, two])
        answers.push(output(await pool.runScript(request)));
      expect(answers).toEqual([1, 2, 1, 2]);
      expect(pool.stats()).toMatchObject({ started: 2, reusedRuns: 4 });
    } finally {
      pool.close();
    }
  });
});
