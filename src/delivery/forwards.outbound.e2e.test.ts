import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { forwardsOf, triesOf } from "../test-utils/forwards.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { type RawSink, startRawSink } from "../test-utils/raw-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Names a test resolver answers: one that points at cloud metadata, as a rebinding attacker's would.
const RESOLVES: Record<string, string> = {
  "metadata.example": "169.254.169.254",
  // What DNS64 answers for the metadata address on an IPv6-only host: NAT64 reaches it.
  "nat64-metadata.example": "64:ff9b::a9fe:a9fe",
  "sink.example": "127.0.0.1",
};

let server: TestServer;
let owner: TestAccount;
let sink: RawSink;

beforeAll(async () => {
  sink = await startRawSink();
  const outbound = createOutboundSender({
    policy: createOutboundPolicy({ deny: [], allow: [] }),
    timeoutMs: 2000,
    resolve: async (name) => {
      const address = RESOLVES[name] ?? "192.0.2.1";
      return [{ address, family: address.includes(":") ? 6 : 4 }];
    },
  });
  server = await startTestServer({ outbound });
  owner = await signUp(server, { plan: "enterprise" });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

/** Sends raw HTTP/1.1 bytes, so the capture sees exactly these headers and no client's defaults. */
function rawCapture(lines: string[], body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(
      `${lines.join("\r\n")}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

describe("what a forward puts on the wire (decisions.md §6)", () => {
  test("the received headers minus hop-by-hop and Host; nothing added but x-weir-forwarded", async () => {
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/in` });
    const answer = await rawCapture(
      [
        `POST /w/${endpoint.slug}/x?y=1 HTTP/1.1`,
        "Host: weir.example",
        "Connection: close, X-Hop",
        "X-Hop: per-connection",
        "Proxy-Authorization: Basic cHJveHk6c2VjcmV0",
        "TE: trailers",
        "X-Signature: sig-1",
        "Content-Type: application/json",
      ],
      '{"a":1}',
    );
    expect(answer).toStartWith("HTTP/1.1 200");
    const got = await pollUntil(() => sink.requests.find((r) => r.requestLine.includes("/in/x")), {
      what: "the forward",
    });
    expect(got.requestLine).toBe("POST /in/x?y=1 HTTP/1.1");
    expect(got.headers).toEqual([
      ["Host", `127.0.0.1:${sink.port}`],
      // In the order capture stored them (Bun's request headers list well-known names first).
      ["content-type", "application/json"],
      ["x-signature", "sig-1"],
      ["x-weir-forwarded", "1"],
      ["Content-Length", "7"],
      // The sender's own connection management: the one header not from the request.
      ["Connection", "keep-alive"],
    ]);
    expect(new TextDecoder().decode(got.body)).toBe('{"a":1}');
  });

  test("credentials in forward_url become Basic auth; the record shows the URL without them", async () => {
    const target = `http://hook:s3cret@127.0.0.1:${sink.port}/cred`;
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: target });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const [tried] = await triesOf(server, owner, endpoint, requestId, 1);
    expect(tried.url).toBe(`http://127.0.0.1:${sink.port}/cred`);
    const got = sink.requests.find((r) => r.requestLine.startsWith("POST /cred "));
    expect(got?.headers).toContainEqual(["Authorization", `Basic ${btoa("hook:s3cret")}`]);
  });
});

describe("the outbound address policy (decisions.md §14)", () => {
  test.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://2852039166/",
    "http://0.0.0.0:8080/",
    "http://[fe80::1]/",
    "http://[64:ff9b::169.254.169.254]/",
    "http://[2002:a9fe:a9fe::]/",
  ])("forward_url %s → 422 on create and update, naming the field", async (url) => {
    const created = await callAs(server, owner, "POST", "/api/v1/debug-endpoints", {
      debug_endpoint: { name: "Meta", forward_url: url },
    });
    expect([created.status, Object.keys(created.body.errors)]).toEqual([422, ["forward_url"]]);
    expect(created.body.errors.forward_url[0]).toContain("denied by the outbound address policy");
    const endpoint = await createDebugEndpoint(server, owner, {});
    const updated = await callAs(server, owner, "PATCH", `/api/v1/debug-endpoints/${endpoint.id}`, {
      debug_endpoint: { forward_url: url },
    });
    expect([updated.status, Object.keys(updated.body.errors)]).toEqual([422, ["forward_url"]]);
  });

  test.each([
    ["metadata.example", "169.254.169.254 is denied"],
    ["nat64-metadata.example", "64:ff9b::a9fe:a9fe (NAT64 form of 169.254.169.254) is denied"],
  ])("a name that resolves to a denied address is refused at send time: %s", async (name, why) => {
    const before = sink.requests.length;
    const endpoint = await createDebugEndpoint(server, owner, {
      forward_url: `http://${name}:${sink.port}/steal`,
    });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const [tried] = await triesOf(server, owner, endpoint, requestId, 1);
    expect(tried.status_code).toBeNull();
    expect(tried.error).toStartWith(`blocked_address: ${name} resolves to ${why}`);
    expect(sink.requests.length).toBe(before);
  });

  test("replay to a denied URL, literal or resolved → 422 on url, no record, nothing sent", async () => {
    const endpoint = await createDebugEndpoint(server, owner, {});
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const replay = `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/replay`;
    const before = sink.requests.length;
    for (const url of [
      "http://169.254.169.254/",
      `http://metadata.example:${sink.port}/`,
      `http://nat64-metadata.example:${sink.port}/`,
    ]) {
      const answer = await callAs(server, owner, "POST", replay, { url });
      expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, ["url"]]);
      expect(answer.body.errors.url[0]).toContain("169.254.169.254");
    }
    expect(await forwardsOf(server, owner, endpoint, requestId)).toEqual([]);
    expect(sink.requests.length).toBe(before);
    const allowed = await callAs(server, owner, "POST", replay, {
      url: `http://sink.example:${sink.port}/named`,
    });
    expect([allowed.status, allowed.body.data.status_code]).toEqual([201, 200]);
  });

  test("replay answers only the forward record: status, headers and the first 64 KiB", async () => {
    sink.behave(() => ({
      answer: `HTTP/1.1 200 OK\r\nX-Down: 1\r\nContent-Length: 70000\r\nConnection: close\r\n\r\n${"z".repeat(70_000)}`,
    }));
    const endpoint = await createDebugEndpoint(server, owner, {});
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const answer = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/replay`,
      { url: sink.url },
    );
    sink.behave(() => ({
      answer: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    }));
    expect(Object.keys(answer.body.data).sort()).toEqual(
      [
        "attempt",
        "created_at",
        "error",
        "id",
        "latency_ms",
        "method",
        "request_id",
        "response_body",
        "response_headers",
        "status_code",
        "url",
      ].sort(),
    );
    expect(answer.body.data.response_body).toHaveLength(65_536);
    expect(answer.body.data.response_headers["x-down"]).toBe("1");
  });
});

describe("configured rules", () => {
  test("WEIR_OUTBOUND_DENY of loopback refuses the LAN sink; WEIR_OUTBOUND_ALLOW re-opens one host", async () => {
    const strict = await startTestServer({
      config: { outbound_deny: ["127.0.0.0/8", "::1/128"], outbound_allow: [] },
    });
    const opened = await startTestServer({
      config: { outbound_deny: ["127.0.0.0/8"], outbound_allow: ["127.0.0.1/32"] },
    });
    try {
      const strictOwner = await signUp(strict, { plan: "enterprise" });
      const nat64 = `http://[64:ff9b::7f00:1]:${sink.port}/`;
      for (const url of [sink.url, `http://localhost:${sink.port}/`, nat64]) {
        const refused = await callAs(strict, strictOwner, "POST", "/api/v1/debug-endpoints", {
          debug_endpoint: { name: "Lan", forward_url: url },
        });
        expect([refused.status, Object.keys(refused.body.errors)]).toEqual([422, ["forward_url"]]);
      }
      const openedOwner = await signUp(opened, { plan: "enterprise" });
      await createDebugEndpoint(opened, openedOwner, { forward_url: sink.url });
      // Allowing 127.0.0.1 allows that host whatever the path, its NAT64 form included.
      await createDebugEndpoint(opened, openedOwner, { forward_url: nat64 });
    } finally {
      await strict.stop();
      await opened.stop();
    }
  });
});
