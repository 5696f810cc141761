import { describe, expect, test } from "bun:test";
import { bytesOf, rawExchange, useCaptureServers } from "../test-utils/capture-server.ts";
import { readJson } from "../test-utils/json.ts";

const startServer = useCaptureServers();

describe("what is stored", () => {
  test("every byte value, in order, byte-exact", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    const body = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
    const response = await server.request(`/w/${endpoint.slug}`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body,
    });
    expect(response.status).toBe(200);
    const [row] = await server.stored(endpoint.id);
    expect(bytesOf(row?.body ?? new Uint8Array())).toEqual(bytesOf(body));
    expect(row?.size).toBe(512);
    expect(row?.content_type).toBe("application/octet-stream");
  });

  test("invalid UTF-8 and malformed JSON are stored as sent, never parsed or re-encoded", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    const invalid = Uint8Array.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x3a]); // `{"\xC3(\xFF\xFE":`
    const response = await server.request(`/w/${endpoint.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: invalid,
    });
    expect(response.status).toBe(200);
    expect(bytesOf((await server.stored(endpoint.id))[0]?.body ?? new Uint8Array())).toEqual(
      bytesOf(invalid),
    );
  });

  test("a form body stays raw text, and a 1 MiB body comes back whole", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    await server.request(`/w/${endpoint.slug}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1&a=2&b=%20x+y",
    });
    const big = Uint8Array.from({ length: 1_048_576 }, (_, i) => (i * 7) % 251);
    expect((await server.request(`/w/${endpoint.slug}`, { method: "PUT", body: big })).status).toBe(
      200,
    );
    const [form, large] = await server.stored(endpoint.id);
    expect(new TextDecoder().decode(form?.body)).toBe("a=1&a=2&b=%20x+y");
    expect(Buffer.from(large?.body ?? new Uint8Array()).equals(Buffer.from(big))).toBe(true);
  });

  test("the sub-path after the slug and the raw query string are kept", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    await server.request(`/w/${endpoint.slug}/stripe/events/v1?x=1&x=2&y=%20z&empty=`, {
      method: "POST",
    });
    await server.request(`/debug/${endpoint.slug}`, { method: "POST" });
    const [deep, bare] = await server.stored(endpoint.id);
    expect([deep?.path, deep?.query_string]).toEqual([
      "/stripe/events/v1",
      "x=1&x=2&y=%20z&empty=",
    ]);
    expect([bare?.path, bare?.query_string]).toEqual(["", ""]);
  });

  test.each(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])(
    "%s is captured, with and without a sub-path",
    async (method) => {
      const server = await startServer();
      const endpoint = await server.endpoint();
      for (const path of [`/w/${endpoint.slug}`, `/debug/${endpoint.slug}/a/b`]) {
        const response = await server.request(path, { method });
        expect(response.status).toBe(200);
        if (method !== "HEAD") expect((await readJson(response)).message).toBe("Webhook received");
      }
      expect((await server.stored(endpoint.id)).map((row) => row.method)).toEqual([method, method]);
    },
  );

  test("a method fetch cannot send (PROPFIND) is captured too", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    const answer = await rawExchange(server.port, [
      `PROPFIND /w/${endpoint.slug}/dav HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nok`,
    ]);
    expect(answer.status).toBe(200);
    expect((await server.stored(endpoint.id))[0]?.method).toBe("PROPFIND");
  });

  test("headers: lowercased names, repeats joined with ', ', ordered pairs, huge values intact", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    const huge = "h".repeat(12_000);
    const answer = await rawExchange(server.port, [
      `POST /w/${endpoint.slug} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Signature: sig=1\r\n` +
        `X-Repeat: one\r\nx-repeat: two\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Huge: ${huge}\r\n` +
        "Content-Length: 0\r\n\r\n",
    ]);
    expect(answer.status).toBe(200);
    const [row] = await server.stored(endpoint.id);
    // Only the pairs are stored; the object is what every read derives from them.
    const read = await server.captureStore().find(endpoint.id, row?.id ?? "");
    const headers = read?.headers ?? {};
    expect(headers["x-signature"]).toBe("sig=1");
    expect(headers["x-repeat"]).toBe("one, two");
    expect(headers["set-cookie"]).toBe("a=1, b=2");
    expect(headers["x-huge"]).toBe(huge);
    const pairs: [string, string][] = JSON.parse(row?.raw_headers ?? "[]");
    // Bun lowercases names and joins repeats before the app sees them (set-cookie aside).
    expect(pairs).toContainEqual(["x-repeat", "one, two"]);
    expect(pairs.filter(([name]) => name === "set-cookie")).toEqual([
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
    ]);
    expect(pairs.map(([name]) => name).indexOf("x-signature")).toBeLessThan(
      pairs.map(([name]) => name).indexOf("x-huge"),
    );
  });

  test("a hundred distinct headers are all kept", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    const sent = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h-${i}`, `v${i}`]));
    expect(
      (await server.request(`/w/${endpoint.slug}`, { method: "POST", headers: sent })).status,
    ).toBe(200);
    const pairs = new Map<string, string>(
      JSON.parse((await server.stored(endpoint.id))[0]?.raw_headers ?? "[]"),
    );
    for (const [name, value] of Object.entries(sent)) expect(pairs.get(name)).toBe(value);
  });
});

describe("client IP", () => {
  const forwarded = (server: { port: number }, slug: string, xff: string) =>
    rawExchange(server.port, [
      `POST /w/${slug} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: ${xff}\r\nContent-Length: 0\r\n\r\n`,
    ]);

  test("is the socket peer, X-Forwarded-For ignored, without trusted proxies", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    await forwarded(server, endpoint.slug, "203.0.113.9");
    expect((await server.stored(endpoint.id))[0]?.remote_ip).toBe("127.0.0.1");
  });

  test("is the right-most untrusted X-Forwarded-For hop when the peer is a trusted proxy", async () => {
    const server = await startServer({
      config: { trusted_proxies: ["127.0.0.0/8", "10.0.0.0/8"] },
    });
    const endpoint = await server.endpoint();
    await forwarded(server, endpoint.slug, "198.51.100.1, 203.0.113.9, 10.1.2.3");
    expect((await server.stored(endpoint.id))[0]?.remote_ip).toBe("203.0.113.9");
  });

  test("ignores X-Forwarded-For from a peer outside the trusted CIDRs", async () => {
    const server = await startServer({ config: { trusted_proxies: ["10.0.0.0/8"] } });
    const endpoint = await server.endpoint();
    await forwarded(server, endpoint.slug, "203.0.113.9");
    expect((await server.stored(endpoint.id))[0]?.remote_ip).toBe("127.0.0.1");
  });
});

describe("CORS", () => {
  test("a preflight is answered with permissive CORS and recorded", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint({
      response: { status: 201, headers: {}, body: "custom", delayMs: 2000 },
    });
    const started = performance.now();
    const response = await server.request(`/w/${endpoint.slug}/x`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "PUT",
        "access-control-request-headers": "x-signature, content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("PUT");
    expect(response.headers.get("access-control-allow-headers")).toBe("x-signature, content-type");
    // The endpoint's custom answer and its delay are for the real request, not the preflight.
    expect(performance.now() - started).toBeLessThan(1500);
    const [row] = await server.stored(endpoint.id);
    expect([row?.method, row?.status, row?.path]).toEqual(["OPTIONS", 204, "/x"]);
  });
});
