import type { Principal } from "../auth/auth.model.ts";
import type { CapturedRequest } from "../capture/capture.model.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { PlanTable } from "../shared/plans.ts";
import {
  createFanout,
  frameText,
  liveEvent,
  type Session,
  type SocketLink,
  type Subscription,
} from "./realtime.fanout.service.ts";
import {
  ACTIONS_COMPLETED,
  CLOSE,
  type CloseReason,
  decodeFrame,
  encodeFrame,
  endpointIdOfTopic,
  type Frame,
  PHOENIX_TOPIC,
  PHX,
  push,
  replyTo,
  rightsLost,
  type Serializer,
} from "./realtime.protocol.model.ts";

/** What the realtime room reads from storage. */
export interface RealtimeStore {
  /** The endpoint when it exists and belongs to the organization; null otherwise. */
  findEndpoint(
    organizationId: string,
    endpointId: string,
  ): { id: string } | null | Promise<{ id: string } | null>;
  /** Stored requests of the endpoint with an id after `afterRequestId`, oldest first. */
  listAfter(
    endpointId: string,
    afterRequestId: string,
    limit: number,
  ): CapturedRequest[] | Promise<CapturedRequest[]>;
  /** The latest action run's results of each of these requests that has one. */
  runResultsOf(
    requestIds: readonly string[],
  ): Map<string, unknown[]> | Promise<Map<string, unknown[]>>;
}

export interface RealtimeLimits {
  /** A socket silent for longer than this (no heartbeat, no message) is closed. */
  heartbeatTimeoutMs: number;
  /** Bytes queued for one socket before it counts as too far behind and is closed. */
  maxBufferedBytes: number;
  /** Pushed bodies are cut past this many bytes. */
  bodyLimit: number;
  /** Stored requests read per catch-up page. */
  replayPageSize: number;
  /** Live events held for one subscription while it catches up. */
  maxPendingEvents: number;
  /** Channels one socket may join. */
  maxChannelsPerSocket: number;
}

/**
 * What the socket's token grants now: the current principal (role and plan may have changed), or
 * why it grants nothing any more (`token_expired`, `password_changed`, `not_member`, ...).
 */
export interface SocketRights {
  recheck(token: string, organizationId: string): Promise<Principal | string>;
}

export interface RealtimeDeps {
  store: RealtimeStore;
  rights: SocketRights;
  clock: Clock;
  logger: Logger;
  plans: PlanTable;
  limits: RealtimeLimits;
}

/**
 * The Phoenix channel server of Weir: sessions (one per socket), joins of `debug:<endpoint_id>`
 * with plan and organization checks, catch-up from `since_request_id`, heartbeats, and the
 * events that end sockets or subscriptions (revoked key, deleted endpoint, shutdown).
 */
export function createRealtimeHub(deps: RealtimeDeps) {
  const { clock, limits } = deps;
  const logger = deps.logger.child({ scope: "realtime" });
  const sessions = new Set<Session>();
  let nextId = 1;

  const fanout = createFanout({
    maxBufferedBytes: limits.maxBufferedBytes,
    maxPendingEvents: limits.maxPendingEvents,
    bodyLimit: limits.bodyLimit,
    close: (session, why) => closeSession(session, why),
  });

  function send(session: Session, frame: Frame): boolean {
    return fanout.write(session, [encodeFrame(session.serializer, frame)]);
  }

  function closeSession(session: Session, why: CloseReason): void {
    if (session.closed) return;
    logger.info("socket closed by server", { session: session.id, reason: why.reason });
    forget(session);
    session.link.close(why.code, why.reason);
  }

  /** Drops a session's subscriptions and wakes whatever waited on it. */
  function forget(session: Session): void {
    session.closed = true;
    sessions.delete(session);
    for (const subscription of session.channels.values()) fanout.unsubscribe(subscription);
    session.channels.clear();
    for (const wake of session.drainWaiters.splice(0)) wake();
  }

  function endSubscription(subscription: Subscription): void {
    fanout.unsubscribe(subscription);
    const { session, topic } = subscription;
    if (session.channels.get(topic) === subscription) session.channels.delete(topic);
  }

  const isCurrent = (subscription: Subscription) =>
    !subscription.session.closed &&
    subscription.session.channels.get(subscription.topic) === subscription;

  /** Resolves at once while the socket keeps up; otherwise when its buffer drains. */
  function waitForDrain(session: Session): Promise<void> {
    if (session.closed || session.link.getBufferedAmount() < limits.maxBufferedBytes / 2) {
      // Still yield a turn, so a long catch-up never holds up capture.
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => session.drainWaiters.push(resolve));
  }

  async function refusal(session: Session, frame: Frame): Promise<string | null> {
    const endpointId = endpointIdOfTopic(frame.topic);
    if (endpointId === null) return "unmatched topic";
    if (!deps.plans[session.principal.plan].realtime) return "feature_not_available";
    const since = sinceOf(frame.payload);
    if (since === undefined) return "invalid since_request_id";
    if (
      !session.channels.has(frame.topic) &&
      session.channels.size >= limits.maxChannelsPerSocket
    ) {
      return "too_many_channels";
    }
    const endpoint = await deps.store.findEndpoint(session.principal.organizationId, endpointId);
    return endpoint ? null : "unauthorized";
  }

  /** Ends every channel of the session with `phx_close` `{reason: "unauthorized"}`. */
  function leaveAll(session: Session): void {
    for (const subscription of [...session.channels.values()]) {
      endSubscription(subscription);
      const { topic, joinRef } = subscription;
      send(session, push(topic, joinRef, PHX.close, { reason: "unauthorized" }));
    }
  }

  /**
   * Re-checks the socket's token against current storage: refreshes its principal, leaves its
   * channels when the plan lost realtime, and leaves them and closes the socket (4401) when the
   * token grants nothing any more. True while the socket may go on.
   */
  async function recheck(session: Session): Promise<boolean> {
    if (session.closed) return false;
    const rights = await deps.rights.recheck(session.token, session.principal.organizationId);
    if (session.closed) return false;
    if (typeof rights === "string") {
      leaveAll(session);
      closeSession(session, rightsLost(rights));
      return false;
    }
    session.principal = rights;
    if (!deps.plans[rights.plan].realtime) leaveAll(session);
    return true;
  }

  async function join(session: Session, frame: Frame): Promise<void> {
    // Every join re-checks membership and plan: a socket never joins on rights it lost.
    if (!(await recheck(session))) return;
    const reason = await refusal(session, frame);
    if (session.closed) return;
    if (reason) {
      send(session, replyTo(frame, "error", { reason }));
      return;
    }
    const previous = session.channels.get(frame.topic);
    if (previous) endSubscription(previous);
    const since = sinceOf(frame.payload) ?? null;
    const subscription: Subscription = {
      session,
      endpointId: endpointIdOfTopic(frame.topic) as string,
      topic: frame.topic,
      joinRef: frame.joinRef,
      pending: since ? [] : null,
      pendingBytes: 0,
      heldPushes: [],
      replayed: null,
    };
    session.channels.set(frame.topic, subscription);
    fanout.subscribe(subscription);
    if (!send(session, replyTo(frame, "ok"))) return;
    if (since) await catchUp(subscription, since);
  }

  /**
   * Replays stored requests after `since`, page by page, each followed by its latest action
   * run's `actions_completed`, while live events wait in `pending` (captures) and `heldPushes`
   * (runs); then sends the waiting ones minus those already replayed. No gap, no duplicate.
   */
  async function catchUp(subscription: Subscription, since: string): Promise<void> {
    const { session, topic } = subscription;
    const replayed = new Set<string>();
    const replayedRuns = new Set<string>();
    let cursor = since;
    for (;;) {
      const rows = await deps.store.listAfter(
        subscription.endpointId,
        cursor,
        limits.replayPageSize,
      );
      if (!isCurrent(subscription)) return;
      const runs =
        rows.length > 0 ? await deps.store.runResultsOf(rows.map((row) => row.id)) : null;
      if (!isCurrent(subscription)) return;
      const texts: string[] = [];
      for (const row of rows) {
        replayed.add(row.id);
        texts.push(frameText(liveEvent(row, limits.bodyLimit), session.serializer));
        const results = runs?.get(row.id);
        if (!results) continue;
        const payload = { request_id: row.id, results };
        const text = encodeFrame(session.serializer, push(topic, null, ACTIONS_COMPLETED, payload));
        replayedRuns.add(text);
        texts.push(text);
      }
      if (!fanout.write(session, texts)) return;
      const last = rows.at(-1);
      if (!last || rows.length < limits.replayPageSize) break;
      cursor = last.id;
      await waitForDrain(session);
      if (!isCurrent(subscription)) return;
    }
    if (!fanout.goLive(subscription, replayed)) return;
    // A run recorded before its page was read was replayed with it: the same frame, not resent.
    const held = subscription.heldPushes.filter((text) => !replayedRuns.has(text));
    subscription.heldPushes = [];
    fanout.write(session, held);
  }

  function leave(session: Session, subscription: Subscription, frame: Frame): void {
    endSubscription(subscription);
    if (send(session, replyTo(frame, "ok"))) {
      send(session, push(subscription.topic, subscription.joinRef, PHX.close, {}));
    }
  }

  function receive(session: Session, raw: unknown): void {
    if (session.closed) return;
    session.lastSeenAt = clock.now();
    const frame = decodeFrame(session.serializer, raw);
    if (!frame) {
      closeSession(session, CLOSE.invalidFrame);
      return;
    }
    if (frame.event === PHX.heartbeat && frame.topic === PHOENIX_TOPIC) {
      send(session, replyTo(frame, "ok"));
      return;
    }
    if (frame.event === PHX.join) {
      join(session, frame).catch((error) => {
        logger.error("join failed", { session: session.id, topic: frame.topic, error });
        if (!session.closed) send(session, replyTo(frame, "error", { reason: "join_failed" }));
      });
      return;
    }
    const subscription = session.channels.get(frame.topic);
    if (!subscription) {
      send(session, replyTo(frame, "error", { reason: "unmatched topic" }));
    } else if (frame.event === PHX.leave) {
      leave(session, subscription, frame);
    } else {
      send(session, replyTo(frame, "error", { reason: "unsupported_event" }));
    }
  }

  return {
    /** Registers a socket whose upgrade was authenticated. */
    open(link: SocketLink, principal: Principal, serializer: Serializer, token: string): Session {
      const session: Session = {
        id: nextId++,
        link,
        serializer,
        principal,
        token,
        lastSeenAt: clock.now(),
        channels: new Map(),
        closed: false,
        drainWaiters: [],
      };
      sessions.add(session);
      return session;
    },
    /** Handles one text message from the client. */
    receive,
    /** A binary message: Weir's channels only speak text frames. */
    receiveBinary: (session: Session) => closeSession(session, CLOSE.binaryFrame),
    /** The socket went away (whoever closed it). */
    closed: (session: Session) => forget(session),
    /** The socket's send buffer drained. */
    drained(session: Session): void {
      for (const wake of session.drainWaiters.splice(0)) wake();
    },
    /** A capture was stored: deliver it to the endpoint's subscribers. */
    captured: (request: CapturedRequest) => fanout.captured(request),
    /**
     * Pushes `event` to the endpoint's live subscribers once the captures announced before it
     * went out, so a capture's `webhook_received` always comes first (e.g. `actions_completed`).
     */
    async pushAfterCaptures(endpointId: string, event: string, payload: unknown): Promise<void> {
      if (fanout.subscribersOf(endpointId).length === 0) return;
      await fanout.settled();
      for (const subscription of fanout.subscribersOf(endpointId)) {
        const frame = push(subscription.topic, null, event, payload);
        if (!subscription.pending) {
          send(subscription.session, frame);
          continue;
        }
        // Catching up: sent once the held captures went out, so it still follows its capture.
        subscription.heldPushes.push(encodeFrame(subscription.session.serializer, frame));
        if (subscription.heldPushes.length > limits.maxPendingEvents) {
          closeSession(subscription.session, CLOSE.tooFarBehind);
        }
      }
    },
    /** Resolves once every capture announced so far went out: an explicit flush. */
    settled: () => fanout.settled(),
    /** Closes sockets silent for longer than the heartbeat window; returns how many. */
    closeIdle(): number {
      const deadline = clock.now() - limits.heartbeatTimeoutMs;
      const idle = [...sessions].filter((session) => session.lastSeenAt < deadline);
      for (const session of idle) closeSession(session, CLOSE.heartbeatTimeout);
      return idle.length;
    },
    /**
     * Re-checks the rights of every live socket (or those whose principal `matches`); returns how
     * many were closed. Run on a schedule (expiry, changes made by another process) and on events.
     */
    async recheckRights(matches: (principal: Principal) => boolean = () => true): Promise<number> {
      let closed = 0;
      for (const session of [...sessions]) {
        if (!matches(session.principal)) continue;
        try {
          if (!(await recheck(session))) closed += 1;
        } catch (error) {
          logger.error("rights re-check failed", { session: session.id, error });
        }
      }
      return closed;
    },
    /** Closes every socket opened with a key that was just revoked. */
    apiKeyRevoked(apiKeyId: string): void {
      for (const session of [...sessions]) {
        if (session.principal.apiKeyId === apiKeyId) closeSession(session, CLOSE.apiKeyRevoked);
      }
    },
    /** Ends the subscriptions of a deleted endpoint with `phx_close` (no rejoin). */
    endpointDeleted(endpointId: string): void {
      for (const subscription of fanout.subscribersOf(endpointId)) {
        endSubscription(subscription);
        const { topic, joinRef } = subscription;
        send(subscription.session, push(topic, joinRef, PHX.close, { reason: "endpoint_deleted" }));
      }
    },
    /** Closes every socket (the server is stopping). */
    closeAll(): void {
      for (const session of [...sessions]) closeSession(session, CLOSE.serverStopping);
    },
    sessionCount: () => sessions.size,
  };
}

export type RealtimeHub = ReturnType<typeof createRealtimeHub>;

/** `since_request_id` of a join payload: a string, or null when absent; undefined when invalid. */
function sinceOf(payload: unknown): string | null | undefined {
  if (typeof payload !== "object" || payload === null) return null;
  const since = (payload as Record<string, unknown>).since_request_id;
  if (since === undefined || since === null || since === "") return null;
  return typeof since === "string" && since.length <= 100 ? since : undefined;
}
