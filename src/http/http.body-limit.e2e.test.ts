/**
 * Body limits come before parsing and before authentication, and every oversized request gets
 * the JSON 413, never Bun's bare one (decisions.md §14).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../shared/config.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { rawExchange } from "../test-utils/capture-server.ts";
import { createDebugEndpoint } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const MAX_JSON = 4096;
let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer({ config: { max_json_bytes: MAX_JSON } });
  owner = await signUp(server, { plan: "enterprise" });
});
afterAll(() => server.stop());

const head = (path: string, lines: string[]) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${lines.join("\r\n")}\r\n\r\n`;
const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

describe("management bodies over max_json_bytes", () => {
  test("a declared 60 MB body without credentials is 413, answered before any byte of it is sent", async () => {
    const answer = await rawExchange(server.port, [
      head("/api/v1/debug-endpoints", ["Content-Length: 60000000"]),
    ]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large" });
    expect(answer.head.toLowerCase()).toContain("content-type: application/json");
  });

  test("a chunked body without credentials is cut off at the limit and refused, still streaming", async () => {
    // Past the limit, and never the terminating chunk: only a refusal made while reading returns.
    const answer = await rawExchange(server.port, [
      head("/api/v1/debug-endpoints", ["Transfer-Encoding: chunked"]),
      chunk(`{"name":"${"x".repeat(3000)}`),
      chunk("y".repeat(3000)),
    ]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large" });
  });

  test("the same routes still parse bodies within the limit, chunked or not, and still authenticate", async () => {
    const unauthenticated = await fetch(`${server.url}/api/v1/debug-endpoints`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ debug_endpoint: { name: "x".repeat(MAX_JSON - 100) } }),
    });
    expect(unauthenticated.status).toBe(401);

    const body = JSON.stringify({ debug_endpoint: { name: "Chunked" } });
    const streamed = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body.slice(0, 10)));
        controller.enqueue(new TextEncoder().encode(body.slice(10)));
        controller.close();
      },
    });
    const created = await fetch(`${server.url}/api/v1/debug-endpoints`, {
      method: "POST",
      headers: { ...owner.headers, "content-type": "application/json" },
      body: streamed,
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { name: string }).name).toBe("Chunked");

    const malformed = await rawExchange(server.port, [
      head("/api/v1/debug-endpoints", [
        "Transfer-Encoding: chunked",
        `Authorization: ${owner.headers.authorization}`,
      ]),
      chunk("{not json"),
      "0\r\n\r\n",
    ]);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toEqual({ error: "invalid_json" });
  });

  test("an authenticated caller gets the same 413 (the limit is not a matter of rights)", async () => {
    const response = await fetch(`${server.url}/api/v1/debug-endpoints`, {
      method: "POST",
      headers: { ...owner.headers, "content-type": "application/json" },
      body: JSON.stringify({ debug_endpoint: { name: "x".repeat(MAX_JSON) } }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "payload_too_large" });
  });
});

describe("captures keep their own limit, and never meet Bun's bare 413", () => {
  test("a capture may be larger than max_json_bytes, up to max_body_bytes", async () => {
    const endpoint = await createDebugEndpoint(server, owner, { name: "Big" });
    const response = await fetch(`${server.url}/w/${endpoint.slug}`, {
      method: "POST",
      body: "z".repeat(MAX_JSON * 4),
    });
    expect(response.status).toBe(200);
  });

  test("a declared 10 GB capture (past Bun's default 128 MiB limit) gets the JSON 413", async () => {
    const endpoint = await createDebugEndpoint(server, owner, { name: "Huge" });
    const answer = await rawExchange(server.port, [
      head(`/w/${endpoint.slug}`, ["Content-Length: 10000000000"]),
    ]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large" });
  });

  test("a declared 10 GB management body gets the JSON 413 too", async () => {
    const answer = await rawExchange(server.port, [
      head("/api/v1/auth/login", ["Content-Length: 10000000000"]),
    ]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large" });
  });
});

test("max_json_bytes is checked at config load", () => {
  expect(() => loadConfig({ env: { WEIR_MAX_JSON_BYTES: "10" } })).toThrow(
    /invalid max_json_bytes \(WEIR_MAX_JSON_BYTES\)/,
  );
  expect(loadConfig({ env: {} }).config.max_json_bytes).toBe(1_048_576);
});
