import type { Principal } from "../auth/auth.model.ts";
import type { CapturedRequest } from "../capture/capture.model.ts";
import { type WebhookReceived, webhookReceived } from "./realtime.payload.model.ts";
import {
  CLOSE,
  type CloseReason,
  debugTopic,
  encodeFrame,
  push,
  type Serializer,
  WEBHOOK_RECEIVED,
} from "./realtime.protocol.model.ts";

/** What the realtime room needs of a WebSocket; Bun's ServerWebSocket has all of it. */
export interface SocketLink {
  /** Queues text; returns 0 when the socket dropped it (closed, or its buffer is full). */
  send(text: string): number;
  /** Bytes queued for the socket and not yet written to the network. */
  getBufferedAmount(): number;
  /** Runs `fn` with writes batched into one network write. */
  cork<R>(fn: () => R): R;
  close(code: number, reason: string): void;
}

/** One open socket. */
export interface Session {
  readonly id: number;
  readonly link: SocketLink;
  readonly serializer: Serializer;
  readonly principal: Principal;
  lastSeenAt: number;
  /** Joined channels by topic. */
  readonly channels: Map<string, Subscription>;
  closed: boolean;
  /** Resolved when the socket's buffer drains (or it closes); see `waitForDrain`. */
  drainWaiters: (() => void)[];
}

/** One joined `debug:<endpoint_id>` channel of one session. */
export interface Subscription {
  readonly session: Session;
  readonly endpointId: string;
  readonly topic: string;
  readonly joinRef: string | null;
  /** Live events held back while stored ones are replayed (catch-up); null once live. */
  pending: LiveEvent[] | null;
  /**
   * Ids the catch-up replayed: a capture stored before the replay read it but announced after
   * must not be sent twice. Dropped at the first live event newer than all of them.
   */
  replayed: { ids: Set<string>; newest: string } | null;
}

/** One capture, encoded at most once per serializer however many sockets receive it. */
export interface LiveEvent {
  readonly requestId: string;
  readonly topic: string;
  readonly payload: WebhookReceived;
  readonly frames: Partial<Record<Serializer, string>>;
}

export interface FanoutOptions {
  /** A socket with more bytes than this queued is too far behind and is closed. */
  maxBufferedBytes: number;
  /** Live events a catching-up subscription may hold before it counts as too far behind. */
  maxPendingEvents: number;
  /** Pushed bodies are cut past this many bytes. */
  bodyLimit: number;
  /** Closes a session (the owner keeps its bookkeeping). */
  close(session: Session, why: CloseReason): void;
}

/** The event for one stored request. */
export function liveEvent(request: CapturedRequest, bodyLimit: number): LiveEvent {
  return {
    requestId: request.id,
    topic: debugTopic(request.endpointId),
    payload: webhookReceived(request, bodyLimit),
    frames: {},
  };
}

/** The text of `event` for a socket speaking `serializer` (encoded once, then shared). */
export function frameText(event: LiveEvent, serializer: Serializer): string {
  let text = event.frames[serializer];
  if (text === undefined) {
    // join_ref null, as Phoenix broadcasts do: one text serves every subscriber of the topic.
    text = encodeFrame(serializer, push(event.topic, null, WEBHOOK_RECEIVED, event.payload));
    event.frames[serializer] = text;
  }
  return text;
}

/**
 * Subscribers by endpoint, and delivery of captures to them. Captures announced within one
 * event-loop turn are delivered together at the end of it, one corked write per socket (a group
 * commit announces many at once). A socket that cannot keep up is closed, never waited for, so
 * capture and the other subscribers never slow down because of it.
 */
export function createFanout(options: FanoutOptions) {
  const byEndpoint = new Map<string, Set<Subscription>>();
  let queued: CapturedRequest[] = [];
  let scheduled = false;

  /** Writes texts to a session in one batch; closes it and answers false if it is too far behind. */
  function write(session: Session, texts: readonly string[]): boolean {
    if (session.closed) return false;
    if (texts.length === 0) return true;
    const link = session.link;
    const dropped = link.cork(() => {
      for (const text of texts) if (link.send(text) === 0) return true;
      return false;
    });
    if (dropped || link.getBufferedAmount() > options.maxBufferedBytes) {
      options.close(session, CLOSE.tooFarBehind);
      return false;
    }
    return true;
  }

  function deliverLive(subscription: Subscription, events: readonly LiveEvent[]): void {
    if (subscription.pending) {
      subscription.pending.push(...events);
      if (subscription.pending.length > options.maxPendingEvents) {
        options.close(subscription.session, CLOSE.tooFarBehind);
      }
      return;
    }
    const fresh = subscription.replayed ? unseen(subscription, events) : events;
    const serializer = subscription.session.serializer;
    write(
      subscription.session,
      fresh.map((event) => frameText(event, serializer)),
    );
  }

  function flush(): void {
    scheduled = false;
    const requests = queued;
    queued = [];
    const byTopic = new Map<string, LiveEvent[]>();
    for (const request of requests) {
      // Re-checked here: the last subscriber may have left since the capture was announced.
      if (!byEndpoint.has(request.endpointId)) continue;
      const events = byTopic.get(request.endpointId) ?? [];
      events.push(liveEvent(request, options.bodyLimit));
      byTopic.set(request.endpointId, events);
    }
    for (const [endpointId, events] of byTopic) {
      for (const subscription of [...(byEndpoint.get(endpointId) ?? [])]) {
        deliverLive(subscription, events);
      }
    }
  }

  return {
    write,
    subscribe(subscription: Subscription): void {
      const set = byEndpoint.get(subscription.endpointId) ?? new Set();
      set.add(subscription);
      byEndpoint.set(subscription.endpointId, set);
    },
    unsubscribe(subscription: Subscription): void {
      const set = byEndpoint.get(subscription.endpointId);
      if (!set) return;
      set.delete(subscription);
      if (set.size === 0) byEndpoint.delete(subscription.endpointId);
    },
    subscribersOf(endpointId: string): Subscription[] {
      return [...(byEndpoint.get(endpointId) ?? [])];
    },
    /** Announces a stored capture; it is delivered at the end of this event-loop turn. */
    captured(request: CapturedRequest): void {
      // The common case costs one map lookup: nobody watches this endpoint.
      if (!byEndpoint.has(request.endpointId)) return;
      queued.push(request);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    /** Ends a catch-up: sends the live events held meanwhile, minus the replayed ones. */
    goLive(subscription: Subscription): boolean {
      const pending = subscription.pending ?? [];
      subscription.pending = null;
      const fresh = subscription.replayed ? unseen(subscription, pending) : pending;
      const serializer = subscription.session.serializer;
      return write(
        subscription.session,
        fresh.map((event) => frameText(event, serializer)),
      );
    },
  };
}

export type Fanout = ReturnType<typeof createFanout>;

/** Events the catch-up did not already send; forgets the replayed ids once past them. */
function unseen(subscription: Subscription, events: readonly LiveEvent[]): LiveEvent[] {
  const replayed = subscription.replayed;
  if (!replayed) return [...events];
  const fresh = events.filter((event) => !replayed.ids.has(event.requestId));
  // Ids are time-ordered (UUIDv7): past the newest replayed one, no duplicate can follow.
  if (fresh.some((event) => event.requestId > replayed.newest)) subscription.replayed = null;
  return fresh;
}
