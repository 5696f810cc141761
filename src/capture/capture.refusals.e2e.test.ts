import { afterEach, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
afterEach(() => server?.stop());

const logs = () => server.logs.map((line) => JSON.parse(line));

describe("captures refused with 429 or 413", () => {
  test("are counted on the endpoint (API), warned once, and summarised per endpoint", async () => {
    const scheduler = createManualScheduler();
    server = await startTestServer({ scheduler, config: { max_body_bytes: 64 } });
    const owner = await signUp(server, { plan: "free" });
    const created = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: owner.headers,
      body: { debug_endpoint: { name: "Busy", slug: "busy-sender" } },
    });
    const endpoint = created.body.data;
    expect(endpoint.refused).toEqual({
      rate_limited: 0,
      payload_too_large: 0,
      last_refused_at: null,
    });

    const tooBig = await server.request("/w/busy-sender", { method: "POST", body: "x".repeat(65) });
    expect(tooBig.status).toBe(413);
    // The free plan's bucket holds 20: a burst of 30 meets 429s.
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () =>
        server.request("/w/busy-sender", { method: "POST", body: "ok" }).then((r) => r.status),
      ),
    );
    const limited = statuses.filter((s) => s === 429).length;
    const accepted = statuses.filter((s) => s === 200).length;
    expect(limited).toBeGreaterThan(0);
    expect(accepted + limited).toBe(30);

    await scheduler.run("capture.refusals");
    const shown = await apiCall(server, "GET", `/api/v1/endpoints/${endpoint.id}`, {
      headers: owner.headers,
    });
    expect(shown.body.data.refused).toEqual({
      rate_limited: limited,
      payload_too_large: 1,
      last_refused_at: expect.any(String),
    });
    const debugFamily = await apiCall(server, "GET", "/api/v1/debug-endpoints", {
      headers: owner.headers,
    });
    expect(debugFamily.body.debug_endpoints[0].refused.rate_limited).toBe(limited);

    const warnings = logs().filter((l) => l.msg === "capture refused");
    expect(warnings.map((l) => [l.level, l.slug])).toEqual([["warn", "busy-sender"]]);
    expect(warnings[0]).toMatchObject({ status: 413, error: "payload_too_large" });

    await scheduler.run("capture.summary");
    const summary = logs().filter((l) => l.msg === "captures");
    expect(summary).toEqual([
      expect.objectContaining({
        level: "info",
        scope: "capture",
        endpoint_id: endpoint.id,
        slug: "busy-sender",
        accepted,
        refused_rate_limited: limited,
        refused_too_large: 1,
      }),
    ]);
    // A new interval: the next refusal warns again.
    await server.request("/w/busy-sender", { method: "POST", body: "x".repeat(65) });
    expect(logs().filter((l) => l.msg === "capture refused")).toHaveLength(2);
  });

  test("a flush after the endpoint was deleted is no error", async () => {
    const scheduler = createManualScheduler();
    server = await startTestServer({ scheduler, config: { max_body_bytes: 8 } });
    const owner = await signUp(server);
    const created = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: owner.headers,
      body: { debug_endpoint: { name: "Gone", slug: "gone-soon" } },
    });
    await server.request("/w/gone-soon", { method: "POST", body: "too large here" });
    await apiCall(server, "DELETE", `/api/v1/endpoints/${created.body.data.id}`, {
      headers: owner.headers,
    });
    await scheduler.run("capture.refusals");
    expect(logs().filter((l) => l.level === "error")).toEqual([]);
  });
});
