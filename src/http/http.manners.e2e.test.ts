import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../shared/logger.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server);
});
afterAll(() => server.stop());

const logLines = () => server.logs.map((line) => JSON.parse(line));

describe("405 for a known path with a wrong method", () => {
  const cases: Array<[string, string, string]> = [
    ["DELETE", "/api/v1/endpoints", "GET, HEAD, POST"],
    ["POST", "/api/v1/endpoints/0196abcd-0000-7000-8000-000000000000", "DELETE, GET, HEAD, PUT"],
    ["PUT", "/api/v1/auth/login", "POST"],
    ["POST", "/healthz", "GET, HEAD"],
  ];
  for (const [method, path, allow] of cases) {
    test(`${method} ${path} → 405 Allow: ${allow}`, async () => {
      const answer = await apiCall(server, method, path, { headers: owner.headers });
      expect(answer.status).toBe(405);
      expect(answer.headers.get("allow")).toBe(allow);
      expect(answer.body.error).toBe("method_not_allowed");
    });
  }

  test("an unknown path stays a 404, whatever the method", async () => {
    for (const method of ["GET", "POST"]) {
      const answer = await apiCall(server, method, "/api/v1/no-such-thing");
      expect(answer.status).toBe(404);
      expect(answer.headers.get("allow")).toBeNull();
    }
  });

  test("a capture URL takes every method, so it never answers 405", async () => {
    const answer = await apiCall(server, "PROPFIND", "/w/not-there");
    expect(answer.status).toBe(404);
  });
});

describe("access log", () => {
  test("one info line per management request: method, route, status, ms, org, request id", async () => {
    const answer = await apiCall(server, "GET", "/api/v1/endpoints?token=sneaky", {
      headers: { ...owner.headers, "x-request-id": "trace-me-1" },
    });
    expect(answer.status).toBe(200);
    const line = logLines().find((l) => l.msg === "request" && l.request_id === "trace-me-1");
    expect(line).toMatchObject({
      level: "info",
      scope: "http",
      method: "GET",
      route: "/api/v1/endpoints",
      status: 200,
      org: owner.organizationId,
    });
    expect(line.ms).toBeGreaterThanOrEqual(0);
    const raw = server.logs.join("\n");
    expect(raw).not.toContain("sneaky");
    expect(raw).not.toContain(owner.token);
  });

  test("a failed login is logged without the password; captures and /healthz get no line each", async () => {
    const before = server.logs.length;
    await apiCall(server, "POST", "/api/v1/auth/login", {
      headers: { "x-request-id": "trace-me-2" },
      body: { email: "nobody@example.com", password: "hunter2-secret" },
    });
    await server.request("/healthz");
    await server.request("/w/nothing-here", { method: "POST", body: "x" });
    const lines = server.logs.slice(before);
    expect(lines.join("\n")).not.toContain("hunter2-secret");
    const parsed = lines.map((l) => JSON.parse(l));
    const requests = parsed.filter((l) => l.msg === "request");
    expect(requests.map((l) => [l.route, l.status])).toEqual([["/api/v1/auth/login", 401]]);
    expect(parsed.find((l) => l.msg === "login failed")).toMatchObject({
      level: "warn",
      scope: "auth",
      email: "nobody@example.com",
      address: "127.0.0.1",
    });
  });
});

describe("text log format", () => {
  test("WEIR_LOG_FORMAT=text writes one readable line with key=value fields", () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      format: "text",
      write: (line) => lines.push(line),
      now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
    });
    logger.child({ scope: "http" }).info("request", { method: "GET", status: 200, org: null });
    logger.warn("odd value", { note: "two words" });
    expect(lines).toEqual([
      "2026-01-02T03:04:05.000Z INFO  http: request method=GET status=200 org=null",
      '2026-01-02T03:04:05.000Z WARN  odd value note="two words"',
    ]);
  });
});
