import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { readJson } from "../test-utils/json.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const actionsOf = (endpointId: string) => `/api/v1/endpoints/${endpointId}/actions`;
const store = (name = "Remember") => ({
  type: "store_variable",
  name,
  config: { name: "last", value: "$request.method$" },
});

describe("CRUD under /api/v1/endpoints/{id}/actions", () => {
  test("create, read, list by position, update, delete, all in {data} envelopes", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const path = actionsOf(endpoint.id);
    const first = await callAs(server, owner, "POST", path, store("First"));
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      type: "store_variable",
      name: "First",
      config: { name: "last", value: "$request.method$" },
      position: 0,
      enabled: true,
    });
    expect(first.body.data.created_at).toBeString();
    const second = await callAs(server, owner, "POST", path, {
      ...store("Second"),
      enabled: false,
    });
    expect(second.body.data).toMatchObject({ position: 1, enabled: false });

    const list = await callAs(server, owner, "GET", path);
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: { name: string }) => a.name)).toEqual(["First", "Second"]);

    const one = await callAs(server, owner, "GET", `${path}/${first.body.data.id}`);
    expect(one.body.data).toEqual(first.body.data);

    const patched = await callAs(server, owner, "PATCH", `${path}/${second.body.data.id}`, {
      name: "Renamed",
      enabled: true,
      config: { name: "count", value: 1 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: "Renamed",
      enabled: true,
      config: { name: "count", value: 1 },
      position: 1,
    });

    const removed = await callAs(server, owner, "DELETE", `${path}/${first.body.data.id}`);
    expect(removed.status).toBe(204);
    const after = await callAs(server, owner, "GET", path);
    expect(
      after.body.data.map((a: { name: string; position: number }) => [a.name, a.position]),
    ).toEqual([["Renamed", 0]]);
    expect((await callAs(server, owner, "GET", `${path}/${first.body.data.id}`)).status).toBe(404);
  });

  test("reorder takes every action id exactly once, else 422 naming action_ids", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const path = actionsOf(endpoint.id);
    const ids: string[] = [];
    for (const name of ["a", "b", "c"]) {
      ids.push((await callAs(server, owner, "POST", path, store(name))).body.data.id);
    }
    const [a, b, c] = ids as [string, string, string];
    const reordered = await callAs(server, owner, "PUT", `${path}/reorder`, {
      action_ids: [c, a, b],
    });
    expect(reordered.status).toBe(200);
    expect(
      reordered.body.data.map((x: { name: string; position: number }) => [x.name, x.position]),
    ).toEqual([
      ["c", 0],
      ["a", 1],
      ["b", 2],
    ]);
    for (const action_ids of [[c, a], [c, a, b, b], [c, a, "nope"], "c,a,b"]) {
      const bad = await callAs(server, owner, "PUT", `${path}/reorder`, { action_ids });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBe("validation_failed");
      expect(bad.body.errors.action_ids).toBeArray();
    }
    const list = await callAs(server, owner, "GET", path);
    expect(list.body.data.map((x: { name: string }) => x.name)).toEqual(["c", "a", "b"]);
  });

  test("a bad type, name or config is a 422 naming the field", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const path = actionsOf(endpoint.id);
    const cases: [unknown, string][] = [
      [{ ...store(), type: "send_email" }, "type"],
      [{ ...store(), name: "" }, "name"],
      [{ ...store(), name: "x".repeat(256) }, "name"],
      [{ type: "store_variable", name: "n" }, "config"],
      [{ type: "http_request", name: "n", config: { method: "POST" } }, "config.url"],
      [
        { type: "http_request", name: "n", config: { url: "ftp://x", method: "POST" } },
        "config.url",
      ],
      [
        {
          type: "http_request",
          name: "n",
          config: { url: "http://169.254.169.254/", method: "GET" },
        },
        "config.url",
      ],
      [
        { type: "http_request", name: "n", config: { url: "http://x.test", method: "BREW" } },
        "config.method",
      ],
      [{ type: "store_variable", name: "n", config: { name: "1bad", value: 1 } }, "config.name"],
      [{ type: "run_script", name: "n", config: { code: "" } }, "config.code"],
      [
        { type: "extract_json", name: "n", config: { source: "body", extractions: [] } },
        "config.extractions",
      ],
      [{ type: "condition", name: "n", config: { "body.x": { $regex: "(" } } }, "config.body.x"],
      [{ type: "modify_response", name: "n", config: { status: 99 } }, "config.status"],
      [
        { type: "modify_response", name: "n", config: { headers: { "Set-Cookie": "a=b" } } },
        "config.headers",
      ],
      [{ type: "modify_response", name: "n", config: { bdy: "typo" } }, "config.bdy"],
    ];
    for (const [body, field] of cases) {
      const answer = await callAs(server, owner, "POST", path, body);
      expect({ field, status: answer.status, error: answer.body.error }).toEqual({
        field,
        status: 422,
        error: "validation_failed",
      });
      expect(Object.keys(answer.body.errors).some((key) => key.startsWith(field))).toBe(true);
    }
    const first = await callAs(server, owner, "POST", path, store());
    const patch = await callAs(server, owner, "PATCH", `${path}/${first.body.data.id}`, {
      config: { name: "ok", value: 1, extra: true },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.errors["config.extra"]).toBeArray();
    expect((await callAs(server, owner, "GET", path)).body.data).toHaveLength(1);
  });
});

describe("plans, roles and organizations", () => {
  test("free plan: 403 feature_not_available; at the plan's cap: 403 action_limit_reached", async () => {
    const free = await signUp(server, { plan: "free" });
    const freeEndpoint = await createDebugEndpoint(server, free);
    const refused = await callAs(server, free, "POST", actionsOf(freeEndpoint.id), store());
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "feature_not_available" });

    const endpoint = await createDebugEndpoint(server, owner);
    for (let i = 0; i < 10; i++) {
      const made = await callAs(server, owner, "POST", actionsOf(endpoint.id), store(`n${i}`));
      expect(made.status).toBe(201);
    }
    const full = await callAs(server, owner, "POST", actionsOf(endpoint.id), store("eleventh"));
    expect(full.status).toBe(403);
    expect(full.body).toEqual({ error: "action_limit_reached" });

    const enterprise = await signUp(server, { plan: "enterprise" });
    const large = await createDebugEndpoint(server, enterprise);
    for (let i = 0; i < 50; i++) {
      const made = await callAs(server, enterprise, "POST", actionsOf(large.id), store(`n${i}`));
      expect(made.status).toBe(201);
    }
    const over = await callAs(server, enterprise, "POST", actionsOf(large.id), store("51st"));
    expect(over.body).toEqual({ error: "action_limit_reached" });
  });

  test("members read but may not write or run; another organization sees 404", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const path = actionsOf(endpoint.id);
    const made = (await callAs(server, owner, "POST", path, store())).body.data;
    const member = await owner.addMember("member");
    expect((await callAs(server, member, "GET", path)).status).toBe(200);
    expect((await callAs(server, member, "GET", `${path}/${made.id}`)).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ["POST", path, store()],
      ["PATCH", `${path}/${made.id}`, { name: "x" }],
      ["DELETE", `${path}/${made.id}`, undefined],
      ["PUT", `${path}/reorder`, { action_ids: [made.id] }],
      ["POST", `${path}/test`, { request: { body: {} } }],
    ];
    for (const [method, url, body] of writes) {
      const answer = await callAs(server, member, method, url, body);
      expect({ method, url, status: answer.status, body: answer.body }).toEqual({
        method,
        url,
        status: 403,
        body: { error: "forbidden" },
      });
    }
    const stranger = await signUp(server, { plan: "team" });
    for (const [method, url, body] of [
      ["GET", path, undefined],
      ["GET", `${path}/${made.id}`, undefined],
      ...writes,
    ]) {
      const answer = await callAs(server, stranger, method as string, url as string, body);
      expect({ method, url, status: answer.status }).toEqual({ method, url, status: 404 });
    }
    expect((await callAs(server, null, "GET", path)).status).toBe(401);
  });
});

test("the API reference shows each type's config schema for the create body", async () => {
  const doc = await readJson(await server.request("/api/openapi.json"));
  const path = doc.paths["/api/v1/endpoints/{id}/actions"];
  expect(path.get.tags).toEqual(["actions"]);
  const body = JSON.stringify(path.post.requestBody);
  for (const field of ["extractions", "url", "code", "modify_response", "store_variable"]) {
    expect(body).toContain(field);
  }
  for (const route of [
    "/api/v1/endpoints/{id}/actions/{action_id}",
    "/api/v1/endpoints/{id}/actions/reorder",
    "/api/v1/endpoints/{id}/actions/test",
    "/api/v1/endpoints/{id}/requests/{request_id}/actions",
    "/api/v1/endpoints/{id}/requests/{request_id}/actions/run",
  ]) {
    expect(doc.paths[route]).toBeDefined();
  }
});
