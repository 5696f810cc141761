import type { HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { OutboundResult } from "../http/outbound/outbound.model.ts";
import { isoAt } from "../shared/clock.ts";
import { concealCutTail, concealer } from "../shared/conceal.ts";
import { SealedValueError } from "../shared/sealed.ts";
import type { Admission } from "./delivery.breaker.model.ts";
import {
  type AttemptResult,
  breakerWaitUntil,
  isRetryableFailure,
  nextStep,
} from "./delivery.model.ts";
import type {
  DeliveryAttempt,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryRecord,
  DeliveryRequest,
  Prepared,
  PreparedFailure,
} from "./delivery.ports.ts";
import { type DeliveryOutcome, type DeliveryRow, toDeliveryRecord } from "./delivery.repo.ts";
import { parseRetryAfter } from "./delivery.retry.model.ts";
import { concealedFields, sentRequest } from "./delivery.sent.ts";
import { signDelivery } from "./delivery.signing.ts";
import type { OutboxDeps } from "./delivery.worker.ts";

/** How much of an answer's body an attempt keeps (decisions §6 and §8). */
export const RESPONSE_BODY_LIMIT = 65_536;

/** One attempt's outcome as the recorder writes it, with the lease it was made under. */
export interface Recording<L> {
  row: DeliveryRow;
  lease: L;
  attempt: DeliveryAttempt | null;
  /** The row's new state (status, due time, attempts, last_* fields). */
  next: Pick<DeliveryRow, "status" | "attempts" | "next_attempt_at"> & LastFields;
  /** The outcome the breaker hears; null: the breaker was not asked (it refused, or a prepare failure). */
  breakerSuccess: boolean | null;
}

/** The write that ends a recorded attempt on its row, under the lease token `lockedUntil`. */
export function finishingWrite(
  { row, next }: Recording<unknown>,
  lockedUntil: number,
  now: number,
): DeliveryOutcome {
  return {
    id: row.id,
    lockedUntil,
    wasDueAt: row.next_attempt_at,
    status: next.status as DeliveryRecord["status"],
    attempts: next.attempts,
    nextAttemptAt: next.next_attempt_at,
    statusCode: next.last_status_code,
    errorType: next.last_error_type,
    errorCode: next.last_error_code,
    errorMessage: next.last_error_message,
    latencyMs: next.last_latency_ms,
    updatedAt: isoAt(now),
  };
}

type LastFields = Pick<
  DeliveryRow,
  | "last_status_code"
  | "last_error_type"
  | "last_error_code"
  | "last_error_message"
  | "last_latency_ms"
>;

/** A delivery whose sealed secret does not open: no later try can do better. */
const SECRET_UNREADABLE: PreparedFailure = {
  errorType: "authentication_error",
  errorCode: "secret_unreadable",
  message:
    "a stored secret (signing secret or {{NAME}} value) cannot be opened with this server's key; was WEIR_SECRET_KEY changed?",
  retryable: false,
};

/**
 * The kind's request for a delivery. A sealed secret that does not open (the server key changed
 * since it was sealed) fails the delivery with an attempt saying so, instead of throwing on every
 * lease until someone looks.
 */
async function prepareOrFail(
  handlers: DeliveryKindHandlers,
  delivery: DeliveryRecord,
): Promise<Prepared> {
  try {
    return await handlers.prepare(delivery);
  } catch (error) {
    if (error instanceof SealedValueError) return { fail: SECRET_UNREADABLE };
    throw error;
  }
}

export interface AttemptRunnerOptions<L> {
  kinds: ReadonlyMap<DeliveryKind, DeliveryKindHandlers>;
  /** Asks the destination's breaker, saving its state when admitting changed it (a probe went out). */
  admit(row: DeliveryRow, now: number): Admission | Promise<Admission>;
  /** Hands an outcome to the recorder without waiting for its commit. */
  record(item: Recording<L>): void;
}

/**
 * One attempt of a claimed row, the same on either store: the destination's breaker is asked,
 * the kind builds the request, it is signed when the kind gives secrets and goes through the one
 * outbound sender, and the outcome (attempt, new state, breaker outcome) goes to the store's
 * recorder. The worker of each store (delivery.worker.ts, delivery.worker.postgres.ts) claims the
 * rows and records what this decides.
 */
export function createAttemptRunner<L>(
  deps: Pick<OutboxDeps, "clock" | "ids" | "outbound" | "config">,
  options: AttemptRunnerOptions<L>,
): (row: DeliveryRow, lease: L) => Promise<void> {
  const { kinds } = options;
  const policy = { baseMs: deps.config.retry_base_ms, capMs: deps.config.retry_cap_ms };
  const openMs = deps.config.breaker_open_ms;

  const newAttempt = (
    row: DeliveryRow,
    fields: Omit<DeliveryAttempt, "id" | "deliveryId" | "attempt" | "createdAt">,
    startedAt: number,
    attemptNumber = row.attempts + 1,
  ): DeliveryAttempt => ({
    id: deps.ids.uuid(),
    deliveryId: row.id,
    attempt: attemptNumber,
    createdAt: isoAt(startedAt),
    ...fields,
  });

  /** An attempt that ended before anything was sent (an open breaker, a failed preparation). */
  const unsentAttempt = (
    row: DeliveryRow,
    errorType: string,
    errorCode: string,
    errorMessage: string,
    now: number,
  ) =>
    newAttempt(
      row,
      {
        url: "",
        method: "",
        statusCode: null,
        responseHeaders: [],
        responseBody: "",
        latencyMs: 0,
        errorType,
        errorCode,
        errorMessage,
        sent: null,
      },
      now,
    );

  /** The breaker refused: the row waits for it, with one circuit_open attempt per wait. */
  const holdForBreaker = (row: DeliveryRow, lease: L, retryAt: number, now: number) => {
    const alreadyWaiting = row.last_error_code === "circuit_open";
    const message = "the destination's circuit breaker is open; the delivery waits for it";
    const attempt = alreadyWaiting
      ? null
      : unsentAttempt(row, "circuit_breaker_error", "circuit_open", message, now);
    return options.record({
      row,
      lease,
      attempt,
      next: {
        status: row.attempts > 0 ? "retrying" : "pending",
        attempts: row.attempts,
        next_attempt_at: breakerWaitUntil(retryAt, now, openMs),
        last_status_code: null,
        last_error_type: "circuit_breaker_error",
        last_error_code: "circuit_open",
        last_error_message: message,
        last_latency_ms: null,
      },
      breakerSuccess: null,
    });
  };

  const finishWith = (
    row: DeliveryRow,
    lease: L,
    attempt: DeliveryAttempt,
    result: AttemptResult,
    breakerSuccess: boolean | null,
  ) => {
    const attempts = row.attempts + 1;
    const step = nextStep({
      result,
      attempts,
      attemptsBeforeRequeue: row.attempts_before_requeue,
      maxRetries: row.max_retries,
      now: deps.clock.now(),
      policy,
      random: Math.random(),
    });
    return options.record({
      row,
      lease,
      attempt,
      next: {
        status: step.status,
        attempts,
        next_attempt_at: step.nextAttemptAt,
        last_status_code: attempt.statusCode,
        last_error_type: attempt.errorType,
        last_error_code: attempt.errorCode,
        last_error_message: attempt.errorMessage,
        last_latency_ms: attempt.latencyMs,
      },
      breakerSuccess,
    });
  };

  const failBeforeSending = (row: DeliveryRow, lease: L, failure: PreparedFailure, now: number) => {
    const attempt = unsentAttempt(row, failure.errorType, failure.errorCode, failure.message, now);
    const result = { success: false, retryable: failure.retryable, retryAfterMs: null };
    return finishWith(row, lease, attempt, result, null);
  };

  const send = async (
    row: DeliveryRow,
    lease: L,
    request: DeliveryRequest,
    handlers: DeliveryKindHandlers,
  ) => {
    const startedAt = deps.clock.now();
    const headers: HeaderPair[] = [...request.headers];
    if (request.signingSecrets.length > 0) {
      const signed = signDelivery({
        id: row.webhook_id,
        timestampSeconds: startedAt / 1000,
        body: request.body,
        secrets: request.signingSecrets,
      });
      for (const pair of Object.entries(signed)) headers.push(pair);
    }
    const outbound = {
      url: request.url,
      method: request.method,
      headers,
      body: request.body,
      timeoutMs: request.timeoutMs ?? deps.config.destination_timeout_ms,
    };
    const result = request.sendWith
      ? await request.sendWith(outbound)
      : await deps.outbound.send(outbound);
    const conceal = concealer(request.concealed ?? []);
    const fields = concealedFields(attemptFields(request.method, result), conceal);
    if (result.bodyTruncated) {
      fields.responseBody = concealCutTail(fields.responseBody, request.concealed ?? []);
    }
    const sent = sentRequest(headers, request.body, conceal, request.bodyIsSubject);
    const attempt = newAttempt(row, { ...fields, sent }, startedAt);
    const success = result.status !== null && result.error === null;
    const retryAfter = result.headers.find(([name]) => name.toLowerCase() === "retry-after");
    const outcome: AttemptResult = {
      success,
      retryable:
        isRetryableFailure(result.error?.code ?? null) &&
        (result.status === null || (handlers.retryableStatus?.(result.status) ?? true)),
      retryAfterMs:
        (success ? null : handlers.retryAfterMs?.(toDeliveryRecord(row, startedAt), result)) ??
        parseRetryAfter(retryAfter?.[1], deps.clock.now()),
    };
    // A refusal by the address policy says nothing about the destination's health.
    const breakerSuccess = result.error?.code === "blocked_address" ? null : success;
    return finishWith(row, lease, attempt, outcome, breakerSuccess);
  };

  const skip = (row: DeliveryRow, lease: L) =>
    options.record({
      row,
      lease,
      attempt: null,
      next: {
        status: "delivered",
        attempts: row.attempts,
        next_attempt_at: null,
        last_status_code: row.last_status_code,
        last_error_type: row.last_error_type,
        last_error_code: row.last_error_code,
        last_error_message: row.last_error_message,
        last_latency_ms: row.last_latency_ms,
      },
      breakerSuccess: null,
    });

  return async (row: DeliveryRow, lease: L): Promise<void> => {
    const handlers = kinds.get(row.kind as DeliveryKind);
    // Thrown: the lease is kept and the row runs again once it ends (the kind may register late).
    if (!handlers) throw new Error(`no handlers registered for delivery kind ${row.kind}`);
    const now = deps.clock.now();
    // SQLite answers at once; only PostgreSQL's shared breakers are awaited.
    const admitting = options.admit(row, now);
    const admission = admitting instanceof Promise ? await admitting : admitting;
    if (!admission.allowed) {
      await holdForBreaker(row, lease, admission.retryAt, now);
      return;
    }
    const prepared = await prepareOrFail(handlers, toDeliveryRecord(row, now));
    if ("skip" in prepared) await skip(row, lease);
    else if ("fail" in prepared) await failBeforeSending(row, lease, prepared.fail, now);
    else await send(row, lease, prepared.send, handlers);
  };
}

/** An attempt's recorded fields from what the sender returned. */
function attemptFields(method: string, result: OutboundResult) {
  const answered = result.status !== null;
  return {
    url: result.url,
    method,
    statusCode: result.status,
    responseHeaders: result.headers,
    responseBody: answered
      ? new TextDecoder().decode(result.body.subarray(0, RESPONSE_BODY_LIMIT))
      : "",
    latencyMs: Math.round(result.latencyMs),
    errorType: result.error?.type ?? null,
    errorCode: result.error?.code ?? null,
    errorMessage: result.error?.message ?? null,
  };
}
