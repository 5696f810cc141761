import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readJson } from "../test-utils/json.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { operationsOf } from "./http.openapi.document.ts";

let server: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is open-ended JSON.
let doc: any;
beforeAll(async () => {
  server = await startTestServer();
  doc = await readJson(await server.request("/api/openapi.json"));
});
afterAll(() => server.stop());

/**
 * Holds every room to a complete reference: a later room cannot add a route that the document
 * shows without a success answer, without saying who may call it, or outside every group.
 */
describe("the API reference is complete", () => {
  test("every operation has a success response, a security entry (or is public on purpose) and a tag", () => {
    const problems: string[] = [];
    for (const [path, method, operation] of operationsOf(doc)) {
      const name = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(operation.responses ?? {});
      const upgrade = path === "/socket/websocket" && statuses.includes("101");
      if (!upgrade && !statuses.some((s) => /^2\d\d$/.test(s))) problems.push(`${name}: no 2xx`);
      if (!Array.isArray(operation.security)) problems.push(`${name}: no security entry`);
      if (!operation.tags?.length) problems.push(`${name}: no tag`);
      if (!operation.summary) problems.push(`${name}: no summary`);
    }
    expect(problems).toEqual([]);
  });

  test("guarded routes require credentials and document their 401; public ones say so", () => {
    const op = (path: string, method: string) => doc.paths[path]?.[method];
    expect(op("/api/v1/endpoints", "get").security).toEqual([
      { bearer: [] },
      { apiKey: [] },
      { session: [] },
    ]);
    expect(op("/api/v1/endpoints", "get").responses["401"]).toBeDefined();
    expect(op("/api/v1/auth/login", "post").security).toEqual([]);
    expect(op("/w/{slug}", "post")?.security ?? op("/w/{slug}", "get")?.security).toEqual([]);
  });

  test("bodies are described with examples; the socket and the capture sub-path form are there", () => {
    const create = doc.paths["/api/v1/endpoints"].post;
    expect(create.requestBody.content["application/json"].schema).toBeDefined();
    expect(JSON.stringify(create.requestBody)).toContain("example");
    const key = doc.paths["/api/v1/organizations/{org_id}/api-keys"].post;
    expect(key.requestBody.content["application/json"].schema.required).toContain("name");
    expect(doc.paths["/socket/websocket"].get.description).toContain("webhook_received");
    expect(doc.paths["/w/{slug}/{subpath}"].post.description).toContain("sub-path");
  });

  test("/api/docs is an offline page that renders the document", async () => {
    const page = await server.request("/api/docs");
    const html = await page.text();
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(html).toContain("/api/openapi.json");
  });
});
