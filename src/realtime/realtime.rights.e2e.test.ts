import { afterEach, describe, expect, test } from "bun:test";
import { apiCall } from "../test-utils/api-call.ts";
import { runCli } from "../test-utils/cli.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import {
  connectSocket,
  handshakeStatus,
  join,
  subscribe,
  type TestSocket,
  waitForEvents,
} from "../test-utils/realtime-client.ts";
import { capture, type RealtimeWorld, startWorld } from "../test-utils/realtime-world.ts";
import { onPostgres } from "../test-utils/test-store.ts";
import { RIGHTS_RECHECK_JOB } from "./realtime.room.ts";

let world: RealtimeWorld | undefined;
const sockets: TestSocket[] = [];
const open = (params: Record<string, string>) => {
  const socket = connectSocket((world as RealtimeWorld).server.url, params);
  sockets.push(socket);
  return socket;
};

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.disconnect();
  await world?.server.stop();
  world = undefined;
});

/** `weir admin …` in another process on the server's data dir, as an operator would run it. */
function admin(...args: string[]): void {
  const result = runCli(["admin", ...args, "--data-dir", (world as RealtimeWorld).server.dataDir]);
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
}

/** A heartbeat answered: every frame the server sent before it has been read. */
const roundTrip = (socket: TestSocket) =>
  new Promise<number>((resolve) => socket.socket.ping(resolve));

const closedWith = async (socket: TestSocket) => {
  await pollUntil(() => socket.closes.length > 0, { what: "the socket to close" });
  return socket.closes[0];
};

describe("a JWT socket follows its user's rights", () => {
  test("the token expires: the scheduled re-check closes it (4401) after phx_close (fake clock)", async () => {
    const clock = createFakeClock();
    const scheduler = createManualScheduler();
    world = await startWorld({ clock, scheduler, config: { jwt_ttl: 3_600_000 } });
    const { server, owner, endpoint } = world;
    const socket = open({ token: owner.token });
    const watcher = await subscribe(socket, endpoint.id);
    expect(watcher.reply.status).toBe("ok");

    clock.advance(3_599_000);
    await scheduler.run(RIGHTS_RECHECK_JOB);
    await capture(server, endpoint.slug);
    await waitForEvents(watcher.events, 1);
    expect(socket.closes).toEqual([]);

    clock.advance(1_000);
    await scheduler.run(RIGHTS_RECHECK_JOB);
    expect(await closedWith(socket)).toEqual({ code: 4401, reason: "token_expired" });
    expect(watcher.closes).toEqual([{ reason: "unauthorized" }]);
  });

  // `weir admin` works on the SQLite data dir only for now.
  test.skipIf(onPostgres)(
    "`weir admin reset-password` in another process: a join is refused at once, the re-check closes the rest",
    async () => {
      const scheduler = createManualScheduler();
      world = await startWorld({ scheduler });
      const { owner, endpoint } = world;
      const live = open({ token: owner.token });
      const watcher = await subscribe(live, endpoint.id);
      const joining = open({ token: owner.token });
      await pollUntil(() => joining.opened(), { what: "the second socket" });

      admin("reset-password", "--email", owner.email, "--password", "a-brand-new-one");

      // Every join re-checks: the second socket is closed instead of joined (the phoenix client
      // then drops the pending join, so there is no reply to wait for).
      const refused = joining.socket.channel(`debug:${endpoint.id}`);
      let joined = false;
      refused.join().receive("ok", () => {
        joined = true;
      });
      expect(await closedWith(joining)).toEqual({ code: 4401, reason: "password_changed" });
      expect(joined).toBe(false);
      // The socket that had joined before ends with the next re-check.
      expect(live.closes).toEqual([]);
      await scheduler.run(RIGHTS_RECHECK_JOB);
      expect(await closedWith(live)).toEqual({ code: 4401, reason: "password_changed" });
      expect(watcher.closes).toEqual([{ reason: "unauthorized" }]);
    },
  );

  test("removed from the organization: its channels are left and the socket closed (4401) at once", async () => {
    world = await startWorld();
    const { server, owner, endpoint } = world;
    const member = await owner.addMember("member");
    const memberSocket = open({ token: member.token });
    const memberWatch = await subscribe(memberSocket, endpoint.id);
    const ownerSocket = open({ token: owner.token });
    const ownerWatch = await subscribe(ownerSocket, endpoint.id);
    expect(memberWatch.reply.status).toBe("ok");

    const removed = await apiCall(
      server,
      "DELETE",
      `/api/v1/organizations/${owner.organizationId}/members/${member.userId}`,
      { headers: owner.headers },
    );
    expect(removed.status).toBeLessThan(300);
    expect(await closedWith(memberSocket)).toEqual({ code: 4401, reason: "not_member" });
    expect(memberWatch.closes).toEqual([{ reason: "unauthorized" }]);

    await capture(server, endpoint.slug);
    await waitForEvents(ownerWatch.events, 1);
    expect(memberWatch.events).toEqual([]);
    expect(ownerSocket.closes).toEqual([]);
  });

  // `weir admin` works on the SQLite data dir only for now.
  test.skipIf(onPostgres)(
    "`weir admin set-plan free` in another process: channels are left, the socket stays, joins get feature_not_available",
    async () => {
      const scheduler = createManualScheduler();
      world = await startWorld({ scheduler });
      const { owner, endpoint } = world;
      const socket = open({ token: owner.token });
      const watcher = await subscribe(socket, endpoint.id);
      const idle = open({ token: owner.token });
      await pollUntil(() => idle.opened(), { what: "the idle socket" });

      admin("set-plan", "--org", owner.organizationId, "free");

      // A join re-checks the plan before the scheduled re-check has run.
      const early = await join(idle.socket.channel(`debug:${endpoint.id}`));
      expect(early).toEqual({ status: "error", response: { reason: "feature_not_available" } });

      await scheduler.run(RIGHTS_RECHECK_JOB);
      await pollUntil(() => watcher.closes.length > 0, { what: "phx_close" });
      expect(watcher.closes).toEqual([{ reason: "unauthorized" }]);
      await roundTrip(socket);
      expect(socket.closes).toEqual([]);
      const again = await join(socket.socket.channel(`debug:${endpoint.id}`));
      expect(again).toEqual({ status: "error", response: { reason: "feature_not_available" } });
    },
  );
});

describe("an API-key socket follows its key", () => {
  // `weir admin` works on the SQLite data dir only for now.
  test.skipIf(onPostgres)(
    "the plan loses API keys: the re-check closes it (4401), and a new upgrade is refused",
    async () => {
      const scheduler = createManualScheduler();
      world = await startWorld({ scheduler });
      const { server, owner, endpoint } = world;
      const key = await owner.createApiKey("live view");
      const socket = open({ token: key });
      const watcher = await subscribe(socket, endpoint.id);
      expect(watcher.reply.status).toBe("ok");

      admin("set-plan", "--org", owner.organizationId, "free");
      await scheduler.run(RIGHTS_RECHECK_JOB);
      expect(await closedWith(socket)).toEqual({ code: 4401, reason: "plan_without_api_keys" });
      expect(watcher.closes).toEqual([{ reason: "unauthorized" }]);
      expect(await handshakeStatus(server.url, `vsn=2.0.0&token=${key}`)).toBe(403);
    },
  );
});
