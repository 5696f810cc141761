import { describe, expect, test } from "bun:test";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { rawExchange, useCaptureServers } from "../test-utils/capture-server.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { readJson } from "../test-utils/json.ts";

const startServer = useCaptureServers();
const json = { "content-type": "application/json" };

describe("capture answers", () => {
  test.each(["debug", "w"])(
    "200 {message, request_id} on /%s/{slug}, after the row is stored",
    async (family) => {
      const server = await startServer();
      const endpoint = await server.endpoint();
      const response = await server.request(`/${family}/${endpoint.slug}`, {
        method: "POST",
        headers: json,
        body: '{"event":"paid"}',
      });
      const body = await readJson(response);
      expect(response.status).toBe(200);
      expect(body).toEqual({ message: "Webhook received", request_id: expect.any(String) });
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      // The answer comes after the commit: the row is there the moment the answer is.
      const [row] = await server.stored(endpoint.id);
      expect(row?.id).toBe(body.request_id);
      expect(new TextDecoder().decode(row?.body)).toBe('{"event":"paid"}');
      expect(row?.status).toBe(200);
    },
  );

  test("an unknown slug is 404 not_found and stores nothing", async () => {
    const server = await startServer();
    const response = await server.request("/w/no-such-hook", { method: "POST", body: "x" });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ error: "not_found" });
  });

  test("a paused endpoint is 404 and keeps what it stored before", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    expect(
      (await server.request(`/w/${endpoint.slug}`, { method: "POST", body: "1" })).status,
    ).toBe(200);
    await server.run("UPDATE debug_endpoints SET status = 'paused' WHERE id = ?", [endpoint.id]);
    const response = await server.request(`/w/${endpoint.slug}`, { method: "POST", body: "2" });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ error: "not_found" });
    expect(await server.stored(endpoint.id)).toHaveLength(1);
  });

  test("an anonymous endpoint captures until it expires, then is 404", async () => {
    const clock = createFakeClock(Date.UTC(2026, 0, 1));
    const server = await startServer({ clock });
    const endpoint = await server.endpoint({
      organizationId: null,
      expiresAt: new Date(Date.UTC(2026, 0, 8)).toISOString(),
    });
    expect((await server.request(`/w/${endpoint.slug}`, { method: "POST" })).status).toBe(200);
    clock.set(Date.UTC(2026, 0, 8));
    const response = await server.request(`/w/${endpoint.slug}`, { method: "POST" });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ error: "not_found" });
  });
});

describe("413 payload_too_large", () => {
  const config = { max_body_bytes: 1000 };

  test("a body of exactly max_body_bytes is taken", async () => {
    const server = await startServer({ config });
    const endpoint = await server.endpoint();
    const response = await server.request(`/w/${endpoint.slug}`, {
      method: "POST",
      body: "x".repeat(1000),
    });
    expect(response.status).toBe(200);
    expect((await server.stored(endpoint.id))[0]?.size).toBe(1000);
  });

  test("a Content-Length over the limit is refused before any body byte is read", async () => {
    const server = await startServer({ config });
    const endpoint = await server.endpoint();
    // Announces 10 MB and sends none of it: only an answer that does not wait for the body returns.
    const answer = await rawExchange(server.port, [
      `POST /w/${endpoint.slug} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\n\r\n`,
    ]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large" });
    expect(await server.stored(endpoint.id)).toHaveLength(0);
  });

  test("a chunked body is refused as soon as it passes the limit, while still streaming", async () => {
    const server = await startServer({ config });
    const endpoint = await server.endpoint();
    const chunk = `258\r\n${"y".repeat(600)}\r\n`;
    // Two chunks (1200 bytes) and never the terminating chunk.
    const answer = await rawExchange(server.port, [
      `POST /debug/${endpoint.slug}/deep HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunk,
      chunk,
    ]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large" });
    expect(await server.stored(endpoint.id)).toHaveLength(0);
  });

  test("a chunked body within the limit is stored whole", async () => {
    const server = await startServer({ config });
    const endpoint = await server.endpoint();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("a".repeat(500)));
        controller.enqueue(new TextEncoder().encode("b".repeat(500)));
        controller.close();
      },
    });
    const response = await server.request(`/w/${endpoint.slug}`, { method: "POST", body: stream });
    expect(response.status).toBe(200);
    expect(new TextDecoder().decode((await server.stored(endpoint.id))[0]?.body)).toBe(
      `${"a".repeat(500)}${"b".repeat(500)}`,
    );
  });
});

describe("429", () => {
  const plans = (rate: number, burst: number) => ({
    capture_rate_limit: "plan" as const,
    // Only the cells under test differ from the defaults.
    plans: {
      ...DEFAULT_PLANS,
      free: { ...DEFAULT_PLANS.free, capture_rate_per_second: rate, capture_burst: burst },
      team: {
        ...DEFAULT_PLANS.team,
        capture_rate_per_second: rate * 10,
        capture_burst: burst * 10,
      },
    },
  });

  test("rate_limited with Retry-After once the endpoint's bucket is empty; it refills with time", async () => {
    const clock = createFakeClock();
    const server = await startServer({ clock, plan: "free", config: plans(1, 2) });
    const endpoint = await server.endpoint();
    const send = () => server.request(`/w/${endpoint.slug}`, { method: "POST", body: "x" });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await readJson(limited)).toEqual({ error: "rate_limited" });
    expect(await server.stored(endpoint.id)).toHaveLength(2);
    clock.advance(1000);
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(429);
  });

  test("the bucket is per endpoint and sized by the organization's plan", async () => {
    const clock = createFakeClock();
    const server = await startServer({ clock, plan: "team", config: plans(1, 2) });
    const a = await server.endpoint();
    const b = await server.endpoint();
    for (let i = 0; i < 20; i++) {
      expect((await server.request(`/w/${a.slug}`, { method: "POST" })).status).toBe(200);
    }
    expect((await server.request(`/w/${a.slug}`, { method: "POST" })).status).toBe(429);
    expect((await server.request(`/w/${b.slug}`, { method: "POST" })).status).toBe(200);
  });

  test("anonymous endpoints are held to the free plan's rate", async () => {
    const clock = createFakeClock();
    const server = await startServer({ clock, config: plans(1, 2) });
    const endpoint = await server.endpoint({
      organizationId: null,
      expiresAt: "2026-01-08T00:00:00.000Z",
    });
    const codes = [];
    for (let i = 0; i < 3; i++)
      codes.push((await server.request(`/w/${endpoint.slug}`, { method: "POST" })).status);
    expect(codes).toEqual([200, 200, 429]);
  });

  test("capture_rate_limit off lets everything through", async () => {
    const clock = createFakeClock();
    const server = await startServer({
      clock,
      plan: "free",
      config: { ...plans(1, 2), capture_rate_limit: "off" },
    });
    const endpoint = await server.endpoint();
    for (let i = 0; i < 10; i++) {
      expect((await server.request(`/w/${endpoint.slug}`, { method: "POST" })).status).toBe(200);
    }
  });

  /** A server with an anonymous endpoint holding 997 requests: three places left. */
  async function anonymousEndpointAt997() {
    const server = await startServer({ config: { capture_rate_limit: "off" } });
    const endpoint = await server.endpoint({
      organizationId: null,
      expiresAt: "2099-01-01T00:00:00.000Z",
    });
    const seeds = Array.from({ length: 997 }, (_, i) => `seed-${String(i).padStart(4, "0")}`);
    for (let start = 0; start < seeds.length; start += 100) {
      const chunk = seeds.slice(start, start + 100);
      await server.run(
        `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, raw_headers, body, size, status, created_at)
         VALUES ${chunk.map(() => "(?, ?, 'POST', '', '', '[]', ?, 0, 200, '2026-01-01T00:00:00.000Z')").join(", ")}`,
        chunk.flatMap((id) => [id, endpoint.id, new Uint8Array()]),
      );
    }
    // Rows written around capture are counted by hand, as capture counts its own.
    await server.run("UPDATE debug_endpoints SET request_count = 997 WHERE id = ?", [endpoint.id]);
    return { server, endpoint };
  }

  test("an anonymous endpoint holding 1,000 requests answers webhook_limit_reached, even to a burst", async () => {
    const { server, endpoint } = await anonymousEndpointAt997();
    // Ten at once for the last three places: the cap counts requests not yet committed too.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => server.request(`/w/${endpoint.slug}`, { method: "POST" })),
    );
    const codes = answers.map((a) => a.status).sort();
    expect(codes).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429);
    expect(await refused?.json()).toEqual({ error: "webhook_limit_reached" });
    expect(await server.stored(endpoint.id)).toHaveLength(1000);
  });

  test("requests admitted while their bodies are still on the way do not pass the cap either", async () => {
    const { server, endpoint } = await anonymousEndpointAt997();
    let sendBodies = () => {};
    const bodiesSent = new Promise<void>((resolve) => {
      sendBodies = resolve;
    });
    const slowBody = () =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          await bodiesSent;
          controller.enqueue(new TextEncoder().encode("late"));
          controller.close();
        },
      });
    // Their heads arrive (and are admitted: three places left) before any of their bodies.
    const held = Array.from({ length: 10 }, () =>
      server.request(`/w/${endpoint.slug}`, { method: "POST", body: slowBody(), duplex: "half" }),
    );
    // A whole request after them takes one of the three places.
    expect(
      (await server.request(`/w/${endpoint.slug}`, { method: "POST", body: "x" })).status,
    ).toBe(200);
    sendBodies();
    const codes = (await Promise.all(held)).map((a) => a.status).sort();
    expect(codes).toEqual([200, 200, 429, 429, 429, 429, 429, 429, 429, 429]);
    expect(await server.stored(endpoint.id)).toHaveLength(1000);
  });

  test("an organization's endpoint has no request cap", async () => {
    const server = await startServer({ config: { capture_rate_limit: "off" } });
    const endpoint = await server.endpoint();
    // Organization endpoints are bounded by retention only (decisions.md §11).
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => server.request(`/w/${endpoint.slug}`, { method: "POST" })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });
});
