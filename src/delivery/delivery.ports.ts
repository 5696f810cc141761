import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { OutboundRequest, OutboundResult } from "../http/outbound/outbound.model.ts";
import type { Concealment } from "../shared/conceal.ts";

/**
 * What the delivery room lends other rooms, and what they lend it back. Every outbound webhook
 * (an endpoint's forward, an event to a bridge's destination, an alert) is a row of the delivery
 * outbox, written by its cause's transaction through `enqueue`; the room sends it, retries it,
 * records every attempt, keeps one circuit breaker per destination key and tells the kind's owner
 * how it ended. A kind's owner (capture/endpoints for forwards, routing for events, issues for
 * alerts) registers the handlers that turn a row into a request and hear its outcome.
 */

/** Who owns a delivery and knows how to build its request. */
export type DeliveryKind = "forward" | "event" | "alert" | "status_mail";

/** The states of decisions.md §8 and the delivery issue, as stored. */
export type DeliveryStatus = "pending" | "delivering" | "delivered" | "retrying" | "failed";

/** What a cause writes, in its own transaction, to have something delivered. */
export interface NewDelivery {
  kind: DeliveryKind;
  organizationId: string | null;
  /** The kind's own reference (forward: the captured request id; event: the event id; ...). */
  subjectId: string;
  /**
   * The breaker and fairness key: deliveries with one key share a circuit breaker and a
   * per-key concurrency limit (event: the destination id; forward: `forward:<endpoint id>`).
   */
  destinationKey: string;
  /** Retries after the first attempt (decisions §12: N retries, N + 1 attempts at most). */
  maxRetries: number;
  /** Default now: a delivery may be scheduled for later. */
  dueAt?: number;
}

/** The request one attempt sends, built by the kind's owner at send time. */
export interface DeliveryRequest {
  url: string;
  method: string;
  headers: HeaderPair[];
  body: Uint8Array | string;
  /**
   * Standard Webhooks secrets (`whsec_…`), current first, then one replaced less than 24 h ago;
   * empty: the attempt is not signed (forwards, chat destinations).
   */
  signingSecrets: string[];
  /** Overrides WEIR_DESTINATION_TIMEOUT_MS for this kind (forwards keep WEIR_FORWARD_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * Secret values filled into this request (`{{NAME}}` templates, a bot token) and what to show
   * instead: the attempt's URL, sent request, error message and answer are stored concealed.
   */
  concealed?: readonly Concealment[];
  /**
   * The body is the subject's own stored body, byte for byte (an event sent untransformed): an
   * attempt's record keeps none of it, and readers take it from the subject.
   */
  bodyIsSubject?: boolean;
  /**
   * Sends what is not HTTP (an alert by email, through the operator's mail server) in place of
   * the outbound sender; its result is recorded, retried and shown as an answer would be.
   */
  sendWith?(request: OutboundRequest): Promise<OutboundResult>;
}

/** The request an attempt sent, as stored and shown: secrets concealed, the body cut. */
export interface SentRequest {
  /** Every header as written by Weir, the signature headers included. */
  headers: HeaderPair[];
  /**
   * The first 64 KiB of the body: UTF-8 text, or base64 when it is not text; null when it was the
   * subject's own stored body (`bodyIsSubject`), which a reader shows from the subject.
   */
  body: string | null;
  bodyEncoding: "utf8" | "base64";
  bodyTruncated: boolean;
  /** The whole body's size in bytes. */
  bodySize: number;
}

/** A failure decided before anything is sent (decisions §8 values), recorded as an attempt. */
export interface PreparedFailure {
  errorType: "authentication_error" | "transformation_error" | "network_error";
  errorCode: string;
  message: string;
  /** false: no retry would help (e.g. the destination was deleted): fail now. */
  retryable: boolean;
}

/**
 * What the kind's owner makes of a due row: the request to send; a failure recorded as an attempt
 * (a missing secret, a transformation error); or `skip` when there is nothing to send any more
 * (the delivery ends as delivered-nothing: e.g. a transformation returned null).
 */
export type Prepared = { send: DeliveryRequest } | { fail: PreparedFailure } | { skip: "filtered" };

/** One recorded attempt, as the kind's owner and the API see it. */
export interface DeliveryAttempt {
  id: string;
  deliveryId: string;
  attempt: number;
  url: string;
  method: string;
  statusCode: number | null;
  responseHeaders: HeaderPair[];
  /** The first 64 KiB of the answer. */
  responseBody: string;
  latencyMs: number;
  errorType: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** What was sent; null when nothing was (an open breaker, a failed preparation). */
  sent?: SentRequest | null;
  createdAt: string;
}

/** A delivery row as the kind's owner sees it. */
export interface DeliveryRecord {
  id: string;
  kind: DeliveryKind;
  organizationId: string | null;
  subjectId: string;
  destinationKey: string;
  /** Standard Webhooks `webhook-id`: the same on every retry of this delivery. */
  webhookId: string;
  status: DeliveryStatus;
  attempts: number;
  maxRetries: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastErrorType: string | null;
  lastErrorCode: string | null;
  lastErrorMessage: string | null;
  lastLatencyMs: number | null;
  createdAt: string;
  updatedAt: string;
}

/** What a manual retry did to one delivery (decisions.md §15). */
export interface RetriedDelivery {
  id: string;
  subjectId: string;
  destinationKey: string;
  /**
   * requeued: it had failed and is due now with a fresh retry budget; pulled_forward: it was
   * waiting for a retry (or for its destination's breaker) and is due now, attempts unchanged;
   * unchanged: it was delivered, is being sent, or is due already.
   */
  action: "requeued" | "pulled_forward" | "unchanged";
}

/** An attempt with the destination key of its delivery (an event's attempts timeline). */
export type SubjectAttempt = DeliveryAttempt & { destinationKey: string };

/** A failed answer as a kind's owner may read it for a retry hint. */
export interface DeliveryResponse {
  status: number | null;
  headers: HeaderPair[];
  body: Uint8Array;
}

/** Handlers a kind's owner registers. */
export interface DeliveryKindHandlers {
  /** Builds the request for a due delivery (may run a transformation, substitute secrets). */
  prepare(delivery: DeliveryRecord): Promise<Prepared>;
  /**
   * Called inside the transaction that records an attempt, so the owner's own state (an event's
   * status, an issue's count) commits with it. Runs for every attempt, success or not.
   */
  onAttempt?(tx: TxHandle, delivery: DeliveryRecord, attempt: DeliveryAttempt): void;
  /**
   * Called inside the transaction that ends a delivery with nothing sent (`prepare` said
   * `skip`): no attempt is recorded, but the owner may count it as ended.
   */
  onSkipped?(tx: TxHandle, delivery: DeliveryRecord): void;
  /** `onAttempt` on PostgreSQL: inside the `sql.begin` transaction that records the attempt. */
  onAttemptPostgres?(
    tx: PostgresTx,
    delivery: DeliveryRecord,
    attempt: DeliveryAttempt,
  ): Promise<void>;
  /** `onSkipped` on PostgreSQL, inside the transaction that ends the delivery. */
  onSkippedPostgres?(tx: PostgresTx, delivery: DeliveryRecord): Promise<void>;
  /**
   * Whether a failed attempt that got an answer may be retried; default (absent): every non-2xx
   * is (decisions §8). Forwards retry only 408, 429 and 5xx.
   */
  retryableStatus?(statusCode: number): boolean;
  /**
   * The wait the destination asked for in a failed answer, in ms, when it says so in its own way
   * (e.g. Telegram's `parameters.retry_after` in the body); null or absent: the standard
   * `Retry-After` header is read.
   */
  retryAfterMs?(delivery: DeliveryRecord, response: DeliveryResponse): number | null;
}

/**
 * Hears every recorded attempt of every kind, inside the transaction that records it (after the
 * kind's own `onAttempt`), so what it writes commits with the attempt.
 */
export type AttemptObserver = (
  tx: TxHandle,
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
) => void;

/** `AttemptObserver` on PostgreSQL: inside the `sql.begin` transaction that records the attempt. */
export type AttemptObserverPostgres = (
  tx: PostgresTx,
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
) => Promise<void>;

/** The delivery room's ports. */
export interface DeliveryPorts {
  /** Registers the handlers of a kind (each kind once, while the app is built). */
  registerKind(kind: DeliveryKind, handlers: DeliveryKindHandlers): void;
  /**
   * Registers an observer of every attempt of every kind (while the app is built), also of one
   * whose lease was lost before it was recorded (its kind's owner does not hear that one: the
   * row is the new owner's). An observer runs in its own savepoint: one that throws undoes only
   * its own writes and is logged; the attempt stays recorded.
   */
  observeAttempts(observer: AttemptObserver): void;
  /** `observeAttempts` on PostgreSQL (a room running on either store registers both). */
  observeAttemptsPostgres?(observer: AttemptObserverPostgres): void;
  /**
   * Writes delivery rows inside the caller's transaction and returns them (ids and webhook ids).
   * Call `wake()` after that transaction commits so they are sent at once, not at the next poll.
   */
  enqueue(tx: TxHandle, deliveries: readonly NewDelivery[]): DeliveryRecord[];
  /**
   * `enqueue` on PostgreSQL: the rows written inside the caller's `sql.begin` transaction. Lent
   * only by a room running on PostgreSQL (absent on SQLite, where `enqueue` is the one way).
   */
  enqueuePostgres?(tx: PostgresTx, deliveries: readonly NewDelivery[]): Promise<DeliveryRecord[]>;
  /** Claims what is due at the end of this turn (after the caller's commit). */
  wake(): void;
  /**
   * An ingest commit just held `size` requests. Full batches mean the event loop is saturated
   * with ingest: with WEIR_DELIVERY_GIVE_WAY_FLOOR set, deliveries then give way down to that
   * floor until batches shrink again (delivery.give-way.model.ts), so a burst is accepted first
   * and delivered right after.
   */
  ingestCommitted(size: number): void;
  /**
   * Whether a destination key's circuit breaker is open or half-open (no probe has closed it
   * since it opened): what a health state calls `down`. Answered from memory on either store
   * (on PostgreSQL as of the node's last look at the shared breakers, at most a few seconds old).
   */
  breakerOpen(destinationKey: string): boolean;
  /** The deliveries of some subjects of a kind, oldest first (e.g. an event's). */
  listBySubject(kind: DeliveryKind, subjectIds: readonly string[]): Promise<DeliveryRecord[]>;
  /** The attempts of one delivery, newest first. */
  listAttempts(deliveryId: string, limit: number): Promise<DeliveryAttempt[]>;
  /**
   * Makes the failed deliveries of a subject (with `includeEnded`, every ended one) due now
   * again, keeping their webhook-id and giving them a fresh retry budget; returns how many.
   */
  requeue(
    tx: TxHandle,
    kind: DeliveryKind,
    subjectId: string,
    options?: { includeEnded?: boolean },
  ): number;
  /** `requeue` on PostgreSQL, in the caller's `sql.begin` transaction (lent on PostgreSQL only). */
  requeuePostgres?(
    tx: PostgresTx,
    kind: DeliveryKind,
    subjectId: string,
    options?: { includeEnded?: boolean },
  ): Promise<number>;
  /**
   * A manual retry of some subjects of a kind (optionally only their deliveries to one key), in
   * the caller's transaction: failed deliveries are requeued as `requeue` does, waiting ones are
   * made due now with their attempts unchanged, and an open breaker of a key it touched lets its
   * probe go now (an operator's retry says the target may be back). Call `wake()` after commit.
   */
  retryNow(
    tx: TxHandle,
    kind: DeliveryKind,
    subjectIds: readonly string[],
    options?: { destinationKey?: string },
  ): RetriedDelivery[];
  /** `retryNow` on PostgreSQL, in the caller's `sql.begin` transaction (lent on PostgreSQL only). */
  retryNowPostgres?(
    tx: PostgresTx,
    kind: DeliveryKind,
    subjectIds: readonly string[],
    options?: { destinationKey?: string },
  ): Promise<RetriedDelivery[]>;
  /** A page of the attempts of a subject's deliveries, oldest first, and their total. */
  attemptsOfSubject(
    kind: DeliveryKind,
    subjectId: string,
    page: { limit: number; offset: number },
  ): Promise<{ attempts: SubjectAttempt[]; total: number }>;
  /**
   * Deletes every delivery of these subjects of a kind, with their attempts, in the caller's
   * transaction: the owner's retention removed the subjects (an event, a captured request), and
   * their deliveries go with them (decisions §11). Returns how many deliveries went.
   */
  forgetSubjects(tx: TxHandle, kind: DeliveryKind, subjectIds: readonly string[]): number;
  /** `forgetSubjects` on PostgreSQL, in the caller's `sql.begin` transaction (PostgreSQL only). */
  forgetSubjectsPostgres?(
    tx: PostgresTx,
    kind: DeliveryKind,
    subjectIds: readonly string[],
  ): Promise<number>;
}
