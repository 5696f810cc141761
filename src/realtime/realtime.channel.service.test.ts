import { describe, expect, test } from "bun:test";
import type { Principal } from "../auth/auth.model.ts";
import type { CapturedRequest } from "../capture/capture.model.ts";
import { createLogger } from "../shared/logger.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import {
  createRealtimeHub,
  type RealtimeLimits,
  type RealtimeStore,
} from "./realtime.channel.service.ts";
import type { SocketLink } from "./realtime.fanout.service.ts";
import type { Serializer } from "./realtime.protocol.model.ts";

/** A socket that records what the hub writes; `buffered` stands for bytes the network has not taken. */
class FakeLink implements SocketLink {
  frames: unknown[] = [];
  buffered = 0;
  closedWith: { code: number; reason: string } | null = null;
  send(text: string): number {
    if (this.closedWith) return 0;
    this.frames.push(JSON.parse(text));
    // Like Bun: -1 when the text had to wait behind bytes the network has not taken yet.
    return this.buffered > 0 ? -1 : text.length;
  }
  getBufferedAmount = () => this.buffered;
  cork = <R>(fn: () => R): R => fn();
  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
  }
  /** request_ids of the webhook_received frames (2.0.0 serializer). */
  received(): string[] {
    return (this.frames as [unknown, unknown, string, string, { request_id: string }][])
      .filter((frame) => frame[3] === "webhook_received")
      .map((frame) => frame[4].request_id);
  }
}

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  authMethod: "api_key",
  userId: null,
  apiKeyId: "key-1",
  organizationId: "org-1",
  role: "owner",
  plan: "team",
  ...overrides,
});

const request = (id: string, endpointId = "ep-1") => makeCapturedRequest({ id, endpointId });
const ids = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `r${String(from + i).padStart(2, "0")}`);

/** A store over an in-memory table; `beforeRead` runs inside each catch-up read. */
function memoryStore(rows: CapturedRequest[], beforeRead: (call: number) => void = () => {}) {
  let calls = 0;
  const store: RealtimeStore = {
    findEndpoint: (organizationId, endpointId) =>
      organizationId === "org-1" && endpointId === "ep-1" ? { id: endpointId } : null,
    async listAfter(endpointId, after, limit) {
      beforeRead(++calls);
      await Bun.sleep(0);
      return rows
        .filter((row) => row.endpointId === endpointId && row.id > after)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .slice(0, limit);
    },
    runResultsOf: () => new Map(),
  };
  return store;
}

function setup(store: RealtimeStore, limits: Partial<RealtimeLimits> = {}) {
  const clock = createFakeClock();
  /** What each socket's token grants now; tests change it to take rights away. */
  const rights = new Map<string, Principal | string>();
  const hub = createRealtimeHub({
    store,
    rights: {
      recheck: async (token) => rights.get(token) ?? "invalid_token",
    },
    clock,
    logger: createLogger({ level: "error", write: () => {} }),
    plans: DEFAULT_PLANS,
    limits: {
      heartbeatTimeoutMs: 60_000,
      maxBufferedBytes: 1_000_000,
      bodyLimit: 65_536,
      replayPageSize: 3,
      maxPendingEvents: 100,
      maxChannelsPerSocket: 2,
      ...limits,
    },
  });
  let sockets = 0;
  const connect = (who = principal(), serializer: Serializer = "2.0.0") => {
    const link = new FakeLink();
    const token = `token-${++sockets}`;
    rights.set(token, who);
    return { link, token, session: hub.open(link, who, serializer, token) };
  };
  return { hub, clock, connect, rights };
}

const joinFrame = (topic: string, payload: unknown = {}, ref = "1") =>
  JSON.stringify([ref, ref, topic, "phx_join", payload]);
const replies = (link: FakeLink) =>
  (link.frames as unknown[][]).filter((frame) => frame[3] === "phx_reply").map((f) => f[4]);

describe("catch-up", () => {
  test("replays after since_request_id, then live, with no gap and no duplicate", async () => {
    const rows = ids(1, 10).map((id) => request(id));
    const { hub, connect } = setup(
      memoryStore(rows, (call) => {
        // While the first page is read: a capture is stored and announced. The replay reads it
        // from the table, and the live announcement must not send it a second time.
        if (call === 1) {
          rows.push(request("r11"));
          hub.captured(request("r11"));
        }
      }),
    );
    const { link, session } = connect();
    hub.receive(session, joinFrame("debug:ep-1", { since_request_id: "r02" }));
    await pollUntil(() => link.received().includes("r11"), { what: "the replay" });
    hub.captured(request("r12"));
    await pollUntil(() => link.received().includes("r12"), { what: "a live event" });
    expect(link.received()).toEqual(ids(3, 12));
    expect(replies(link)[0]).toEqual({ status: "ok", response: {} });
  });

  test("each replayed request is followed by its action run; runs recorded during the replay come after it, once", async () => {
    const rows = ids(1, 5).map((id) => request(id));
    const results = (note: string) => [{ action_id: "a1", status: "ok", output: note }];
    const recorded = new Map<string, unknown[]>([["r03", results("before")]]);
    const store = memoryStore(rows, (call) => {
      if (call !== 1) return;
      // While the first page is read: r03's run is pushed (it was recorded just before the read,
      // so the replay carries it too) and r04's is recorded after the read.
      void hub.pushAfterCaptures("ep-1", "actions_completed", {
        request_id: "r03",
        results: results("before"),
      });
      void hub.pushAfterCaptures("ep-1", "actions_completed", {
        request_id: "r04",
        results: results("during"),
      });
    });
    const { hub, connect } = setup({
      ...store,
      runResultsOf: (requestIds) =>
        new Map(
          requestIds.flatMap((id) => (recorded.has(id) ? [[id, recorded.get(id) ?? []]] : [])),
        ),
    });
    const { link, session } = connect();
    hub.receive(session, joinFrame("debug:ep-1", { since_request_id: "r02" }));
    const events = () =>
      (link.frames as unknown[][])
        .filter((frame) => frame[3] !== "phx_reply")
        .map((frame) => `${frame[3]} ${(frame[4] as { request_id: string }).request_id}`);
    await pollUntil(() => events().includes("actions_completed r04"), { what: "the held run" });
    expect(events()).toEqual([
      "webhook_received r03",
      "actions_completed r03",
      "webhook_received r04",
      "webhook_received r05",
      "actions_completed r04",
    ]);
  });

  test("a subscription that falls too far behind while catching up is closed", async () => {
    const rows = ids(1, 9).map((id) => request(id));
    const { hub, connect } = setup(
      memoryStore(rows, (call) => {
        if (call === 1) for (const id of ["r20", "r21", "r22"]) hub.captured(request(id));
      }),
      { maxPendingEvents: 2 },
    );
    const { link, session } = connect();
    hub.receive(session, joinFrame("debug:ep-1", { since_request_id: "r00" }));
    await pollUntil(() => link.closedWith !== null, { what: "the close" });
    expect(link.closedWith).toEqual({ code: 1013, reason: "too_far_behind" });
    expect(link.received()).not.toContain("r20");
  });
});

test("a catch-up holding more live bytes than the socket's budget is closed, whatever the count", async () => {
  const rows = ids(1, 9).map((id) => request(id));
  const big = (id: string) => ({
    ...request(id),
    body: new Uint8Array(60_000).fill(120),
    size: 60_000,
  });
  const { hub, connect } = setup(
    memoryStore(rows, (call) => {
      if (call === 1) for (const id of ["r20", "r21", "r22"]) hub.captured(big(id));
    }),
    { maxPendingEvents: 10_000, maxBufferedBytes: 100_000 },
  );
  const { link, session } = connect();
  hub.receive(session, joinFrame("debug:ep-1", { since_request_id: "r00" }));
  await pollUntil(() => link.closedWith !== null, { what: "the close" });
  expect(link.closedWith).toEqual({ code: 1013, reason: "too_far_behind" });
  expect(link.received()).not.toContain("r20");
});

describe("fan-out", () => {
  test("a slow socket is closed and the others still receive every event", async () => {
    const { hub, connect } = setup(memoryStore([]), { maxBufferedBytes: 1000 });
    const slow = connect();
    const fast = connect();
    for (const client of [slow, fast]) hub.receive(client.session, joinFrame("debug:ep-1"));
    await pollUntil(() => replies(fast.link).length === 1 && replies(slow.link).length === 1);
    slow.link.buffered = 5000;
    for (const id of ids(1, 3)) hub.captured(request(id));
    await pollUntil(() => fast.link.received().length === 3, { what: "3 events" });
    expect(slow.link.closedWith).toEqual({ code: 1013, reason: "too_far_behind" });
    hub.captured(request("r04"));
    await pollUntil(() => fast.link.received().length === 4, { what: "the 4th event" });
    // The turn's batch was already written when the check ran; nothing after it is.
    expect(slow.link.received()).toEqual(ids(1, 3));
  });

  test("another endpoint's captures are not delivered", async () => {
    const { hub, connect } = setup(memoryStore([]));
    const { link, session } = connect();
    hub.receive(session, joinFrame("debug:ep-1"));
    await pollUntil(() => replies(link).length === 1);
    hub.captured(request("r01", "ep-2"));
    hub.captured(request("r02"));
    await pollUntil(() => link.received().length > 0);
    expect(link.received()).toEqual(["r02"]);
  });
});

describe("sessions", () => {
  test("a silent socket is closed after the heartbeat window, a chatty one is kept", async () => {
    const { hub, clock, connect } = setup(memoryStore([]));
    const silent = connect();
    const chatty = connect();
    clock.advance(40_000);
    hub.receive(chatty.session, '[null,"9","phoenix","heartbeat",{}]');
    clock.advance(21_000);
    expect(hub.closeIdle()).toBe(1);
    expect(silent.link.closedWith).toEqual({ code: 4408, reason: "heartbeat_timeout" });
    expect(chatty.link.closedWith).toBeNull();
    expect(replies(chatty.link)).toEqual([{ status: "ok", response: {} }]);
  });

  test("revoking a key closes only the sockets opened with it", () => {
    const { hub, connect } = setup(memoryStore([]));
    const withKey = connect(principal({ apiKeyId: "key-1" }));
    const otherKey = connect(principal({ apiKeyId: "key-2" }));
    const withJwt = connect(principal({ authMethod: "jwt", apiKeyId: null, userId: "u1" }));
    hub.apiKeyRevoked("key-1");
    expect(withKey.link.closedWith).toEqual({ code: 4401, reason: "api_key_revoked" });
    expect(otherKey.link.closedWith).toBeNull();
    expect(withJwt.link.closedWith).toBeNull();
    expect(hub.sessionCount()).toBe(2);
  });

  test("a deleted endpoint ends its channels with phx_close and sends nothing more", async () => {
    const { hub, connect } = setup(memoryStore([]));
    const { link, session } = connect();
    hub.receive(session, joinFrame("debug:ep-1", {}, "4"));
    await pollUntil(() => replies(link).length === 1);
    hub.endpointDeleted("ep-1");
    expect(link.frames.at(-1)).toEqual([
      "4",
      null,
      "debug:ep-1",
      "phx_close",
      { reason: "endpoint_deleted" },
    ]);
    hub.captured(request("r01"));
    await hub.settled();
    expect(link.received()).toEqual([]);
    expect(link.closedWith).toBeNull();
  });

  test("a second join of the same topic replaces the first: events arrive once", async () => {
    const { hub, connect } = setup(memoryStore([]));
    const { link, session } = connect();
    hub.receive(session, joinFrame("debug:ep-1", {}, "1"));
    hub.receive(session, joinFrame("debug:ep-1", {}, "2"));
    await pollUntil(() => replies(link).length === 2);
    hub.captured(request("r01"));
    await hub.settled();
    expect(link.received()).toEqual(["r01"]);
  });

  test("refusals: unknown topic, bad since_request_id, too many channels, invalid frame", async () => {
    const { hub, connect } = setup(memoryStore([]), { maxChannelsPerSocket: 0 });
    const { link, session } = connect();
    hub.receive(session, joinFrame("room:lobby"));
    hub.receive(session, joinFrame("debug:ep-1", { since_request_id: 5 }));
    hub.receive(session, joinFrame("debug:ep-1"));
    hub.receive(session, '[null,"7","debug:ep-1","shout",{}]');
    await pollUntil(() => replies(link).length === 4);
    const reasons = replies(link).map(
      (reply) => (reply as { response: { reason: string } }).response.reason,
    );
    // Joins answer asynchronously, so the order of the replies is not the order of the requests.
    expect(reasons.sort()).toEqual([
      "invalid since_request_id",
      "too_many_channels",
      "unmatched topic",
      "unmatched topic",
    ]);
    hub.receive(session, "{not json");
    expect(link.closedWith).toEqual({ code: 1007, reason: "invalid_frame" });
  });
});

describe("rights of a live socket", () => {
  const closes = (link: FakeLink) =>
    (link.frames as unknown[][]).filter((frame) => frame[3] === "phx_close").map((f) => f[4]);

  test("a token that grants nothing any more: channels get phx_close, then the socket 4401", async () => {
    const { hub, connect, rights } = setup(memoryStore([]));
    const { link, session, token } = connect(principal({ authMethod: "jwt", userId: "u-1" }));
    const other = connect(principal({ authMethod: "jwt", userId: "u-2" }));
    hub.receive(session, joinFrame("debug:ep-1"));
    await pollUntil(() => replies(link).length === 1);
    rights.set(token, "password_changed");
    expect(await hub.recheckRights()).toBe(1);
    expect(closes(link)).toEqual([{ reason: "unauthorized" }]);
    expect(link.closedWith).toEqual({ code: 4401, reason: "password_changed" });
    expect(other.link.closedWith).toBeNull();
    hub.captured(request("r01"));
    await hub.settled();
    expect(link.received()).toEqual([]);
  });

  test("a plan without realtime: channels get phx_close, the socket stays, joins are refused", async () => {
    const { hub, connect, rights } = setup(memoryStore([]));
    const { link, session, token } = connect();
    hub.receive(session, joinFrame("debug:ep-1"));
    await pollUntil(() => replies(link).length === 1);
    rights.set(token, principal({ plan: "free" }));
    expect(await hub.recheckRights()).toBe(0);
    expect(closes(link)).toEqual([{ reason: "unauthorized" }]);
    expect(link.closedWith).toBeNull();
    hub.receive(session, joinFrame("debug:ep-1", {}, "2"));
    await pollUntil(() => replies(link).length === 2);
    expect(replies(link)[1]).toEqual({
      status: "error",
      response: { reason: "feature_not_available" },
    });
  });

  test("every join re-checks: a join after rights were lost closes the socket, no reply", async () => {
    const { hub, connect, rights } = setup(memoryStore([]));
    const { link, session, token } = connect();
    rights.set(token, "api_key_revoked");
    hub.receive(session, joinFrame("debug:ep-1"));
    await pollUntil(() => link.closedWith !== null);
    expect(link.closedWith).toEqual({ code: 4401, reason: "api_key_revoked" });
    expect(replies(link)).toEqual([]);
  });

  test("only the sessions a change is about are re-checked", async () => {
    const { hub, connect, rights } = setup(memoryStore([]));
    const mine = connect(principal({ authMethod: "jwt", userId: "u-1" }));
    const theirs = connect(principal({ authMethod: "jwt", userId: "u-2" }));
    rights.set(mine.token, "not_member");
    rights.set(theirs.token, "not_member");
    expect(await hub.recheckRights((who) => who.userId === "u-1")).toBe(1);
    expect(mine.link.closedWith).toEqual({ code: 4401, reason: "not_member" });
    expect(theirs.link.closedWith).toBeNull();
  });
});
