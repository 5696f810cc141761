import type { DbHandle } from "../db/db.tx.ts";
import { isoAt } from "../shared/clock.ts";
import type { DeliveryAttempt, DeliveryKind, RetriedDelivery } from "./delivery.ports.ts";
import { type AttemptRow, toAttempt } from "./delivery.repo.ts";

interface CandidateRow {
  id: string;
  subject_id: string;
  destination_key: string;
  status: string;
  next_attempt_at: number | null;
  locked_until: number | null;
}

/** Moves rows between due times in the queue gauges (the delivery repo's `track`). */
export type GaugeMove = (from: number | null, to: number | null, rows?: number) => void;

/** What a manual retry does to one row at `now`. */
function actionAt(row: CandidateRow, now: number): RetriedDelivery["action"] {
  if (row.next_attempt_at === null) return row.status === "failed" ? "requeued" : "unchanged";
  const leased = row.locked_until !== null && row.locked_until > now;
  return row.next_attempt_at > now && !leased ? "pulled_forward" : "unchanged";
}

/**
 * The SQL of a manual retry (one event's or a bulk one) and of an event's attempts timeline.
 * A retry reads the subjects' rows, then writes only those it changes, by id: one writer holds
 * the database, so nothing moves between the read and the writes of one transaction.
 */
export function createRetryNowRepo(db: DbHandle, move: GaugeMove) {
  const { sqlite } = db;
  const candidates = sqlite.prepare<CandidateRow, [string, string, string | null]>(
    `SELECT id, subject_id, destination_key, status, next_attempt_at, locked_until
       FROM deliveries
      WHERE kind = ?1 AND subject_id IN (SELECT value FROM json_each(?2))
        AND (?3 IS NULL OR destination_key = ?3)
      ORDER BY created_at, id`,
  );
  // A fresh retry budget from here (attempts_before_requeue), the same webhook-id.
  const requeue = sqlite.prepare<never, [number, string, string]>(
    `UPDATE deliveries SET status = 'retrying', next_attempt_at = ?1, locked_until = NULL,
       attempts_before_requeue = attempts, updated_at = ?2
     WHERE id IN (SELECT value FROM json_each(?3))`,
  );
  // Only the due time moves: the attempts made and the budget left stay as they are.
  const pullForward = sqlite.prepare<never, [number, string, string]>(
    `UPDATE deliveries SET next_attempt_at = ?1, updated_at = ?2
     WHERE id IN (SELECT value FROM json_each(?3))`,
  );
  const attemptsOf = sqlite.prepare<
    AttemptRow & { destination_key: string },
    [string, string, number, number]
  >(
    `SELECT a.*, d.destination_key FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.kind = ? AND d.subject_id = ?
      ORDER BY a.created_at, a.attempt, a.id LIMIT ? OFFSET ?`,
  );
  const countAttemptsOf = sqlite.prepare<{ n: number }, [string, string]>(
    `SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.kind = ? AND d.subject_id = ?`,
  );

  return {
    /** Requeues the failed rows of the subjects and pulls the waiting ones forward to `now`. */
    retryNow(
      kind: DeliveryKind,
      subjectIds: readonly string[],
      destinationKey: string | null,
      now: number,
    ): RetriedDelivery[] {
      if (subjectIds.length === 0) return [];
      const rows = candidates.all(kind, JSON.stringify(subjectIds), destinationKey);
      const acted = rows.map((row) => ({ row, action: actionAt(row, now) }));
      const requeued = acted.filter((a) => a.action === "requeued").map((a) => a.row.id);
      const pulled = acted.filter((a) => a.action === "pulled_forward").map((a) => a.row);
      if (requeued.length > 0) {
        requeue.run(now, isoAt(now), JSON.stringify(requeued));
        move(null, now, requeued.length);
      }
      if (pulled.length > 0) {
        pullForward.run(now, isoAt(now), JSON.stringify(pulled.map((row) => row.id)));
        for (const row of pulled) move(row.next_attempt_at, now);
      }
      return acted.map(({ row, action }) => ({
        id: row.id,
        subjectId: row.subject_id,
        destinationKey: row.destination_key,
        action,
      }));
    },
    /**
     * One page of the attempts of a subject's deliveries, oldest first, with each one's
     * destination key, and how many there are in all.
     */
    attemptsOfSubject(
      kind: DeliveryKind,
      subjectId: string,
      page: { limit: number; offset: number },
    ): { attempts: (DeliveryAttempt & { destinationKey: string })[]; total: number } {
      const attempts = attemptsOf
        .all(kind, subjectId, page.limit, page.offset)
        .map((row) => ({ ...toAttempt(row), destinationKey: row.destination_key }));
      return { attempts, total: countAttemptsOf.get(kind, subjectId)?.n ?? 0 };
    },
  };
}

export type RetryNowRepo = ReturnType<typeof createRetryNowRepo>;
