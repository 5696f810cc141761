import type { Db } from "../db/db.open.ts";
import { type HeaderPair, headerRecord } from "../http/outbound/outbound.headers.ts";
import type { DeliveryAttempt } from "./delivery.ports.ts";
import type { DeliveryRepo, DeliveryRow } from "./delivery.repo.ts";
import type { ForwardRecord } from "./forwards.model.ts";
import type { ForwardsStore } from "./forwards.store.ts";

export interface ForwardAttemptRow {
  id: string;
  request_id: string;
  url: string;
  method: string;
  status_code: number | null;
  response_headers: string;
  response_body: string;
  latency_ms: number;
  error_code: string | null;
  error_message: string | null;
  attempt: number;
  created_at: string;
}

/**
 * Forward records (decisions.md §6) are the attempts of a request's `forward` deliveries; a
 * breaker's wait is not a try and is not listed. Replays are deliveries of their own, recorded
 * as they are sent.
 */
export function createForwardsRepo(db: Db, deliveries: DeliveryRepo) {
  const tries = `FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
    WHERE d.kind = 'forward' AND d.subject_id = ?
      AND (a.error_type IS NULL OR a.error_type <> 'circuit_breaker_error')`;
  const page = db.sqlite.prepare<ForwardAttemptRow, [string, number, number]>(
    `SELECT a.id, d.subject_id AS request_id, a.url, a.method, a.status_code, a.response_headers,
       a.response_body, a.latency_ms, a.error_code, a.error_message, a.attempt, a.created_at
     ${tries} ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?`,
  );
  const total = db.sqlite.prepare<{ n: number }, [string]>(`SELECT count(*) AS n ${tries}`);
  // A request hidden by a delete or an empty (and waiting for the drain) counts as gone.
  const requestExists = db.sqlite.prepare<{ ok: number }, [string]>(
    `SELECT 1 AS ok FROM captured_requests r JOIN debug_endpoints e ON e.id = r.endpoint_id
      WHERE r.id = ? AND e.deleted_at IS NULL AND r.id > coalesce(e.cleared_through_id, '')`,
  );

  return {
    /**
     * Stores a replay as an ended delivery with its one attempt; false when its request is gone
     * (deleted, or hidden by a delete or an empty, meanwhile), which is not an error.
     */
    insertReplay(row: DeliveryRow, attempt: DeliveryAttempt): boolean {
      return db.tx(() => {
        if (!requestExists.get(row.subject_id)) return false;
        deliveries.insert(row);
        deliveries.insertAttempt(attempt);
        return true;
      });
    },
    /** One page of a request's tries, newest first. */
    listPage(requestId: string, offset: number, limit: number): ForwardRecord[] {
      return page.all(requestId, limit, offset).map(toRecord);
    },
    count: (requestId: string): number => total.get(requestId)?.n ?? 0,
  };
}

export type ForwardsRepo = ReturnType<typeof createForwardsRepo>;

/** The SQLite repo as a ForwardsStore. */
export function createForwardsSqliteStore(db: Db, deliveries: DeliveryRepo): ForwardsStore {
  const repo = createForwardsRepo(db, deliveries);
  return {
    insertReplay: async (row, attempt) => repo.insertReplay(row, attempt),
    listPage: async (requestId, offset, limit) => repo.listPage(requestId, offset, limit),
    count: async (requestId) => repo.count(requestId),
  };
}

/** An attempt as a forward record: an answer speaks for itself; no answer shows `code: message`. */
export function toForwardRecord(attempt: DeliveryAttempt, requestId: string): ForwardRecord {
  const answered = attempt.statusCode !== null;
  return {
    id: attempt.id,
    requestId,
    url: attempt.url,
    method: attempt.method,
    statusCode: attempt.statusCode,
    responseHeaders: answered ? headerRecord(attempt.responseHeaders) : null,
    responseBody: answered ? attempt.responseBody : null,
    latencyMs: attempt.latencyMs,
    error:
      answered || !attempt.errorCode ? null : `${attempt.errorCode}: ${attempt.errorMessage ?? ""}`,
    attempt: attempt.attempt,
    createdAt: attempt.createdAt,
  };
}

export function toRecord(row: ForwardAttemptRow): ForwardRecord {
  const attempt: DeliveryAttempt = {
    id: row.id,
    deliveryId: "",
    attempt: row.attempt,
    url: row.url,
    method: row.method,
    statusCode: row.status_code,
    responseHeaders: JSON.parse(row.response_headers) as HeaderPair[],
    responseBody: row.response_body,
    latencyMs: row.latency_ms,
    errorType: null,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdAt: row.created_at,
  };
  return toForwardRecord(attempt, row.request_id);
}
