import { afterAll, beforeAll, expect, test } from "bun:test";
import { apiCall } from "../test-utils/api-call.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

/**
 * Management routes that answer without credentials, on purpose. Every other `/api/v1` route in
 * the OpenAPI document must refuse a caller without credentials, so a room that forgets the
 * guard fails here.
 */
const PUBLIC = [
  /^\/api\/v1\/auth\/(register|login|logout|setup)$/,
  /^\/api\/v1\/anonymous-endpoints(\/|$)/,
  /^\/api\/v1\/sources\/[^/]+\/ingest$/,
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test("every management route answers 401 without credentials", async () => {
  const doc = (await apiCall(server, "GET", "/api/openapi.json")).body;
  const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .filter(([path]) => path.startsWith("/api/v1/") && !PUBLIC.some((p) => p.test(path)))
    .flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => [m.toUpperCase(), path] as const),
    );
  expect(routes.length).toBeGreaterThan(5);
  const open: string[] = [];
  for (const [method, template] of routes) {
    const path = template.replace(/\{[^}]+\}/g, "01900000-0000-7000-8000-000000000000");
    const answer = await apiCall(server, method, path, { body: {} });
    if (answer.status !== 401 || answer.body?.error !== "Invalid or missing API key") {
      open.push(`${method} ${template} → ${answer.status}`);
    }
  }
  expect(open).toEqual([]);
});
