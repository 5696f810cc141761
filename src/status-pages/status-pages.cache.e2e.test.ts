import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createRenderCache } from "./status-pages.cache.ts";
import { RENDER_TTL_MS } from "./status-pages.room.ts";

const clock = createFakeClock(Date.UTC(2026, 5, 1, 12));
let server: TestServer;
let owner: { headers: Record<string, string> };
const PATH = "/api/v1/status-pages";

beforeAll(async () => {
  server = await startTestServer({ clock, scheduler: createManualScheduler() });
  const account = await signUp(server, { plan: "team" });
  owner = { headers: { "x-api-key": await account.createApiKey() } };
});
afterAll(() => server.stop());

describe("the public page's cache", () => {
  test("answers carry Cache-Control and an ETag; a matching If-None-Match is a 304 without a body", async () => {
    await callAs(server, owner, "POST", PATH, {
      status_page: { name: "Acme", slug: "cache-etag" },
    });
    const first = await server.request("/status/cache-etag");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get("cache-control")).toBe("public, max-age=5");
    const again = await server.request("/status/cache-etag", {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await server.request("/status/cache-etag", {
      headers: { "if-none-match": '"x"' },
    });
    expect(other.status).toBe(200);
  });

  test("a render is reused for a few seconds; a write to the page shows at once", async () => {
    const page = (
      await callAs(server, owner, "POST", PATH, {
        status_page: { name: "Acme", slug: "cache-ttl" },
      })
    ).body.data;
    const monitor = await createMonitorAs(server, owner as never, {
      name: "API",
      type: "push",
      interval_seconds: 60,
    });
    await callAs(server, owner, "POST", `${PATH}/${page.id}/monitors/${monitor.id}`, {});
    const json = async () =>
      // biome-ignore lint/suspicious/noExplicitAny: the page JSON is read field by field.
      ((await (await server.request("/status/cache-ttl.json")).json()) as any).data;
    expect((await json()).groups[0].items[0].status).toBe("pending");
    const token = String(monitor.push_url).split("/").pop();
    await server.request(`/api/push/${token}`);
    // The monitor changed, not the page: the render stands until it expires.
    expect((await json()).groups[0].items[0].status).toBe("pending");
    clock.advance(RENDER_TTL_MS);
    expect((await json()).groups[0].items[0].status).toBe("up");
    await callAs(server, owner, "PUT", `${PATH}/${page.id}`, { status_page: { name: "Renamed" } });
    expect((await json()).name).toBe("Renamed");
  });

  test("a write to a page tells the other nodes, under its old slug and its new one", async () => {
    const heard: unknown[] = [];
    const off = server.deps.bus.on("status_page.changed", (payload) => void heard.push(payload));
    try {
      const page = (
        await callAs(server, owner, "POST", PATH, {
          status_page: { name: "Acme", slug: "cache-told" },
        })
      ).body.data;
      heard.length = 0;
      await callAs(server, owner, "PUT", `${PATH}/${page.id}`, {
        status_page: { slug: "cache-told-again" },
      });
      expect(heard).toEqual([
        { statusPageId: page.id, slug: "cache-told" },
        { statusPageId: page.id, slug: "cache-told-again" },
      ]);
    } finally {
      off();
    }
  });

  test("the cache is bounded: past its size the oldest page goes", () => {
    let now = 0;
    const cache = createRenderCache({ ttlMs: 1000, maxPages: 2, now: () => now });
    let builds = 0;
    const build = () => ++builds;
    for (const slug of ["a", "b", "c"]) cache.memo(slug, "x", build);
    expect(cache.size).toBe(2);
    expect(cache.peek("a", "x")).toBeUndefined();
    expect(cache.memo("c", "x", build)).toBe(3);
    now = 1000;
    expect(cache.memo("c", "x", build)).toBe(4);
  });
});
