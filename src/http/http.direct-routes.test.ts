import { afterEach, describe, expect, test } from "bun:test";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { bunRoutes } from "./http.direct-routes.ts";
import { createMetrics } from "./http.metrics.ts";

describe("routes served by Bun.serve ahead of the app", () => {
  let server: ReturnType<typeof Bun.serve> | null = null;
  afterEach(() => {
    server?.stop(true);
    server = null;
  });

  const start = () => {
    const metrics = createMetrics();
    const lines: string[] = [];
    const logger = createLogger({ level: "info", format: "json", write: (l) => lines.push(l) });
    const routes = bunRoutes(
      {
        "/w/:slug": (request) => new Response(`hello ${new URL(request.url).pathname}`),
        "/w/:slug/*": () => {
          throw new Error("boom");
        },
      },
      { ids: createIds(), logger, metrics },
    );
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      routes,
      fetch: () => new Response("app"),
    });
    return { origin: `http://127.0.0.1:${server.port}`, metrics, lines };
  };

  test("an answer carries a request id and is counted under its route pattern", async () => {
    const { origin, metrics } = start();
    const response = await fetch(`${origin}/w/abc`, { method: "POST", body: "x" });
    expect(await response.text()).toBe("hello /w/abc");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await fetch(`${origin}/w/abc`, { headers: { "x-request-id": "proxy-id.1" } });
    expect(kept.headers.get("x-request-id")).toBe("proxy-id.1");
    expect(await metrics.render()).toContain(
      'weir_http_requests_total{method="POST",route="/w/:slug",status="200"} 1',
    );
  });

  test("a thrown error is the JSON 500 of the one error renderer, logged with its request id", async () => {
    const { origin, metrics, lines } = start();
    const response = await fetch(`${origin}/w/abc/deeper?x=1`, { method: "PUT" });
    expect(response.status).toBe(500);
    const id = response.headers.get("x-request-id");
    expect(await response.json()).toEqual({ error: "internal_error", request_id: id });
    expect(
      lines.some((l) => l.includes(`"request_id":"${id}"`) && l.includes("/w/abc/deeper")),
    ).toBe(true);
    expect(await metrics.render()).toContain(
      'weir_http_requests_total{method="PUT",route="/w/:slug/*",status="500"} 1',
    );
  });

  test("other paths still reach the app", async () => {
    const { origin } = start();
    expect(await (await fetch(`${origin}/api/x`)).text()).toBe("app");
  });
});
