import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { t } from "elysia";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { readJson } from "../test-utils/json.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createMetrics } from "./http.metrics.ts";
import { createHttpBase } from "./http.server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("system routes", () => {
  test("GET /healthz answers ok with the version once migrations ran", async () => {
    const response = await server.request("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: server.deps.version });
  });

  test("GET /metrics is Prometheus text with requests by route and status, latency and memory", async () => {
    await server.request("/healthz");
    await server.request("/api/v1/does-not-exist");
    const response = await server.request("/metrics");
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toMatch(
      /weir_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
    expect(text).toMatch(/weir_http_requests_total\{method="GET",route="[^"]+",status="404"\} \d+/);
    expect(text).toMatch(
      /weir_http_request_duration_seconds_bucket\{method="GET",route="\/healthz",le="\+Inf"\} \d+/,
    );
    expect(text).toMatch(/weir_process_resident_memory_bytes \d+/);
    expect(text).not.toContain("does-not-exist");
  });

  test("WEIR_METRICS_TOKEN: /metrics answers only the bearer of the token", async () => {
    const guarded = await startTestServer({ config: { metrics_token: "scrape-me-please" } });
    try {
      const scrape = (authorization?: string) =>
        guarded.request("/metrics", authorization ? { headers: { authorization } } : {});
      const refused = await scrape();
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: "unauthorized" });
      expect(refused.headers.get("www-authenticate")).toContain("Bearer");
      expect((await scrape("Bearer scrape-me-wrong!")).status).toBe(401);
      expect((await scrape("scrape-me-please")).status).toBe(401);
      const allowed = await scrape("Bearer scrape-me-please");
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain("weir_http_requests_total");
      // Health stays open: load balancers probe it without credentials.
      expect((await guarded.request("/healthz")).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });

  test("every response carries x-request-id, and a sane incoming one is kept", async () => {
    for (const path of ["/healthz", "/api/v1/nope", "/metrics", "/"]) {
      const response = await server.request(path);
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const kept = await server.request("/healthz", { headers: { "x-request-id": "proxy-abc.1" } });
    expect(kept.headers.get("x-request-id")).toBe("proxy-abc.1");
    const replaced = await server.request("/healthz", {
      headers: { "x-request-id": "bad id <script>" },
    });
    expect(replaced.headers.get("x-request-id")).not.toContain("<");
  });
});

describe("API documentation", () => {
  test("the OpenAPI document is generated from the routes", async () => {
    const response = await server.request("/api/openapi.json");
    expect(response.status).toBe(200);
    const doc = await readJson(response);
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe("Weir API");
    expect(doc.info.version).toBe(server.deps.version);
    expect(doc.paths["/healthz"].get.responses["200"]).toBeDefined();
    expect(doc.paths["/api/docs"]).toBeUndefined();
  });

  test("/api/docs is an embedded page that loads nothing from outside", async () => {
    const response = await server.request("/api/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("/api/openapi.json");
    expect(html).not.toMatch(/(src|href)="https?:\/\//);
  });
});

describe("UI fallback", () => {
  test("/ serves the UI index (placeholder when not built)", async () => {
    const response = await server.request("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(await response.text()).toContain("Weir");
  });

  test("UI routes fall back to the index, API paths stay JSON 404s", async () => {
    expect((await server.request("/endpoints/abc")).headers.get("content-type")).toContain(
      "text/html",
    );
    for (const path of ["/api/v1/nope", "/api", "/debug/x/y", "/socket/websocket", "/missing.js"]) {
      const response = await server.request(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: "not_found" });
    }
  });
});

describe("the one error renderer", () => {
  const logs: string[] = [];
  const app = createHttpBase({
    ids: createIds(),
    logger: createLogger({ level: "debug", write: (line) => logs.push(line) }),
    metrics: createMetrics(),
  })
    .post("/things", ({ body }) => body, {
      body: t.Object({ name: t.String({ minLength: 1 }), size: t.Optional(t.Integer()) }),
    })
    .get("/boom", () => {
      throw new Error("database exploded at /secret/path");
    });
  const call = (path: string, init?: RequestInit) =>
    app.handle(new Request(`http://weir.test${path}`, init));
  const post = (body: string) =>
    call("/things", { method: "POST", headers: { "content-type": "application/json" }, body });

  test("unknown route → 404 {error: not_found}", async () => {
    const response = await call("/nowhere", { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "not_found" });
  });

  test("malformed JSON → 400 {error: invalid_json}", async () => {
    const response = await post('{"name": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_json" });
  });

  test("validation → 422 {error: validation_failed, errors: {field: [...]}}", async () => {
    const response = await post('{"name": "", "size": "big"}');
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.error).toBe("validation_failed");
    expect(Object.keys(body.errors).sort()).toEqual(["name", "size"]);
    expect(body.errors.name[0]).toEqual(expect.any(String));
  });

  test("valid input passes", async () => {
    const response = await post('{"name": "a", "size": 2}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: "a", size: 2 });
  });

  test("unexpected error → 500 with request id; the stack only in the log", async () => {
    const response = await call("/boom");
    expect(response.status).toBe(500);
    const body = await readJson(response);
    const requestId = response.headers.get("x-request-id");
    expect(body).toEqual({ error: "internal_error", request_id: requestId });
    expect(JSON.stringify(body)).not.toContain("exploded");
    const logged = logs
      .map((line) => JSON.parse(line))
      .find((entry) => entry.request_id === requestId);
    expect(logged.level).toBe("error");
    expect(logged.error.stack).toContain("database exploded");
  });
});

describe("two apps in one process do not share state", () => {
  test("metrics, bus and request tracking are each app's own", async () => {
    const a = await startTestServer();
    const b = await startTestServer();
    try {
      // Bus: a capture on A reaches A's listeners only.
      const heard = { a: 0, b: 0 };
      a.deps.bus.on("request.captured", () => {
        heard.a += 1;
      });
      b.deps.bus.on("request.captured", () => {
        heard.b += 1;
      });
      const created = await a.request("/api/v1/anonymous-endpoints", { method: "POST" });
      expect(created.status).toBe(201);
      const { webhook_url } = (await readJson(created)).data;
      expect((await fetch(webhook_url, { method: "POST", body: "x" })).status).toBe(200);
      expect(heard).toEqual({ a: 1, b: 0 });

      // Metrics: three health probes on A, one on B.
      for (let i = 0; i < 3; i++) await a.request("/healthz");
      await b.request("/healthz");
      const healthCount = async (server: TestServer) =>
        Number(
          /weir_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)/.exec(
            await (await server.request("/metrics")).text(),
          )?.[1],
        );
      expect(await healthCount(a)).toBe(3);
      expect(await healthCount(b)).toBe(1);

      // Request tracking: each app logs the ids of its own requests only.
      const traced = (server: TestServer, id: string) =>
        server.request("/api/v1/me", { headers: { "x-request-id": id } });
      expect((await traced(a, "trace-for-a")).headers.get("x-request-id")).toBe("trace-for-a");
      expect((await traced(b, "trace-for-b")).headers.get("x-request-id")).toBe("trace-for-b");
      const ids = (server: TestServer) =>
        server.logs.map((line) => JSON.parse(line).request_id).filter(Boolean);
      expect(ids(a)).toContain("trace-for-a");
      expect(ids(a)).not.toContain("trace-for-b");
      expect(ids(b)).toContain("trace-for-b");
      expect(ids(b)).not.toContain("trace-for-a");
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
