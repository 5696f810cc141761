import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createTransformationsRoom } from "./transformations.room.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const SAMPLE = {
  method: "post",
  path: "/hooks",
  query: { a: "1" },
  headers: { "content-type": "application/json" },
  body: '{"type":"ping","n":2}',
};

async function create(code: string, name = "T") {
  const answer = await callAs(server, owner, "POST", "/api/v1/transformations", { name, code });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string; code: string; updated_at: string };
}

const testRun = (code: string, request: unknown = SAMPLE, as = owner) =>
  callAs(server, as, "POST", "/api/v1/transformations/test", { code, request });

describe("CRUD", () => {
  test("create, list, get, PUT, DELETE with {data} envelopes", async () => {
    const code = 'addHandler("transform", (request) => request);';
    const created = await create(code, "Identity");
    expect(Object.keys(created).sort()).toEqual(["code", "created_at", "id", "name", "updated_at"]);
    const list = await callAs(server, member, "GET", "/api/v1/transformations");
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(created.id);
    const one = await callAs(server, member, "GET", `/api/v1/transformations/${created.id}`);
    expect(one.body.data.code).toBe(code);
    const renamed = await callAs(server, owner, "PUT", `/api/v1/transformations/${created.id}`, {
      name: "Renamed",
    });
    expect([renamed.status, renamed.body.data.name, renamed.body.data.code]).toEqual([
      200,
      "Renamed",
      code,
    ]);
    const path = `/api/v1/transformations/${created.id}`;
    expect((await callAs(server, owner, "DELETE", path)).status).toBe(204);
    expect((await callAs(server, owner, "GET", path)).status).toBe(404);
  });

  test("a syntax error is a 422 on save naming the line; nothing is stored", async () => {
    const code = 'addHandler("transform", (request) => {\n  const x = ;\n  return request;\n});';
    const answer = await callAs(server, owner, "POST", "/api/v1/transformations", {
      name: "Broken",
      code,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.code[0]).toMatch(/^SyntaxError on line 2: /);
    const list = await callAs(server, owner, "GET", "/api/v1/transformations");
    expect(list.body.data.map((t: { name: string }) => t.name)).not.toContain("Broken");
    const missing = await callAs(server, owner, "POST", "/api/v1/transformations", {});
    expect(Object.keys(missing.body.errors).sort()).toEqual(["code", "name"]);
  });

  test("code that parses only as a function body is refused on save, as every run would refuse it", async () => {
    // Both parsed under `new Function` but can never run as the global script a run evaluates.
    const cases = [
      ['addHandler("transform", (r) => r);\nreturn;', 2],
      ['addHandler("transform", (r) => r);\n}); (function () {', 2],
    ] as const;
    for (const [code, line] of cases) {
      const answer = await callAs(server, owner, "POST", "/api/v1/transformations", {
        name: "Escapes its wrapper",
        code,
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.code[0]).toMatch(new RegExp(`^SyntaxError on line ${line}: `));
    }
    const fine = await create('addHandler("transform", (r) => r);');
    expect(fine.id).toBeString();
  });

  test("members cannot write; another organization's transformation is a 404", async () => {
    const { id } = await create('addHandler("transform", (r) => r);');
    const denied = await callAs(server, member, "POST", "/api/v1/transformations", {
      name: "x",
      code: "1",
    });
    expect(denied.status).toBe(403);
    expect((await callAs(server, member, "DELETE", `/api/v1/transformations/${id}`)).status).toBe(
      403,
    );
    for (const [method, suffix] of [
      ["GET", ""],
      ["PUT", ""],
      ["DELETE", ""],
      ["POST", "/test"],
    ] as const) {
      const answer = await callAs(
        server,
        stranger,
        method,
        `/api/v1/transformations/${id}${suffix}`,
        {
          name: "stolen",
          request: SAMPLE,
        },
      );
      expect([method, suffix, answer.status]).toEqual([method, suffix, 404]);
    }
  });

  test("members cannot run code, saved or not: a run would show them context.env's secrets", async () => {
    const code = 'addHandler("transform", (r, context) => ({ ...r, body: context.env }));';
    const { id } = await create(code, "Shows env");
    const unsaved = await testRun(code, SAMPLE, member);
    expect([unsaved.status, unsaved.body]).toEqual([403, { error: "forbidden" }]);
    const saved = await callAs(server, member, "POST", `/api/v1/transformations/${id}/test`, {
      request: SAMPLE,
    });
    expect([saved.status, saved.body]).toEqual([403, { error: "forbidden" }]);
    // Roles are checked before the body: a member learns nothing from a 422 either.
    expect((await testRun(code, "not a request", member)).status).toBe(403);
    expect((await testRun(code, SAMPLE)).status).toBe(200);
  });
});

describe("runs", () => {
  test("the saved test run: parsed JSON body, changed request, captured logs, context.env", async () => {
    await callAs(server, owner, "POST", "/api/v1/secrets", { name: "API_TOKEN", value: "tok-1" });
    const { id } = await create(`addHandler("transform", (request, context) => {
  console.log("type", request.body.type, request.method);
  request.headers["authorization"] = "Bearer " + context.env.API_TOKEN;
  request.body = { kind: request.body.type, doubled: request.body.n * 2 };
  return request;
});`);
    const answer = await callAs(server, owner, "POST", `/api/v1/transformations/${id}/test`, {
      request: SAMPLE,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      request: {
        method: "POST",
        path: "/hooks",
        query: { a: "1" },
        headers: { "content-type": "application/json", authorization: "Bearer tok-1" },
        body: { kind: "ping", doubled: 4 },
      },
      logs: [{ level: "log", message: "type ping POST" }],
      error: null,
    });
  });

  test("a text body stays a string; returning null drops the request", async () => {
    const text = await testRun(
      'addHandler("transform", (r) => ({ body: typeof r.body + ":" + r.body }));',
      { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" },
    );
    expect(text.body.data.request.body).toBe("string:hello");
    const dropped = await testRun('addHandler("transform", () => null);');
    expect(dropped.body.data).toEqual({ request: null, logs: [], error: null });
    const undef = await testRun('addHandler("transform", () => undefined);');
    expect(undef.body.data).toEqual({ request: null, logs: [], error: null });
  });

  test("errors are classified: script_error, timeout, memory_limit", async () => {
    const thrown = await testRun(
      'addHandler("transform", () => { throw new Error("bad input"); });',
    );
    expect(thrown.body.data.error).toEqual({
      code: "script_error",
      message: "Error: bad input (line 1, column 48)",
      line: 1,
      column: 48,
    });
    const noHandler = await testRun("const x = 1;");
    expect(noHandler.body.data.error.code).toBe("script_error");
    expect(noHandler.body.data.error.message).toContain('no "transform" handler');
    const loop = await testRun('addHandler("transform", () => { for (;;) {} });');
    expect(loop.body.data.error.code).toBe("timeout");
    const hog = await testRun('addHandler("transform", () => "x".repeat(40 * 1024 * 1024));');
    expect(hog.body.data.error.code).toBe("memory_limit");
    const syntax = await testRun("addHandler(");
    expect(syntax.body.data.error.code).toBe("script_error");
    expect(syntax.body.data.error.message).toMatch(/^SyntaxError on line 1/);
  });

  test("a runtime error names its line and column in the user's code, saved or not", async () => {
    const code = `addHandler("transform", (request) => {
  const amount = request.body.n;
  if (amount > 1) throw new RangeError("amount " + amount + " too large");
  return request;
});`;
    const unsaved = await testRun(code);
    expect(unsaved.status).toBe(200);
    expect(unsaved.body.data.error).toEqual({
      code: "script_error",
      message: "RangeError: amount 2 too large (line 3, column 39)",
      line: 3,
      column: 39,
    });
    const { id } = await create(`// reads a field that is not there
addHandler("transform", (request) => {

  return { body: request.body.missing.deeper };
});`);
    const saved = await callAs(server, owner, "POST", `/api/v1/transformations/${id}/test`, {
      request: SAMPLE,
    });
    expect(saved.body.data.error).toMatchObject({ code: "script_error", line: 4 });
    expect(saved.body.data.error.message).toMatch(/^TypeError: .* \(line 4, column \d+\)$/);
  });

  test("runs of one transformation share nothing: each starts from a clean realm", async () => {
    const { id } = await create(`let runs = 0;
addHandler("transform", (request) => {
  runs += 1;
  const seen = { runs, leaked: typeof leaked, polluted: ({}).polluted ?? null, mapped: [1].map((x) => x * 2) };
  globalThis.leaked = true;
  leaked = true;
  Object.prototype.polluted = "yes";
  Array.prototype.map = () => "hijacked";
  return { body: seen };
});`);
    const path = `/api/v1/transformations/${id}/test`;
    for (let i = 0; i < 3; i++) {
      const answer = await callAs(server, owner, "POST", path, { request: SAMPLE });
      expect(answer.body.data).toMatchObject({
        error: null,
        request: { body: { runs: 1, leaked: "undefined", polluted: null, mapped: [2] } },
      });
    }
  });

  test("console.log is captured and capped", async () => {
    const answer = await testRun(
      'addHandler("transform", (r) => { for (let i = 0; i < 1000; i++) console.log("x".repeat(10000)); return r; });',
    );
    expect(answer.body.data.logs.length).toBeLessThanOrEqual(200);
    expect(answer.body.data.logs.length).toBeGreaterThan(0);
    for (const log of answer.body.data.logs) expect(log.message.length).toBeLessThanOrEqual(4096);
  });

  test("test runs need a request; 422 otherwise", async () => {
    const answer = await testRun('addHandler("transform", (r) => r);', "nope");
    expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, ["request"]]);
  });
});

describe("the port routing uses", () => {
  const ports = () =>
    createTransformationsRoom(server.deps, {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      secretEnvironment: async () => ({ REGION: "eu" }),
    }).ports;

  test("runTransformation answers {request} | {filtered} | {error}, only within the organization", async () => {
    const keep = await create(
      'addHandler("transform", (r, c) => ({ body: { region: c.env.REGION, n: r.body.n } }));',
    );
    const drop = await create('addHandler("transform", (r) => r.body.type === "ping" ? null : r);');
    const fail = await create('addHandler("transform", () => { throw new TypeError("nope"); });');
    const request = {
      method: "POST",
      path: "/",
      query: {},
      headers: {},
      body: '{"type":"ping","n":7}',
    };
    const run = (id: string, org = owner.organizationId) =>
      ports().runTransformation(org, id, request);
    expect(await run(keep.id)).toEqual({
      request: { method: "POST", path: "/", query: {}, headers: {}, body: { region: "eu", n: 7 } },
    });
    expect(await run(drop.id)).toEqual({ filtered: true });
    expect(await run(fail.id)).toEqual({
      error: {
        code: "script_error",
        message: "TypeError: nope (line 1, column 52)",
        line: 1,
        column: 52,
      },
    });
    expect(await run(keep.id, stranger.organizationId)).toMatchObject({
      error: { code: "script_error" },
    });
    expect(await ports().transformationExists(owner.organizationId, keep.id)).toBe(true);
    expect(await ports().transformationExists(stranger.organizationId, keep.id)).toBe(false);
  });
});
