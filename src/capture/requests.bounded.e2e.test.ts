/**
 * Bounded answers (decisions.md §14): lists cut bodies over 64 KiB and say so; get-one and the
 * raw download give the whole body; the download is an unsniffed, sandboxed attachment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const LIMIT = 64 * 1024;
const BIG = 200 * 1024;
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;
let endpointId: string;
const ids: Record<"big" | "small" | "binary", string> = { big: "", small: "", binary: "" };
const bigBody = "é".repeat(BIG / 2); // two bytes a character: a cut may fall inside one
const binaryBody = new Uint8Array(100 * 1024).map((_, i) => (i * 7 + 255) % 256);

async function capture(slug: string, body: string | Uint8Array, contentType: string) {
  const response = await fetch(`${server.url}/w/${slug}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { request_id: string }).request_id;
}

beforeAll(async () => {
  server = await startTestServer({ config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "enterprise" });
  stranger = await signUp(server, { plan: "enterprise" });
  const endpoint = await createDebugEndpoint(server, owner, { name: "Large" });
  endpointId = endpoint.id;
  ids.big = await capture(endpoint.slug, bigBody, "text/plain; charset=utf-8");
  ids.small = await capture(endpoint.slug, '{"ok":true}', "application/json");
  ids.binary = await capture(endpoint.slug, binaryBody, "application/octet-stream");
});
afterAll(() => server.stop());

// biome-ignore lint/suspicious/noExplicitAny: listed items are checked field by field.
const byId = (items: any[], id: string) => items.find((item) => item.id === id);

// biome-ignore lint/suspicious/noExplicitAny: listed items are checked field by field.
function expectCut(items: any[]) {
  const big = byId(items, ids.big);
  expect(big.body_truncated).toBe(true);
  expect(big.body_size).toBe(BIG);
  expect(big.size).toBe(BIG);
  expect(big.body_encoding).toBe("utf8");
  expect(Buffer.byteLength(big.body)).toBeLessThanOrEqual(LIMIT);
  expect(Buffer.byteLength(big.body)).toBeGreaterThan(LIMIT - 4);
  expect(bigBody.startsWith(big.body)).toBe(true);
  const binary = byId(items, ids.binary);
  expect([binary.body_encoding, binary.body_truncated, binary.body_size]).toEqual([
    "base64",
    true,
    binaryBody.byteLength,
  ]);
  expect(Buffer.from(binary.body, "base64")).toEqual(Buffer.from(binaryBody.subarray(0, LIMIT)));
  const small = byId(items, ids.small);
  expect(small.body).toBe('{"ok":true}');
  expect("body_truncated" in small || "body_size" in small).toBe(false);
}

describe("lists cut bodies over 64 KiB", () => {
  test("debug-endpoints family", async () => {
    const answer = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/debug-endpoints/${endpointId}/requests`,
    );
    expect(answer.status).toBe(200);
    expectCut(answer.body.debug_requests);
  });

  test("endpoints family", async () => {
    const answer = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpointId}/requests`);
    expect(answer.status).toBe(200);
    expectCut(answer.body.data);
  });

  test("anonymous endpoints", async () => {
    const created = (await apiCall(server, "POST", "/api/v1/anonymous-endpoints")).body.data;
    const anonymousBig = await capture(created.slug, bigBody, "text/plain");
    const headers = { "x-anonymous-token": created.token };
    const list = await apiCall(
      server,
      "GET",
      `/api/v1/anonymous-endpoints/${created.id}/requests`,
      {
        headers,
      },
    );
    const listed = byId(list.body.data, anonymousBig);
    expect([listed.body_truncated, listed.body_size]).toEqual([true, BIG]);

    const raw = await fetch(
      `${server.url}/api/v1/anonymous-endpoints/${created.id}/requests/${anonymousBig}/body`,
      { headers },
    );
    expect(raw.status).toBe(200);
    expect(await raw.text()).toBe(bigBody);
    const noToken = await fetch(
      `${server.url}/api/v1/anonymous-endpoints/${created.id}/requests/${anonymousBig}/body`,
    );
    expect(noToken.status).toBe(404);
  });
});

describe("get-one and the raw download give the whole body", () => {
  test.each(["debug-endpoints", "endpoints"])(
    "%s: get-one is whole and unflagged",
    async (family) => {
      const answer = await callAs(
        server,
        owner,
        "GET",
        `/api/v1/${family}/${endpointId}/requests/${ids.big}`,
      );
      const request = family === "endpoints" ? answer.body.data : answer.body;
      expect(request.body).toBe(bigBody);
      expect("body_truncated" in request).toBe(false);
    },
  );

  test.each(["debug-endpoints", "endpoints"])(
    "%s: …/body is the stored bytes with their content type, as a sandboxed attachment",
    async (family) => {
      const path = `/api/v1/${family}/${endpointId}/requests/${ids.binary}/body`;
      const raw = await server.request(path, { headers: owner.headers });
      expect(raw.status).toBe(200);
      expect(raw.headers.get("content-type")).toBe("application/octet-stream");
      expect(raw.headers.get("content-disposition")).toStartWith("attachment");
      expect(raw.headers.get("x-content-type-options")).toBe("nosniff");
      expect(raw.headers.get("content-security-policy")).toBe("sandbox");
      expect(new Uint8Array(await raw.arrayBuffer())).toEqual(binaryBody);

      const text = await server.request(
        `/api/v1/${family}/${endpointId}/requests/${ids.big}/body`,
        { headers: owner.headers },
      );
      expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(await text.text()).toBe(bigBody);

      expect((await server.request(path, { headers: stranger.headers })).status).toBe(404);
      expect((await server.request(path)).status).toBe(401);
    },
  );
});
