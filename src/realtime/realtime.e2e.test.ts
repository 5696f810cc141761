import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { pollUntil } from "../test-utils/poll.ts";
import {
  connectSocket,
  handshakeStatus,
  join,
  subscribe,
  type TestSocket,
  waitForEvents,
} from "../test-utils/realtime-client.ts";
import {
  capture,
  createEndpoint,
  type RealtimeWorld,
  startWorld,
} from "../test-utils/realtime-world.ts";
import { PUSHED_BODY_LIMIT } from "./realtime.payload.model.ts";
import type { Serializer } from "./realtime.protocol.model.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let world: RealtimeWorld;
let apiKey: string;
const sockets: TestSocket[] = [];
const open = (...args: Parameters<typeof connectSocket>) => {
  const socket = connectSocket(...args);
  sockets.push(socket);
  return socket;
};

beforeAll(async () => {
  world = await startWorld();
  apiKey = await world.owner.createApiKey();
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await world.server.stop();
});

describe.each(["2.0.0", "1.0.0"] as const)("serializer %s", (vsn: Serializer) => {
  test("join, every field of webhook_received, then leave", async () => {
    const { server, endpoint } = world;
    const socket = open(server.url, { token: apiKey }, vsn);
    const watcher = await subscribe(socket, endpoint.id);
    expect(watcher.reply).toEqual({ status: "ok", response: {} });
    // A second socket stays joined: once it has the next event, the left channel would have it too.
    const sentinel = await subscribe(open(server.url, { token: apiKey }, vsn), endpoint.id);

    const requestId = await capture(server, endpoint.slug, {
      subPath: "/github?delivery=1",
      headers: { "content-type": "application/json", "x-hook-id": "abc" },
      body: '{"action":"opened"}',
    });
    await waitForEvents(watcher.events, 1);
    const event = watcher.events[0];
    expect(Object.keys(event).sort()).toEqual(
      ["body", "endpoint_id", "headers", "method", "request_id", "status", "timestamp"].sort(),
    );
    expect(event).toMatchObject({
      request_id: requestId,
      endpoint_id: endpoint.id,
      method: "POST",
      body: '{"action":"opened"}',
      status: "200",
    });
    expect(event.headers).toMatchObject({ "content-type": "application/json", "x-hook-id": "abc" });
    expect(event.timestamp).toMatch(ISO);

    const left = await new Promise((resolve) => watcher.channel.leave().receive("ok", resolve));
    expect(left).toEqual({});
    await capture(server, endpoint.slug);
    await waitForEvents(sentinel.events, 2);
    expect(watcher.events).toHaveLength(1);
  });

  test("heartbeats on topic phoenix are answered", async () => {
    const socket = open(world.server.url, { token: apiKey }, vsn);
    await pollUntil(() => socket.opened(), { what: "the socket to open" });
    const replies: unknown[] = [];
    socket.socket.onMessage((message) => {
      if ((message as { topic?: string }).topic === "phoenix") replies.push(message);
    });
    // Two heartbeats with refs of our own: each reply must carry its request's ref.
    for (const ref of ["hb-1", "hb-2"]) {
      socket.socket.push({ topic: "phoenix", event: "heartbeat", payload: {}, ref });
    }
    await pollUntil(() => replies.length >= 2, { what: "two heartbeat replies" });
    const ok = { status: "ok", response: {} };
    expect(replies).toEqual([
      {
        join_ref: null,
        ref: "hb-1",
        topic: "phoenix",
        event: "phx_reply",
        payload: ok,
      },
      {
        join_ref: null,
        ref: "hb-2",
        topic: "phoenix",
        event: "phx_reply",
        payload: ok,
      },
    ]);
  });
});

test("200 rapid captures reach two clients (one per serializer) complete and in capture order", async () => {
  const { server, endpoint } = world;
  const v2 = await subscribe(open(server.url, { token: apiKey }, "2.0.0"), endpoint.id);
  const v1 = await subscribe(open(server.url, { token: world.owner.token }, "1.0.0"), endpoint.id);
  const sent: string[] = [];
  // Pipelined: each capture is sent as soon as the previous one is acknowledged.
  for (let i = 0; i < 200; i++)
    sent.push(await capture(server, endpoint.slug, { body: `{"n":${i}}` }));
  await waitForEvents(v2.events, 200);
  await waitForEvents(v1.events, 200);
  expect(v2.events.map((e) => e.request_id)).toEqual(sent);
  expect(v1.events.map((e) => e.request_id)).toEqual(sent);
  expect(v1.events.map((e) => e.body)).toEqual(sent.map((_, i) => `{"n":${i}}`));
});

test("a body over 64 KiB is cut and flagged; the REST API has all of it", async () => {
  const { server, endpoint, owner } = world;
  const watcher = await subscribe(open(server.url, { token: apiKey }), endpoint.id);
  const body = "x".repeat(PUSHED_BODY_LIMIT + 100);
  const requestId = await capture(server, endpoint.slug, { body, headers: {} });
  await waitForEvents(watcher.events, 1);
  expect(watcher.events[0]).toMatchObject({
    request_id: requestId,
    body_truncated: true,
    body_size: PUSHED_BODY_LIMIT + 100,
  });
  expect(watcher.events[0].body).toHaveLength(PUSHED_BODY_LIMIT);
  const stored = await apiCall(
    server,
    "GET",
    `/api/v1/debug-endpoints/${endpoint.id}/requests/${requestId}`,
    { headers: owner.headers },
  );
  expect(stored.body.body).toBe(body);
});

test("a non-UTF-8 body is pushed as base64", async () => {
  const { server, endpoint } = world;
  const watcher = await subscribe(open(server.url, { token: apiKey }), endpoint.id);
  await capture(server, endpoint.slug, {
    body: new Uint8Array([0xff, 0xfe, 0x00, 0x01]),
    headers: {},
  });
  await waitForEvents(watcher.events, 1);
  expect(watcher.events[0]).toMatchObject({ body: "//4AAQ==", body_encoding: "base64" });
});

describe("authentication and access", () => {
  test.each([
    ["a bad token", "token=svc_notakey&vsn=2.0.0", 403],
    ["no token", "vsn=2.0.0", 403],
    ["a forged JWT", "token=eyJhbGciOiJIUzI1NiJ9.e30.sig&vsn=2.0.0", 403],
    ["an unknown serializer", "token=x&vsn=9.0.0", 400],
  ])("%s: the upgrade is refused", async (_, query, status) => {
    expect(await handshakeStatus(world.server.url, query)).toBe(status);
  });

  test("a good token upgrades (API key and JWT alike)", async () => {
    expect(await handshakeStatus(world.server.url, `token=${apiKey}&vsn=2.0.0`)).toBe(101);
    expect(await handshakeStatus(world.server.url, `token=${world.owner.token}`)).toBe(101);
  });

  test("the phoenix client sees a refused connection as an error, never as open", async () => {
    const socket = open(world.server.url, { token: "svc_revokedOrWrong" });
    await pollUntil(() => socket.errors > 0, { what: "a connection error" });
    expect(socket.opened()).toBe(false);
  });

  test("the token may travel in the phoenix client's authToken subprotocol instead of the URL", async () => {
    const socket = open(world.server.url, {}, "2.0.0", { authToken: apiKey });
    const joined = await subscribe(socket, world.endpoint.id);
    expect(joined.reply.status).toBe("ok");
  });

  test("another organization's endpoint and an unknown one are unauthorized", async () => {
    const { server } = world;
    const stranger = await signUp(server);
    const theirs = await createEndpoint(server, stranger);
    const socket = open(server.url, { token: apiKey });
    for (const topic of [`debug:${theirs.id}`, "debug:00000000-0000-7000-8000-000000000000"]) {
      expect(await join(socket.socket.channel(topic))).toEqual({
        status: "error",
        response: { reason: "unauthorized" },
      });
    }
  });

  test("a plan without realtime gets feature_not_available", async () => {
    const { server } = world;
    const free = await signUp(server, { plan: "free" });
    const endpoint = await createEndpoint(server, free);
    const socket = open(server.url, { token: free.token });
    expect(await join(socket.socket.channel(`debug:${endpoint.id}`))).toEqual({
      status: "error",
      response: { reason: "feature_not_available" },
    });
  });
});
