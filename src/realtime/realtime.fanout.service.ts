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
  /** Who the socket acts for: refreshed by every re-check of its token (plan, role). */
  principal: Principal;
  /** The token the socket was opened with, re-checked while the socket lives. */
  readonly token: string;
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
  /** About how many bytes `pending` holds (bodies are at most 64 KiB each, but many may wait). */
  pendingBytes: number;
  /**
   * Frames of other events (a run's `actions_completed`) pushed while the subscription catches
   * up, sent after the held captures once it goes live.
   */
  heldPushes: string[];
  /**
   * Ids the catch-up replayed. A capture announced before the subscription went live may still be
   * on its way in a delivery and must not be sent twice; one announced later cannot have been
   * replayed, so the set is dropped at the first such event (`untilSeq`).
   */
  replayed: { ids: Set<string>; untilSeq: number } | null;
}

/** One capture, encoded at most once per serializer however many sockets receive it. */
export interface LiveEvent {
  readonly requestId: string;
  /** Announcement order (0 for replayed events): capture order, whatever the ids say. */
  readonly seq: number;
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
export function liveEvent(request: CapturedRequest, bodyLimit: number, seq = 0): LiveEvent {
  return {
    requestId: request.id,
    seq,
    topic: debugTopic(request.endpointId),
    payload: webhookReceived(request, bodyLimit),
    frames: {},
  };
}

/** What holding `event` costs, about: its body and headers, and a frame's envelope. */
function heldBytes(event: LiveEvent): number {
  let bytes = 256 + event.payload.body.length;
  for (const [name, value] of Object.entries(event.payload.headers)) {
    bytes += name.length + value.length;
  }
  return bytes;
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

/** The pause after a delivery, as a share of the time it took (see createFanout). */
const PACING = 0.5;

/** Sockets written per event-loop turn while delivering, so capture requests get turns between. */
const SOCKETS_PER_TURN = 200;

/**
 * Subscribers by endpoint, and delivery of captures to them. A write to a socket is one system
 * call whatever it carries, and that call is the cost of fan-out (docs/performance.md), so captures
 * are delivered in batches with one corked write per socket: everything announced since the last
 * delivery goes out together. Deliveries are paced: after one that took T, the next starts no
 * sooner than T/2 later, which keeps fan-out under about two thirds of the CPU however many
 * captures arrive, so capture keeps at least a third however many subscribers there are, and with
 * few subscribers (a delivery of microseconds) adds no delay at all. A socket that cannot keep up is
 * closed, never waited for, so capture and the other subscribers never slow down because of it.
 */
export function createFanout(options: FanoutOptions) {
  const byEndpoint = new Map<string, Set<Subscription>>();
  let queued: { request: CapturedRequest; seq: number }[] = [];
  let announced = 0;
  let scheduled = false;
  let delivering = false;
  /** Pacing: when the next delivery may start, and what the current one has cost so far (ms). */
  let nextDeliveryAt = 0;
  let cost = 0;

  /** Writes texts to a session in one batch; closes it and answers false if it is too far behind. */
  function write(session: Session, texts: readonly string[]): boolean {
    if (session.closed) return false;
    if (texts.length === 0) return true;
    const link = session.link;
    // send() answers 0 when it dropped the text, -1 when the text is queued behind others.
    const status =
      texts.length === 1 ? link.send(texts[0] as string) : link.cork(() => sendAll(link, texts));
    if (status === 0 || (status < 0 && link.getBufferedAmount() > options.maxBufferedBytes)) {
      options.close(session, CLOSE.tooFarBehind);
      return false;
    }
    return true;
  }

  function deliverLive(subscription: Subscription, batch: Batch): void {
    const { session, topic } = subscription;
    // Left or ended while a paced delivery was under way: nothing more goes to it.
    if (session.channels.get(topic) !== subscription) return;
    if (subscription.pending) {
      subscription.pending.push(...batch.events);
      for (const event of batch.events) subscription.pendingBytes += heldBytes(event);
      // Bounded by count and by bytes: held events count against the socket's own budget.
      if (
        subscription.pending.length > options.maxPendingEvents ||
        subscription.pendingBytes > options.maxBufferedBytes
      ) {
        options.close(session, CLOSE.tooFarBehind);
      }
      return;
    }
    const fresh = unseen(subscription, batch.events);
    // The common case shares one array of texts among all sockets of a serializer.
    const texts =
      fresh === batch.events
        ? batchTexts(batch, session.serializer)
        : fresh.map((event) => frameText(event, session.serializer));
    write(session, texts);
  }

  /** Splits the queue into events per endpoint, skipping endpoints nobody watches any more. */
  function takeQueued(): Map<string, LiveEvent[]> {
    const requests = queued;
    queued = [];
    const byTopic = new Map<string, LiveEvent[]>();
    for (const { request, seq } of requests) {
      if (!byEndpoint.has(request.endpointId)) continue;
      const events = byTopic.get(request.endpointId) ?? [];
      events.push(liveEvent(request, options.bodyLimit, seq));
      byTopic.set(request.endpointId, events);
    }
    return byTopic;
  }

  function startDelivery(): void {
    scheduled = false;
    delivering = true;
    cost = 0;
    const work: [Subscription, Batch][] = [];
    for (const [endpointId, events] of takeQueued()) {
      const batch: Batch = { events, texts: {} };
      for (const subscription of byEndpoint.get(endpointId) ?? []) work.push([subscription, batch]);
    }
    deliverSlice(work, 0);
  }

  function deliverSlice(work: [Subscription, Batch][], start: number): void {
    const began = performance.now();
    const end = Math.min(work.length, start + SOCKETS_PER_TURN);
    for (let i = start; i < end; i++) {
      const [subscription, batch] = work[i] as [Subscription, Batch];
      deliverLive(subscription, batch);
    }
    cost += performance.now() - began;
    if (end < work.length) {
      setImmediate(() => deliverSlice(work, end));
      return;
    }
    delivering = false;
    nextDeliveryAt = performance.now() + cost * PACING;
    if (queued.length > 0) schedule();
    else for (const wake of settleWaiters.splice(0)) wake();
  }

  /** Waiting for every announced capture to have been delivered (tests' explicit flush). */
  const settleWaiters: (() => void)[] = [];

  function schedule(): void {
    if (scheduled || delivering) return;
    scheduled = true;
    const wait = nextDeliveryAt - performance.now();
    if (wait > 0) setTimeout(startDelivery, wait);
    else setImmediate(startDelivery);
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
    /** Announces a stored capture; it goes out with the next delivery (this turn's end, if idle). */
    captured(request: CapturedRequest): void {
      // The common case costs one map lookup: nobody watches this endpoint.
      if (!byEndpoint.has(request.endpointId)) return;
      announced += 1;
      queued.push({ request, seq: announced });
      schedule();
    },
    /** Resolves once every capture announced so far was delivered (or skipped). */
    settled(): Promise<void> {
      if (!scheduled && !delivering && queued.length === 0) return Promise.resolve();
      return new Promise((resolve) => settleWaiters.push(resolve));
    },
    /** Ends a catch-up: sends the live events held meanwhile, minus the replayed ones. */
    goLive(subscription: Subscription, replayedIds: Set<string>): boolean {
      const pending = subscription.pending ?? [];
      subscription.pending = null;
      subscription.pendingBytes = 0;
      subscription.replayed =
        replayedIds.size > 0 ? { ids: replayedIds, untilSeq: announced } : null;
      const fresh = unseen(subscription, pending);
      const serializer = subscription.session.serializer;
      return write(
        subscription.session,
        fresh.map((event) => frameText(event, serializer)),
      );
    },
  };
}

export type Fanout = ReturnType<typeof createFanout>;

/** One endpoint's events of one delivery, with their texts per serializer made once. */
interface Batch {
  events: readonly LiveEvent[];
  texts: Partial<Record<Serializer, string[]>>;
}

function batchTexts(batch: Batch, serializer: Serializer): string[] {
  let texts = batch.texts[serializer];
  if (!texts) {
    texts = batch.events.map((event) => frameText(event, serializer));
    batch.texts[serializer] = texts;
  }
  return texts;
}

/** Sends each text; the first 0 (dropped) stops it, else the last status counts. */
function sendAll(link: SocketLink, texts: readonly string[]): number {
  let status = 1;
  for (const text of texts) {
    status = link.send(text);
    if (status === 0) return 0;
  }
  return status;
}

/** Events the catch-up did not already send; forgets the replayed ids once past them. */
function unseen(subscription: Subscription, events: readonly LiveEvent[]): readonly LiveEvent[] {
  const replayed = subscription.replayed;
  if (!replayed) return events;
  const fresh = events.filter((event) => !replayed.ids.has(event.requestId));
  if (events.some((event) => event.seq > replayed.untilSeq)) subscription.replayed = null;
  return fresh;
}
