import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Escapes tried from a transformation, through the real API: each must stay inside the sandbox,
// leave the host untouched and leave the next run clean.
let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const REQUEST = { method: "POST", path: "/", headers: {}, body: '{"n":1}' };
async function run(code: string) {
  const answer = await callAs(server, owner, "POST", "/api/v1/transformations/test", {
    code,
    request: REQUEST,
  });
  expect(answer.status).toBe(200);
  return answer.body.data as {
    request: { body: unknown } | null;
    error: { code: string; message: string } | null;
  };
}

describe("sandbox escapes from a transformation", () => {
  test("globalThis tricks find no host: no process, Bun, require, fetch or module loading", async () => {
    const probe = await run(`addHandler("transform", (r) => {
  const g = (function () { return this; })() || globalThis;
  const viaConstructor = ({}).constructor.constructor("return this")();
  const names = ["process", "Bun", "require", "fetch", "module", "Deno", "XMLHttpRequest", "setTimeout"];
  let imported = "none";
  import("fs").then(() => { imported = "loaded"; }, () => { imported = "refused"; });
  return { body: {
    same: viaConstructor === g && g === globalThis,
    found: names.filter((n) => typeof g[n] !== "undefined" || typeof viaConstructor[n] !== "undefined"),
  } };
});`);
    expect(probe.error).toBeNull();
    expect(probe.request?.body).toEqual({ same: true, found: [] });
    const loader = await run(
      'addHandler("transform", async () => { await import("node:fs"); return { body: "escaped" }; });',
    );
    expect(loader.error?.code).toBe("script_error");
  });

  test("prototype pollution stays in its run: the host and the next run see clean prototypes", async () => {
    const polluted = await run(`addHandler("transform", (r) => {
  Object.prototype.isAdmin = true;
  Array.prototype.map = function () { return "hijacked"; };
  JSON.stringify = () => '{"forged":true}';
  r.__proto__.owned = 1;
  globalThis.leaked = "from run 1";
  return { body: JSON.parse('{"__proto__": {"isAdmin": true}, "ok": 1}') };
});`);
    expect(polluted.error).toBeNull();
    // The answer is copied out as data: the "__proto__" key is an own property, nothing more.
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect([1, 2].map((x) => x * 2)).toEqual([2, 4]);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    const next = await run(`addHandler("transform", (r) => ({ body: {
  isAdmin: ({}).isAdmin ?? null,
  leaked: typeof leaked,
  mapped: [1, 2].map((x) => x + 1),
} }));`);
    expect(next.request?.body).toEqual({ isAdmin: null, leaked: "undefined", mapped: [2, 3] });
  });

  test("huge strings hit the memory limit, not the host", async () => {
    const doubling = await run(
      'addHandler("transform", () => { let s = "x"; for (;;) s = s + s; });',
    );
    expect(doubling.error?.code).toBe("memory_limit");
    const repeat = await run('addHandler("transform", () => ({ body: "x".repeat(2 ** 30) }));');
    expect(repeat.error?.code).toBe("memory_limit");
  });

  test("deep recursion is stopped as memory_limit (stack), and the server goes on serving", async () => {
    const deep = await run(
      'addHandler("transform", () => { const f = (n) => f(n + 1) + 1; return f(0); });',
    );
    expect(deep.error?.code).toBe("memory_limit");
    expect(deep.error?.message).toContain("stack");
    const parse = await run(
      'addHandler("transform", () => JSON.parse("[".repeat(1000000) + "]".repeat(1000000)));',
    );
    expect(["memory_limit", "script_error"]).toContain(parse.error?.code as string);
    const after = await run('addHandler("transform", (r) => r);');
    expect(after.error).toBeNull();
    expect(after.request?.body).toEqual({ n: 1 });
    expect((await server.request("/healthz")).status).toBe(200);
  });
});
