import { createDueQueue, type DueQueue, type Lease } from "../db/db.due-queue.ts";
import { createGroupCommit } from "../db/db.group-commit.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import type { HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { OutboundResult } from "../http/outbound/outbound.model.ts";
import { isoAt } from "../shared/clock.ts";
import { concealCutTail, concealer } from "../shared/conceal.ts";
import { SealedValueError } from "../shared/sealed.ts";
import { admit, type BreakerState, record, releaseStaleProbe } from "./delivery.breaker.model.ts";
import { createFailureLog, failedTry } from "./delivery.failure-log.ts";
import {
  deliveryLimit,
  giveWayPolicy,
  type IngestPressure,
  NO_PRESSURE,
  observeBatch,
} from "./delivery.give-way.model.ts";
import {
  type AttemptResult,
  breakerWaitUntil,
  isRetryableFailure,
  nextStep,
} from "./delivery.model.ts";
import type {
  AttemptObserver,
  DeliveryAttempt,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryRecord,
  DeliveryRequest,
  Prepared,
  PreparedFailure,
} from "./delivery.ports.ts";
import { type DeliveryRepo, type DeliveryRow, toDeliveryRecord } from "./delivery.repo.ts";
import { parseRetryAfter } from "./delivery.retry.model.ts";
import { concealedFields, sentRequest } from "./delivery.sent.ts";
import { signDelivery } from "./delivery.signing.ts";

/** How much of an answer's body an attempt keeps (decisions §6 and §8). */
export const RESPONSE_BODY_LIMIT = 65_536;

export type OutboxDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "bus" | "outbound" | "scheduler" | "config"
>;

/** One attempt's writes, committed with others in one group-commit transaction. */
interface Recording {
  row: DeliveryRow;
  lease: Lease;
  attempt: DeliveryAttempt | null;
  /** The row's new state (status, due time, attempts, last_* fields). */
  next: Pick<DeliveryRow, "status" | "attempts" | "next_attempt_at"> & LastFields;
  /** The outcome the breaker hears; null: the breaker was not asked (it refused, or a prepare failure). */
  breakerSuccess: boolean | null;
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

/**
 * The outbox's sending half: a due-queue over `deliveries` keyed by destination_key claims due
 * rows with a lease; each row asks its destination's breaker, has its kind build the request,
 * is signed when the kind gives secrets, goes through the one outbound sender, and its attempt,
 * new state, breaker outcome and the kind's own writes commit in ONE transaction, shared with
 * the other attempts that ended in the same turn (group commit: one fsync per batch).
 */
export function createDeliveryWorker(
  deps: OutboxDeps,
  repo: DeliveryRepo,
  kinds: ReadonlyMap<DeliveryKind, DeliveryKindHandlers>,
  observers: readonly AttemptObserver[] = [],
) {
  const log = deps.logger.child({ scope: "delivery" });
  const logFailure = createFailureLog(log, deps.clock);
  const policy = { baseMs: deps.config.retry_base_ms, capMs: deps.config.retry_cap_ms };
  const openMs = deps.config.breaker_open_ms;
  const giveWay = giveWayPolicy(
    deps.config.delivery_concurrency,
    deps.config.delivery_give_way_floor,
  );
  let pressure: IngestPressure = NO_PRESSURE;

  /** Breaker states an attempt batch moved, written once per destination at the batch's end. */
  type BreakerMoves = Map<string, BreakerState>;

  const writeRecording = (
    item: Recording,
    tx: TxHandle,
    moved: BreakerMoves,
  ): DeliveryRecord | null => {
    const now = deps.clock.now();
    const { row, next } = item;
    const stored = repo.finish({
      id: row.id,
      lockedUntil: item.lease.until,
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
    });
    if (!stored && !repo.find(row.id)) return null; // deleted meanwhile (retention): nothing to record
    if (item.attempt) repo.insertAttempt(item.attempt);
    if (item.breakerSuccess !== null) {
      const key = row.destination_key;
      const state = moved.get(key) ?? repo.breaker(key);
      moved.set(key, record(state, item.breakerSuccess, now, openMs));
    }
    if (!stored) {
      log.warn("lease lost before the attempt was recorded; the new owner decides", { id: row.id });
      return null;
    }
    const updated = toDeliveryRecord(
      { ...row, ...next, locked_until: null, updated_at: isoAt(now) },
      now,
    );
    if (item.attempt) hearAttempt(tx, updated, item.attempt);
    else if (updated.status === "delivered") hearSkip(tx, updated);
    return updated;
  };

  /** The kind's owner, then every observer, each in its own savepoint: one failing undoes only itself. */
  const hearAttempt = (tx: TxHandle, delivery: DeliveryRecord, attempt: DeliveryAttempt) => {
    const onAttempt = kinds.get(delivery.kind)?.onAttempt;
    const listeners = onAttempt ? [onAttempt, ...observers] : observers;
    for (const listener of listeners) {
      try {
        tx.savepoint((inner) => listener(inner, delivery, attempt));
      } catch (error) {
        log.error("a delivery attempt's listener failed; its writes were undone", {
          id: delivery.id,
          error,
        });
      }
    }
  };

  /** A delivery ended with nothing sent: its owner hears it in a savepoint of its own. */
  const hearSkip = (tx: TxHandle, delivery: DeliveryRecord) => {
    const onSkipped = kinds.get(delivery.kind)?.onSkipped;
    if (!onSkipped) return;
    try {
      tx.savepoint((inner) => onSkipped(inner, delivery));
    } catch (error) {
      log.error("a skipped delivery's listener failed; its writes were undone", {
        id: delivery.id,
        error,
      });
    }
  };

  /** Attempts since start by kind and outcome (`success` or the §8 error_type), for /metrics. */
  const outcomes = new Map<string, number>();
  const count = (attempt: DeliveryAttempt, kind: string) => {
    const key = `${kind}\u0000${attempt.errorType ?? "success"}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  };

  const recorder = createGroupCommit<Recording, DeliveryRecord | null>({
    tx: deps.db.tx,
    // One transaction per turn with ingest's batch: one fsync for both, not one each.
    turn: deps.db.turn,
    commit(batch, tx) {
      const moved: BreakerMoves = new Map();
      const results = batch.map((item) => writeRecording(item, tx, moved));
      const now = deps.clock.now();
      for (const [key, state] of moved) repo.saveBreaker(key, state, now);
      return results;
    },
    onCommitted(batch, results) {
      for (const item of batch) {
        if (item.next.next_attempt_at !== null)
          queue.rearm(item.row.destination_key, item.row.organization_id);
      }
      for (let i = 0; i < batch.length; i++) {
        const delivery = results[i];
        const attempt = batch[i]?.attempt;
        if (!delivery || !attempt) continue;
        count(attempt, delivery.kind);
        if (attempt.errorType !== null) logFailure(failedTry(delivery, attempt));
        deps.bus.publish("delivery.attempted", { delivery, attempt });
      }
    },
    onCommittedError: (error) => log.error("publishing delivery attempts failed", { error }),
  });

  /** Outcomes submitted and not yet committed (stop waits for them). */
  const uncommitted = new Set<Promise<unknown>>();
  /**
   * Hands an outcome to the group commit without waiting for it: the row keeps its lease until
   * the commit, so nobody else claims it meanwhile, and its slot is free for the next row at
   * once (the fsync is not part of an attempt's time). A failed commit leaves the lease, so the
   * row runs again when it ends: at-least-once, as after a crash.
   */
  const recordLater = (item: Recording): void => {
    const committing = recorder.submit(item).catch((error) =>
      log.error("recording a delivery attempt failed; the row runs again when its lease ends", {
        id: item.row.id,
        error,
      }),
    );
    uncommitted.add(committing);
    committing.finally(() => uncommitted.delete(committing));
  };

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
  const holdForBreaker = (row: DeliveryRow, lease: Lease, retryAt: number, now: number) => {
    const alreadyWaiting = row.last_error_code === "circuit_open";
    const message = "the destination's circuit breaker is open; the delivery waits for it";
    const attempt = alreadyWaiting
      ? null
      : unsentAttempt(row, "circuit_breaker_error", "circuit_open", message, now);
    return recordLater({
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

  /** Asks the destination's breaker; saves the state when admitting changed it (a probe went out). */
  const admitted = (row: DeliveryRow, now: number) => {
    const stored = repo.breaker(row.destination_key);
    const state = releaseStaleProbe(stored, now, openMs);
    const admission = admit(state, now);
    if (admission.state !== stored) {
      deps.db.tx(() => repo.saveBreaker(row.destination_key, admission.state, now));
    }
    return admission;
  };

  const finishWith = (
    row: DeliveryRow,
    lease: Lease,
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
    return recordLater({
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

  const failBeforeSending = (
    row: DeliveryRow,
    lease: Lease,
    failure: PreparedFailure,
    now: number,
  ) => {
    const attempt = unsentAttempt(row, failure.errorType, failure.errorCode, failure.message, now);
    const result = { success: false, retryable: failure.retryable, retryAfterMs: null };
    return finishWith(row, lease, attempt, result, null);
  };

  const send = async (
    row: DeliveryRow,
    lease: Lease,
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

  const skip = (row: DeliveryRow, lease: Lease) =>
    recordLater({
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

  const run = async (row: DeliveryRow, lease: Lease): Promise<void> => {
    const handlers = kinds.get(row.kind as DeliveryKind);
    // Thrown: the lease is kept and the row runs again once it ends (the kind may register late).
    if (!handlers) throw new Error(`no handlers registered for delivery kind ${row.kind}`);
    const now = deps.clock.now();
    const admission = admitted(row, now);
    if (!admission.allowed) {
      await holdForBreaker(row, lease, admission.retryAt, now);
      return;
    }
    const prepared = await prepareOrFail(handlers, toDeliveryRecord(row, now));
    if ("skip" in prepared) await skip(row, lease);
    else if ("fail" in prepared) await failBeforeSending(row, lease, prepared.fail, now);
    else await send(row, lease, prepared.send, handlers);
  };

  const queue: DueQueue = createDueQueue({
    name: "delivery",
    db: deps.db,
    // Organizations share the slots fairly: one's slow destinations never hold another's rows.
    table: { table: "deliveries", key: "destination_key", group: "organization_id" },
    clock: deps.clock,
    scheduler: deps.scheduler,
    logger: deps.logger,
    run: (row, lease) => run(row as unknown as DeliveryRow, lease),
    concurrency: () => deliveryLimit(pressure, deps.clock.now(), giveWay),
    perKey: deps.config.delivery_per_destination,
    // Longer than the slowest attempt, so a live attempt never loses its row (leases are extended
    // too); short enough that a crashed process's rows are picked up soon after a restart.
    leaseMs: leaseFor(deps.config),
    // Only `weir serve` runs the worker, and its data dir lock admits one server at a time.
    soleWorker: true,
  });

  return {
    queue,
    /** An ingest commit held `size` requests: the pressure deliveries give way to. */
    ingestCommitted(size: number): void {
      pressure = observeBatch(pressure, size, deps.clock.now(), giveWay);
    },
    /** Attempts by kind and outcome since start: [kind, outcome, count]. */
    outcomes: () =>
      [...outcomes].map(([key, n]) => [...key.split("\u0000"), n] as [string, string, number]),
    async stop(): Promise<void> {
      await queue.stop();
      recorder.close();
      await Promise.all([...uncommitted]);
    },
  };
}

/** Twice the longest attempt deadline, at least 5 s. */
export function leaseFor(config: OutboxDeps["config"]): number {
  return Math.max(5_000, 2 * Math.max(config.destination_timeout_ms, config.forward_timeout_ms));
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
