import { afterEach, describe, expect, test } from "bun:test";
import { apiCall } from "../test-utils/api-call.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import {
  connectSocket,
  subscribe,
  type TestSocket,
  waitForEvents,
} from "../test-utils/realtime-client.ts";
import { apiKeyId, capture, type RealtimeWorld, startWorld } from "../test-utils/realtime-world.ts";
import { IDLE_SOCKETS_JOB } from "./realtime.room.ts";

let world: RealtimeWorld | undefined;
const sockets: TestSocket[] = [];
const open = (...args: Parameters<typeof connectSocket>) => {
  const socket = connectSocket(...args);
  sockets.push(socket);
  return socket;
};

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.disconnect();
  await world?.server.stop();
  world = undefined;
});

describe("heartbeats", () => {
  test("a socket silent past the window is closed (4408); one that sent a heartbeat is kept", async () => {
    const clock = createFakeClock();
    const scheduler = createManualScheduler();
    world = await startWorld({ clock, scheduler });
    const token = world.owner.token;
    const silent = open(world.server.url, { token });
    const chatty = open(world.server.url, { token });
    await pollUntil(() => silent.opened() && chatty.opened(), { what: "both sockets" });
    clock.advance(40_000);
    await new Promise((resolve) => chatty.socket.ping(resolve));
    clock.advance(21_000);
    await scheduler.run(IDLE_SOCKETS_JOB);
    await pollUntil(() => silent.closes.length > 0, { what: "the silent socket to close" });
    expect(silent.closes[0]).toEqual({ code: 4408, reason: "heartbeat_timeout" });
    expect(chatty.opened()).toBe(true);
  });

  test("the window is the realtime_heartbeat_timeout setting", async () => {
    const clock = createFakeClock();
    const scheduler = createManualScheduler();
    world = await startWorld({ clock, scheduler, config: { realtime_heartbeat_timeout: 5000 } });
    const socket = open(world.server.url, { token: world.owner.token });
    await pollUntil(() => socket.opened(), { what: "the socket" });
    // With the default window (60 s) this socket would stay open.
    clock.advance(5001);
    await scheduler.run(IDLE_SOCKETS_JOB);
    await pollUntil(() => socket.closes.length > 0, { what: "the socket to close" });
    expect(socket.closes[0]?.code).toBe(4408);
  });
});

describe("catch-up", () => {
  test("a client back after a disconnect gets what it missed, then live, each once", async () => {
    world = await startWorld();
    const { server, endpoint, owner } = world;
    const first = open(server.url, { token: owner.token });
    const before = await subscribe(first, endpoint.id);
    const seen = [await capture(server, endpoint.slug), await capture(server, endpoint.slug)];
    await waitForEvents(before.events, 2);
    first.disconnect();
    const missed = [await capture(server, endpoint.slug), await capture(server, endpoint.slug)];

    const back = await subscribe(open(server.url, { token: owner.token }), endpoint.id, {
      since_request_id: seen[1],
    });
    expect(back.reply.status).toBe("ok");
    await waitForEvents(back.events, 2);
    const live = await capture(server, endpoint.slug);
    await waitForEvents(back.events, 3);
    expect(back.events.map((e) => e.request_id)).toEqual([...missed, live]);
  });

  test("the phoenix client's own reconnect rejoins with since_request_id and loses nothing", async () => {
    const clock = createFakeClock();
    const scheduler = createManualScheduler();
    world = await startWorld({ clock, scheduler });
    const { server, endpoint, owner } = world;
    const socket = open(server.url, { token: owner.token }, "2.0.0", {
      reconnectAfterMs: () => 50,
    });
    let last: string | null = null;
    const watcher = await subscribe(socket, endpoint.id, () =>
      last ? { since_request_id: last } : {},
    );
    watcher.channel.on("webhook_received", (payload) => {
      last = payload.request_id;
    });
    const sent = [await capture(server, endpoint.slug)];
    await waitForEvents(watcher.events, 1);
    // The server drops the socket (heartbeat window passed); captures go on meanwhile.
    clock.advance(120_000);
    await scheduler.run(IDLE_SOCKETS_JOB);
    await pollUntil(() => socket.closes.length > 0, { what: "the server to drop the socket" });
    for (let i = 0; i < 5; i++) sent.push(await capture(server, endpoint.slug));
    await waitForEvents(watcher.events, 6);
    sent.push(await capture(server, endpoint.slug));
    await waitForEvents(watcher.events, 7);
    expect(watcher.events.map((e) => e.request_id)).toEqual(sent);
  });
});

describe("ending sockets and channels", () => {
  test("revoking an API key closes the sockets opened with it (4401)", async () => {
    world = await startWorld();
    const { server, endpoint, owner } = world;
    const key = await owner.createApiKey("live view");
    const withKey = open(server.url, { token: key });
    const withJwt = open(server.url, { token: owner.token });
    await subscribe(withKey, endpoint.id);
    await subscribe(withJwt, endpoint.id);
    const id = await apiKeyId(server, owner, "live view");
    const revoked = await apiCall(
      server,
      "DELETE",
      `/api/v1/organizations/${owner.organizationId}/api-keys/${id}`,
      {
        headers: owner.headers,
      },
    );
    expect(revoked.status).toBe(200);
    await pollUntil(() => withKey.closes.length > 0, { what: "the key's socket to close" });
    expect(withKey.closes[0]).toEqual({ code: 4401, reason: "api_key_revoked" });
    expect(withJwt.opened()).toBe(true);
  });

  test("deleting the endpoint ends its channels with phx_close", async () => {
    world = await startWorld();
    const { server, endpoint, owner } = world;
    const watcher = await subscribe(open(server.url, { token: owner.token }), endpoint.id);
    const deleted = await apiCall(server, "DELETE", `/api/v1/endpoints/${endpoint.id}`, {
      headers: owner.headers,
    });
    expect(deleted.status).toBe(204);
    await pollUntil(() => watcher.closes.length > 0, { what: "phx_close" });
    expect(watcher.closes[0]).toEqual({ reason: "endpoint_deleted" });
    expect(watcher.channel.state).toBe("closed");
  });
});
