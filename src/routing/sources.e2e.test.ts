import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
let sourceId: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
  const created = await callAs(server, owner, "POST", "/api/v1/sources", { name: "Stripe" });
  sourceId = created.body.data.id;
});
afterAll(() => server.stop());

const ROUTES = [
  { method: "GET", path: "/api/v1/sources", write: false, ok: 200 },
  { method: "POST", path: "/api/v1/sources", write: true, ok: 201 },
  { method: "GET", path: "/api/v1/sources/{s}", write: false, ok: 200 },
  { method: "PUT", path: "/api/v1/sources/{s}", write: true, ok: 200 },
  { method: "PATCH", path: "/api/v1/sources/{s}", write: true, ok: 200 },
  { method: "DELETE", path: "/api/v1/sources/{s}", write: true, ok: 204 },
] as const;
const BODY = { name: "Renamed", deduplication_config: { body_path: "body.id" } };
const fill = (path: string, id = sourceId) => path.replace("{s}", id);

describe("access", () => {
  test.each(ROUTES)("$method $path without credentials → 401", async (route) => {
    const answer = await callAs(server, null, route.method, fill(route.path), BODY);
    expect([answer.status, answer.body]).toEqual([401, { error: "Invalid or missing API key" }]);
  });
  test.each(ROUTES.filter((r) => r.write))("$method $path as a member → 403", async (route) => {
    const answer = await callAs(server, member, route.method, fill(route.path), BODY);
    expect([answer.status, answer.body]).toEqual([403, { error: "forbidden" }]);
  });
  test.each(ROUTES.filter((r) => !r.write))("$method $path as a member → $ok", async (route) => {
    expect((await callAs(server, member, route.method, fill(route.path))).status).toBe(route.ok);
  });
  test.each(ROUTES.filter((r) => r.path.includes("{s}")))(
    "$method $path of another organization → 404",
    async (route) => {
      const answer = await callAs(server, stranger, route.method, fill(route.path), BODY);
      expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
    },
  );
});

describe("CRUD", () => {
  test("create → 201 {data} with the decisions §8 fields and an ingest_url", async () => {
    const answer = await callAs(server, owner, "POST", "/api/v1/sources", {
      name: "GitHub",
      type: "webhook",
      deduplication_config: { include_fields: ["body.id", "headers.x-event"], ttl_seconds: 60 },
    });
    expect(answer.status).toBe(201);
    const source = answer.body.data;
    expect(Object.keys(source).sort()).toEqual(
      [
        "created_at",
        "deduplication_config",
        "id",
        "ingest_url",
        "name",
        "slug",
        "type",
        "updated_at",
        "verification",
      ].sort(),
    );
    expect(source.slug).toMatch(/^github-[a-z0-9]+$/);
    expect(source.ingest_url).toBe(`${server.url}/in/${source.slug}`);
    expect(source.deduplication_config).toEqual({
      enabled: true,
      include_fields: ["body.id", "headers.x-event"],
      ttl_seconds: 60,
    });
    const read = await callAs(server, owner, "GET", `/api/v1/sources/${source.id}`);
    expect(read.body).toEqual({ data: source });
    const list = await callAs(server, owner, "GET", "/api/v1/sources");
    expect(list.body.data[0]).toEqual(source);
  });

  test("PUT renames, PATCH replaces and removes the dedup config, DELETE → 204 then 404", async () => {
    const { body } = await callAs(server, owner, "POST", "/api/v1/sources", { name: "A" });
    const id = body.data.id;
    const put = await callAs(server, owner, "PUT", `/api/v1/sources/${id}`, { name: "B" });
    expect([put.status, put.body.data.name, put.body.data.slug]).toEqual([
      200,
      "B",
      body.data.slug,
    ]);
    const patch = await callAs(server, owner, "PATCH", `/api/v1/sources/${id}`, {
      deduplication_config: { body_path: "body.id", enabled: false },
    });
    expect(patch.body.data.deduplication_config).toEqual({
      enabled: false,
      body_path: "body.id",
      ttl_seconds: 300,
    });
    const cleared = await callAs(server, owner, "PATCH", `/api/v1/sources/${id}`, {
      deduplication_config: null,
    });
    expect(cleared.body.data.deduplication_config).toBeNull();
    expect((await callAs(server, owner, "DELETE", `/api/v1/sources/${id}`)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `/api/v1/sources/${id}`)).status).toBe(404);
  });
});

describe("names are unique in an organization", () => {
  const create = (account: TestAccount, body: unknown) =>
    callAs(server, account, "POST", "/api/v1/sources", body);
  const rename = (method: "PUT" | "PATCH", id: string, name: string) =>
    callAs(server, owner, method, `/api/v1/sources/${id}`, { name });

  test("creating or renaming to a taken name → 409 name_taken, and nothing changes", async () => {
    const first = await create(owner, { name: "Shopify" });
    expect(first.status).toBe(201);
    expect(await create(owner, { name: "Shopify" })).toMatchObject({
      status: 409,
      body: { error: "name_taken" },
    });
    const other = await create(owner, { name: "Shopify EU" });
    for (const method of ["PUT", "PATCH"] as const) {
      expect(await rename(method, other.body.data.id, "Shopify")).toMatchObject({
        status: 409,
        body: { error: "name_taken" },
      });
    }
    const kept = await callAs(server, owner, "GET", `/api/v1/sources/${other.body.data.id}`);
    expect(kept.body.data.name).toBe("Shopify EU");
    // Its own name again is no clash; another organization may use the name.
    expect((await rename("PUT", first.body.data.id, "Shopify")).status).toBe(200);
    expect((await create(stranger, { name: "Shopify" })).status).toBe(201);
  });

  test("a bridge that would create a source under a taken name → 409, and no bridge is stored", async () => {
    await create(owner, { name: "Paddle" });
    const bridges = async () =>
      (await callAs(server, owner, "GET", "/api/v1/bridges")).body.data.length;
    const before = await bridges();
    const answer = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Billing",
      source: { name: "Paddle", type: "webhook" },
      destinations: [{ name: "Orders", type: "http", url: "http://127.0.0.1:9/hook" }],
    });
    expect([answer.status, answer.body]).toEqual([409, { error: "name_taken" }]);
    expect(await bridges()).toBe(before);
  });

  test("concurrent creates of one name: exactly one is stored", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => create(owner, { name: "Racing" })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    const listed = await callAs(server, owner, "GET", "/api/v1/sources");
    const named = listed.body.data.filter((s: { name: string }) => s.name === "Racing");
    expect(named).toHaveLength(1);
  });
});

describe("validation → 422 naming the field", () => {
  const CASES = [
    { name: "missing name", method: "POST", body: {}, key: "name" },
    { name: "blank name", method: "POST", body: { name: "  " }, key: "name" },
    { name: "bad type", method: "POST", body: { name: "x", type: "Not A Type" }, key: "type" },
    {
      name: "two strategies",
      method: "POST",
      body: {
        name: "x",
        deduplication_config: { body_path: "body.a", include_fields: ["body.b"] },
      },
      key: "deduplication_config.include_fields",
    },
    {
      name: "ttl of zero",
      method: "POST",
      body: { name: "x", deduplication_config: { body_path: "body.a", ttl_seconds: 0 } },
      key: "deduplication_config.ttl_seconds",
    },
    { name: "PUT without name", method: "PUT", body: {}, key: "name" },
    { name: "PATCH without anything", method: "PATCH", body: {}, key: "deduplication_config" },
    {
      name: "PATCH with a bad path",
      method: "PATCH",
      body: { deduplication_config: { body_path: "nope.a" } },
      key: "deduplication_config.body_path",
    },
  ] as const;
  test.each(CASES)("$name", async ({ method, body, key }) => {
    const path = method === "POST" ? "/api/v1/sources" : `/api/v1/sources/${sourceId}`;
    const answer = await callAs(server, owner, method, path, body);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(Object.keys(answer.body.errors)).toContain(key);
  });
});
