import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { readJson } from "../test-utils/json.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { AUTHENTICATED, operationsOf } from "./http.openapi.document.ts";

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is open-ended JSON.
type Json = Record<string, any>;

let server: TestServer;
let admin: TestAccount;
let doc: Json;
beforeAll(async () => {
  server = await startTestServer();
  admin = await signUp(server, { plan: "team" });
  doc = await readJson(await server.request("/api/openapi.json"));
});
afterAll(() => server.stop());

const GATEWAY = /^\/api\/v1\/(sources|bridges|transformations|secrets|alert-rules)\b/;
/** Writes that take no JSON body: the raw ingest, secret rotations, a test alert. */
const NO_BODY = /(\/ingest|\/rotate-secret|\/alert-rules\/\{id\}\/test)$/;
const WRITES = ["post", "put", "patch"];

const gatewayWrites = () =>
  operationsOf(doc).filter(
    ([path, method]) => GATEWAY.test(path) && WRITES.includes(method) && !NO_BODY.test(path),
  );
const jsonSchemaOf = (operation: Json) => operation.requestBody?.content?.["application/json"];

describe("who may call each operation", () => {
  const PUBLIC = [
    "GET /healthz",
    "POST /in/{slug}",
    "POST /in/{slug}/{path}",
    "GET /in/{slug}/{path}",
    "POST /api/v1/sources/{id}/ingest",
    "POST /w/{slug}",
    "POST /w/{slug}/{subpath}",
    "POST /debug/{slug}",
    "POST /api/v1/auth/register",
    "POST /api/v1/auth/login",
    "POST /api/v1/anonymous-endpoints",
  ];

  test("public operations say `security: []`; every other API operation names the guard's schemes", () => {
    const problems: string[] = [];
    const byName = new Map(operationsOf(doc).map(([p, m, op]) => [`${m.toUpperCase()} ${p}`, op]));
    for (const name of PUBLIC) {
      const security = byName.get(name)?.security;
      if (!Array.isArray(security) || security.length > 0) problems.push(`${name}: not public`);
    }
    for (const [path, method, operation] of operationsOf(doc)) {
      const name = `${method.toUpperCase()} ${path}`;
      if (!Array.isArray(operation.security)) problems.push(`${name}: no security`);
      if (!GATEWAY.test(path) || path.endsWith("/ingest")) continue;
      if (JSON.stringify(operation.security) !== JSON.stringify(AUTHENTICATED)) {
        problems.push(`${name}: ${JSON.stringify(operation.security)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("request bodies come from the schemas that validate them", () => {
  test("every JSON write of the gateway declares properties, types, required and an example", () => {
    const problems: string[] = [];
    const writes = gatewayWrites();
    expect(writes.length).toBeGreaterThanOrEqual(17);
    for (const [path, method, operation] of writes) {
      const name = `${method.toUpperCase()} ${path}`;
      const content = jsonSchemaOf(operation);
      const schema = content?.schema;
      if (!schema?.properties) {
        problems.push(`${name}: no properties`);
        continue;
      }
      for (const [field, property] of Object.entries(schema.properties as Json)) {
        if (!property.type && !property.anyOf) problems.push(`${name}: ${field} has no type`);
      }
      if (method === "post" && !schema.required?.length) problems.push(`${name}: no required`);
      if (content.example === undefined) problems.push(`${name}: no example`);
    }
    expect(problems).toEqual([]);
  });

  test("an http destination's body declares path_forwarding, an optional boolean", () => {
    const schema = jsonSchemaOf(doc.paths["/api/v1/bridges/{id}/destinations"].post).schema;
    expect(schema.properties.path_forwarding.type).toBe("boolean");
    expect(schema.required).not.toContain("path_forwarding");
  });

  test("the schema checks what the room's own checks leave out; unknown properties pass", async () => {
    const bridge = (destination: Json) =>
      callAs(server, admin, "POST", "/api/v1/bridges", {
        name: "Typed",
        source: { name: "Typed source" },
        destinations: [{ name: "Sink", url: "https://api.example.com/in", ...destination }],
      });
    const refused = await bridge({ path_forwarding: "yes" });
    expect([refused.status, Object.keys(refused.body.errors)]).toEqual([
      422,
      ["destinations[0].path_forwarding"],
    ]);
    const accepted = await bridge({ path_forwarding: false, added_later: { any: "thing" } });
    expect(accepted.status).toBe(201);
  });

  test("each write accepts its documented example, and names a removed required property", async () => {
    const call = (method: string, path: string, body?: unknown) =>
      callAs(server, admin, method.toUpperCase(), path, body);
    const source = await call("post", "/api/v1/sources", { name: "Docs source" });
    const bridge = await call("post", "/api/v1/bridges", {
      name: "Docs bridge",
      source_id: source.body.data.id,
      destinations: [{ name: "Sink", type: "http", url: "https://api.example.com/in" }],
    });
    const transformation = await call("post", "/api/v1/transformations", {
      name: "Docs script",
      code: 'addHandler("transform", (request) => request);',
    });
    const rule = await call("post", "/api/v1/alert-rules", {
      name: "Docs rule",
      condition: { type: "issue_created" },
      channel: { type: "slack", webhook_url: "https://hooks.example.com/x" },
    });
    await call("post", "/api/v1/secrets", { name: "DOCS_SECRET", value: "x" });
    const ids: Record<string, string> = {
      "/api/v1/sources/{id}": source.body.data.id,
      "/api/v1/bridges/{id}": bridge.body.data.id,
      "/api/v1/transformations/{id}": transformation.body.data.id,
      "/api/v1/alert-rules/{id}": rule.body.data.id,
    };
    const fill = (path: string) =>
      path
        .replace(/^(\/api\/v1\/[a-z-]+)\/\{id\}/, (whole) =>
          ids[whole] ? whole.replace("{id}", ids[whole] as string) : whole,
        )
        .replace("{destination_id}", bridge.body.data.destinations[0].id)
        .replace("{name}", "DOCS_SECRET");

    const problems: string[] = [];
    for (const [path, method, operation] of gatewayWrites()) {
      const name = `${method.toUpperCase()} ${path}`;
      const { schema, example } = jsonSchemaOf(operation);
      // A created secret's name is taken once: each round names its own.
      const body = (suffix: string) =>
        path === "/api/v1/secrets" ? { ...example, name: `${example.name}_${suffix}` } : example;
      const accepted = await call(method, fill(path), body("A"));
      if (accepted.status >= 300) {
        problems.push(`${name}: example → ${accepted.status} ${JSON.stringify(accepted.body)}`);
      }
      for (const field of (schema.required ?? []) as string[]) {
        const { [field]: _, ...without } = body(`NO_${field.toUpperCase()}`);
        const refused = await call(method, fill(path), without);
        if (refused.status !== 422 || !refused.body.errors?.[field]) {
          problems.push(
            `${name} without ${field}: ${refused.status} ${JSON.stringify(refused.body)}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("lists and the ingest URL", () => {
  const queryOf = (path: string) =>
    Object.fromEntries(
      (doc.paths[path].get.parameters as Json[])
        .filter((p) => p.in === "query")
        .map((p) => [p.name, p.schema]),
    );

  test("list filters are declared parameters with types; page numbers are integers", () => {
    const events = queryOf("/api/v1/events");
    expect(Object.keys(events).sort()).toEqual(
      ["bridge_id", "page", "page_size", "since", "source_id", "status", "until"].sort(),
    );
    expect(events.status.enum).toContain("failed");
    expect([events.page.type, events.page_size.type, events.since.type]).toEqual([
      "integer",
      "integer",
      "string",
    ]);
    const issues = queryOf("/api/v1/issues");
    expect(Object.keys(issues).sort()).toEqual(
      ["bridge_id", "destination_id", "page", "page_size", "status"].sort(),
    );
    expect(queryOf("/api/v1/endpoints/{id}/requests").page.type).toBe("integer");
    expect(queryOf("/api/v1/alert-rules").page_size.maximum).toBe(100);
  });

  test("page, page_size and total of every list answer are integers", () => {
    const problems: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (typeof node !== "object" || node === null) return;
      const properties = (node as Json).properties as Json | undefined;
      for (const [name, schema] of Object.entries(properties ?? {})) {
        const counted =
          /^(page|page_size|total|current_page|total_pages|total_records|total_count)$/;
        if (counted.test(name) && schema.type !== "integer") problems.push(`${where} ${name}`);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`);
    };
    walk(doc.paths, "");
    expect(problems).toEqual([]);
  });

  test("/in/{slug}/{path} is documented for any method, public, with its path parameter", () => {
    const item = doc.paths["/in/{slug}/{path}"];
    expect(Object.keys(item).sort()).toEqual(Object.keys(doc.paths["/in/{slug}"]).sort());
    expect(item.post.security).toEqual([]);
    expect(item.post.parameters.map((p: Json) => p.name)).toEqual(["slug", "path"]);
    expect(item.post.responses["200"]).toBeDefined();
  });
});
