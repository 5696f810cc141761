import type { SQLQueryBindings } from "bun:sqlite";
import type { DbHandle, UnitOfWork } from "../db/db.tx.ts";
import type { HeaderPair } from "../http/outbound/outbound.headers.ts";
import { isoAt } from "../shared/clock.ts";
import { type BreakerState, closedBreaker } from "./delivery.breaker.model.ts";
import { createQueueGauges } from "./delivery.gauges.ts";
import type {
  DeliveryAttempt,
  DeliveryKind,
  DeliveryRecord,
  DeliveryStatus,
  SentRequest,
} from "./delivery.ports.ts";

/** A deliveries row as SQLite returns it (also what the due-queue's RETURNING * hands over). */
export interface DeliveryRow {
  id: string;
  kind: string;
  organization_id: string | null;
  subject_id: string;
  destination_key: string;
  webhook_id: string;
  status: string;
  attempts: number;
  max_retries: number;
  attempts_before_requeue: number;
  next_attempt_at: number | null;
  locked_until: number | null;
  last_status_code: number | null;
  last_error_type: string | null;
  last_error_code: string | null;
  last_error_message: string | null;
  last_latency_ms: number | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  attempt: number;
  url: string;
  method: string;
  status_code: number | null;
  response_headers: string;
  response_body: string;
  latency_ms: number;
  error_type: string | null;
  error_code: string | null;
  error_message: string | null;
  sent_request: string | null;
  created_at: string;
}

/** The outcome of one attempt as written to the delivery row. */
export interface DeliveryOutcome {
  id: string;
  /** The lease token: the write is refused when another worker holds the row now. */
  lockedUntil: number;
  /** The row's due time when it was claimed (what the queue gauges move it from). */
  wasDueAt: number | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  statusCode: number | null;
  errorType: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number | null;
  updatedAt: string;
}

/**
 * What a scrape reads of the table itself (?1 now, ?2 the next second's start): the rows due
 * later within this second (a range of the due index), and the due rows under a live lease (the
 * partial index holds only leased rows). Neither grows with the backlog.
 */
export const SCRAPE_SQL = `SELECT
  (SELECT count(*) FROM deliveries WHERE next_attempt_at > ?1 AND next_attempt_at < ?2) AS later,
  (SELECT count(*) FROM deliveries WHERE locked_until > ?1 AND next_attempt_at <= ?1) AS leased`;

/** Outbox SQL: deliveries, their attempts and the breakers, over prepared statements. */
export function createDeliveryRepo(db: DbHandle & Pick<UnitOfWork, "afterCommit">) {
  const q = <R, P extends SQLQueryBindings[] = SQLQueryBindings[]>(sql: string) =>
    db.sqlite.prepare<R, P>(sql);
  const insertDelivery = q(
    `INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key, webhook_id,
       status, attempts, max_retries, next_attempt_at, locked_until, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, NULL, ?, ?)`,
  );
  const insertAttempt = q(
    `INSERT INTO delivery_attempts (id, delivery_id, attempt, url, method, status_code,
       response_headers, response_body, latency_ms, error_type, error_code, error_message,
       sent_request, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finish = q(
    `UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, locked_until = NULL,
       last_status_code = ?, last_error_type = ?, last_error_code = ?, last_error_message = ?,
       last_latency_ms = ?, updated_at = ?
     WHERE id = ? AND locked_until = ?`,
  );
  const byId = q<DeliveryRow, [string]>("SELECT * FROM deliveries WHERE id = ?");
  const attemptsOf = q<AttemptRow, [string, number]>(
    "SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY created_at DESC, attempt DESC, id DESC LIMIT ?",
  );
  const breakerOf = q<{ state: string }, [string]>(
    "SELECT state FROM delivery_breakers WHERE destination_key = ?",
  );
  const saveBreaker = q(
    `INSERT INTO delivery_breakers (destination_key, phase, state, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (destination_key) DO UPDATE SET phase = excluded.phase, state = excluded.state,
       updated_at = excluded.updated_at`,
  );
  /**
   * Breaker states as last written: every attempt reads its destination's breaker, and one server
   * owns its data dir (a lock file), so the table is only read on a miss (after a restart).
   */
  const breakers = new Map<string, BreakerState>();
  const bySubject = q<DeliveryRow, [string, string]>(
    "SELECT * FROM deliveries WHERE kind = ? AND subject_id = ? ORDER BY created_at, id",
  );
  const scrape = q<{ later: number; leased: number }, [number, number]>(SCRAPE_SQL);
  const queuedBySecond = q<{ second: number; n: number }, []>(
    `SELECT CAST(next_attempt_at / 1000 AS INTEGER) AS second, count(*) AS n FROM deliveries
      WHERE next_attempt_at IS NOT NULL GROUP BY 1`,
  );
  const forget = q<{ next_attempt_at: number | null }, [string, string]>(
    `DELETE FROM deliveries WHERE kind = ? AND subject_id IN (SELECT value FROM json_each(?))
     RETURNING next_attempt_at`,
  );
  const gauges = createQueueGauges();
  /** Moves a row's due time in the gauges once the open transaction commits. */
  const track = (from: number | null, to: number | null, rows = 1) => {
    if (from !== to) db.afterCommit(() => gauges.move(from, to, rows));
  };
  const breakerPhases = q<{ phase: string; n: number }, []>(
    "SELECT phase, n FROM delivery_breaker_phases",
  );
  const requeueFailed = q(
    `UPDATE deliveries SET status = 'retrying', next_attempt_at = ?, locked_until = NULL,
       attempts_before_requeue = attempts, updated_at = ?
     WHERE kind = ? AND subject_id = ? AND next_attempt_at IS NULL AND (status = 'failed' OR ?)`,
  );

  return {
    insert(row: DeliveryRow): void {
      insertDelivery.run(
        row.id,
        row.kind,
        row.organization_id,
        row.subject_id,
        row.destination_key,
        row.webhook_id,
        row.max_retries,
        row.next_attempt_at,
        row.created_at,
        row.updated_at,
      );
      track(null, row.next_attempt_at);
    },
    find: (id: string): DeliveryRow | null => byId.get(id),
    insertAttempt(attempt: DeliveryAttempt): void {
      insertAttempt.run(
        attempt.id,
        attempt.deliveryId,
        attempt.attempt,
        attempt.url,
        attempt.method,
        attempt.statusCode,
        JSON.stringify(attempt.responseHeaders),
        attempt.responseBody,
        attempt.latencyMs,
        attempt.errorType,
        attempt.errorCode,
        attempt.errorMessage,
        attempt.sent ? JSON.stringify(attempt.sent) : null,
        attempt.createdAt,
      );
    },
    /** Writes an attempt's outcome and lets go of the lease; false when the lease was lost. */
    finish(o: DeliveryOutcome): boolean {
      const result = finish.run(
        o.status,
        o.attempts,
        o.nextAttemptAt,
        o.statusCode,
        o.errorType,
        o.errorCode,
        o.errorMessage,
        o.latencyMs,
        o.updatedAt,
        o.id,
        o.lockedUntil,
      );
      if (result.changes !== 1) return false;
      track(o.wasDueAt, o.nextAttemptAt);
      return true;
    },
    listAttempts: (deliveryId: string, limit: number): DeliveryAttempt[] =>
      attemptsOf.all(deliveryId, limit).map(toAttempt),
    listBySubject(kind: DeliveryKind, subjectIds: readonly string[]): DeliveryRow[] {
      if (subjectIds.length === 0) return [];
      // One subject is the common case (every attempt's owner asks for its siblings): prepared.
      if (subjectIds.length === 1) return bySubject.all(kind, subjectIds[0] as string);
      return db.sqlite
        .query<DeliveryRow, [string, string]>(
          `SELECT * FROM deliveries WHERE kind = ? AND subject_id IN (SELECT value FROM json_each(?))
           ORDER BY created_at, id`,
        )
        .all(kind, JSON.stringify(subjectIds));
    },
    breaker(key: string): BreakerState {
      const known = breakers.get(key);
      if (known) return known;
      const row = breakerOf.get(key);
      const state = row ? (JSON.parse(row.state) as BreakerState) : closedBreaker();
      breakers.set(key, state);
      return state;
    },
    saveBreaker(key: string, state: BreakerState, now: number): void {
      saveBreaker.run(key, state.phase, JSON.stringify(state), isoAt(now));
      breakers.set(key, state);
    },
    /** Removes the deliveries of some subjects of a kind; their attempts go by cascade. */
    forgetSubjects(kind: DeliveryKind, subjectIds: readonly string[]): number {
      if (subjectIds.length === 0) return 0;
      const gone = forget.all(kind, JSON.stringify(subjectIds));
      for (const row of gone) track(row.next_attempt_at, null);
      return gone.length;
    },
    /** Forgets a destination's circuit breaker. */
    forgetBreaker(key: string): void {
      db.sqlite.run("DELETE FROM delivery_breakers WHERE destination_key = ?", [key]);
      breakers.delete(key);
    },
    /**
     * Sets the queue gauges from the table: once, before the first write they follow (the room
     * does it when it is built). Reads every queued row's due time: the one scan the gauges take.
     */
    rebuildGauges(): void {
      gauges.rebuild(queuedBySecond.all());
    },
    /**
     * Queue figures for /metrics, however long the backlog: queued (not ended) from the gauges;
     * due now (not ended, due, no live lease) as queued minus what is due later (whole seconds
     * from the gauges, the rest of this second from the due index) minus the leased due rows;
     * breakers by phase as their triggers keep them.
     */
    stats(now: number) {
      const nextSecond = (Math.floor(now / 1000) + 1) * 1000;
      const read = scrape.get(now, nextSecond) ?? { later: 0, leased: 0 };
      const queued = gauges.queued();
      const due = queued - gauges.dueAfterSecondOf(now) - read.later - read.leased;
      return { queued, due, breakers: breakerPhases.all() };
    },
    /** Moves rows between due times in the queue gauges once the open transaction commits. */
    moveGauges: track,
    requeue(kind: DeliveryKind, subjectId: string, includeEnded: boolean, now: number): number {
      const { changes } = requeueFailed.run(now, isoAt(now), kind, subjectId, includeEnded ? 1 : 0);
      if (changes > 0) track(null, now, changes);
      return changes;
    },
  };
}

export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;

/**
 * A row as the kind's owner sees it. A row under a live lease is `delivering`: the lease is the
 * state, so claiming costs no extra write.
 */
export function toDeliveryRecord(row: DeliveryRow, now: number): DeliveryRecord {
  return {
    id: row.id,
    kind: row.kind as DeliveryKind,
    organizationId: row.organization_id,
    subjectId: row.subject_id,
    destinationKey: row.destination_key,
    webhookId: row.webhook_id,
    status: recordStatus(row.status, row.locked_until, now),
    attempts: row.attempts,
    maxRetries: row.max_retries,
    nextAttemptAt: row.next_attempt_at === null ? null : isoAt(row.next_attempt_at),
    lastStatusCode: row.last_status_code,
    lastErrorType: row.last_error_type,
    lastErrorCode: row.last_error_code,
    lastErrorMessage: row.last_error_message,
    lastLatencyMs: row.last_latency_ms,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The stored status, or `delivering` while a live lease holds a row that has not ended. */
function recordStatus(status: string, lockedUntil: number | null, now: number): DeliveryStatus {
  const leased = lockedUntil !== null && lockedUntil > now;
  const ended = status === "delivered" || status === "failed";
  return leased && !ended ? "delivering" : (status as DeliveryStatus);
}

export function toAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    url: row.url,
    method: row.method,
    statusCode: row.status_code,
    responseHeaders: JSON.parse(row.response_headers) as HeaderPair[],
    responseBody: row.response_body,
    latencyMs: row.latency_ms,
    errorType: row.error_type,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    sent: row.sent_request ? (JSON.parse(row.sent_request) as SentRequest) : null,
    createdAt: row.created_at,
  };
}
