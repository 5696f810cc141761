import type { SQLQueryBindings } from "bun:sqlite";
import type { Plan } from "../auth/auth.model.ts";
import type { Db } from "../db/db.open.ts";
import { customResponseOf } from "../endpoints/endpoints.columns.ts";
import type { EndpointStatus } from "../endpoints/endpoints.model.ts";
import { verificationOf } from "../verification/verification.settings.ts";
import type { CapturedRequest, CaptureEndpoint } from "./capture.model.ts";
import type { RefusalDelta } from "./capture.tally.ts";
import { COLUMNS, pushValues, ROW } from "./requests.columns.ts";

interface EndpointRow {
  id: string;
  organizationId: string | null;
  slug: string;
  status: EndpointStatus;
  forwardUrl: string | null;
  expiresAt: string | null;
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  responseDelayMs: number;
  verification: string | null;
  plan: Plan | null;
}

/** An endpoint's requests in one capture batch: above (visible) or at/below its empty mark. */
interface BatchTally {
  mark: string;
  visible: number;
  hidden: number;
}

/** Rows per INSERT statement. */
const CHUNK = 16;

/** The result of `PRAGMA wal_checkpoint`: busy flag, WAL frames, frames copied to the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * The SQL of the capture hot path, as raw prepared statements on bun:sqlite (drizzle's builder
 * costs measurably per request here; see docs/performance.md). Lookups are by the globally
 * unique slug, so there is no organization to scope by. The plan is read with a scalar
 * subquery: the same lookup as a LEFT JOIN took ~8 µs instead of ~1 µs in bun:sqlite.
 */
export function createCaptureRepo(db: Pick<Db, "sqlite">) {
  const sqlite = db.sqlite;
  const bySlug = sqlite.prepare<EndpointRow, [string]>(
    `SELECT e.id, e.organization_id AS organizationId, e.slug, e.status,
            e.forward_url AS forwardUrl, e.expires_at AS expiresAt,
            e.response_status AS responseStatus, e.response_headers AS responseHeaders,
            e.response_body AS responseBody, e.response_delay_ms AS responseDelayMs,
            e.verification,
            (SELECT o.plan FROM organizations o WHERE o.id = e.organization_id) AS plan
       FROM debug_endpoints e
      WHERE e.slug = ? AND e.deleted_at IS NULL`,
  );
  const countFor = sqlite.prepare<{ n: number }, [string]>(
    "SELECT request_count AS n FROM debug_endpoints WHERE id = ?",
  );
  // Requests an empty hid (at or below the endpoint's mark) no longer count; a deleted
  // endpoint's none do (both are drained in the background).
  const anonymousBytes = sqlite.prepare<{ bytes: number }, []>(
    `SELECT coalesce(sum(r.size), 0) AS bytes
       FROM debug_endpoints e JOIN captured_requests r ON r.endpoint_id = e.id
      WHERE e.organization_id IS NULL AND e.deleted_at IS NULL
        AND r.id > coalesce(e.cleared_through_id, '')`,
  );
  const liveEndpoint = sqlite.prepare<{ mark: string | null }, [string]>(
    "SELECT cleared_through_id AS mark FROM debug_endpoints WHERE id = ? AND deleted_at IS NULL",
  );
  // One UPDATE per endpoint per batch keeps the endpoint's request counter exact without a
  // count(*) on reads. A request whose id is at or below an empty's mark (its id was made before
  // the empty, its batch committed after) is stored hidden, not counted, and left to the drain.
  const addCount = sqlite.prepare<never, [string, number, number]>(
    `UPDATE debug_endpoints SET request_count = request_count + ?2,
       drain_pending = max(drain_pending, ?3) WHERE id = ?1`,
  );
  const insertOne = sqlite.prepare(`INSERT INTO captured_requests ${COLUMNS} VALUES ${ROW}`);
  const insertChunk = sqlite.prepare(
    `INSERT INTO captured_requests ${COLUMNS} VALUES ${Array(CHUNK).fill(ROW).join(", ")}`,
  );
  // An endpoint deleted between a request's admission and its commit must not get the request:
  // its rows are skipped. Checked once per endpoint of the batch (a per-row INSERT ... WHERE
  // EXISTS cost 25 % more), inside the caller's transaction, which holds the write lock from
  // BEGIN IMMEDIATE, so no other connection can delete or empty the endpoint in between.
  const insertAll = (requests: readonly CapturedRequest[]) => {
    const tallies = new Map<string, BatchTally | null>();
    const stored = requests.map((r) => {
      let tally = tallies.get(r.endpointId);
      if (tally === undefined) {
        const row = liveEndpoint.get(r.endpointId);
        tally = row ? { mark: row.mark ?? "", visible: 0, hidden: 0 } : null;
        tallies.set(r.endpointId, tally);
      }
      if (tally === null) return false;
      if (r.id > tally.mark) tally.visible += 1;
      else tally.hidden += 1;
      return true;
    });
    for (const [endpointId, tally] of tallies) {
      if (tally) addCount.run(endpointId, tally.visible, tally.hidden > 0 ? 1 : 0);
    }
    const kept = requests.filter((_, i) => stored[i]);
    let next = 0;
    // Rows go CHUNK at a time: one statement per chunk saved ~1 µs a row over one per row.
    for (; next + CHUNK <= kept.length; next += CHUNK) {
      const values: unknown[] = [];
      for (let i = next; i < next + CHUNK; i++) pushValues(values, kept[i] as CapturedRequest);
      insertChunk.run(...(values as SQLQueryBindings[]));
    }
    for (; next < kept.length; next++) {
      const values: unknown[] = [];
      pushValues(values, kept[next] as CapturedRequest);
      insertOne.run(...(values as SQLQueryBindings[]));
    }
    return stored;
  };
  const checkpoint = sqlite.prepare<CheckpointResult, []>("PRAGMA wal_checkpoint(PASSIVE)");
  // An endpoint deleted since its refusals were counted is skipped, not a foreign-key failure.
  const addRefusal = sqlite.prepare(
    `INSERT INTO capture_refusals (endpoint_id, rate_limited, too_large, last_refused_at)
     SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM debug_endpoints WHERE id = ?1)
     ON CONFLICT (endpoint_id) DO UPDATE SET
       rate_limited = rate_limited + excluded.rate_limited,
       too_large = too_large + excluded.too_large,
       last_refused_at = excluded.last_refused_at`,
  );

  const answered = sqlite.prepare<never, [number, string]>(
    "UPDATE captured_requests SET status = ? WHERE id = ?",
  );

  return {
    /** The endpoint owning `slug` with its organization's plan; null when there is none. */
    findEndpoint(slug: string): CaptureEndpoint | null {
      const row = bySlug.get(slug);
      return row ? toEndpoint(row) : null;
    },
    /** Stored requests of one endpoint (the anonymous cap), from its counter. */
    countRequests(endpointId: string): number {
      return countFor.get(endpointId)?.n ?? 0;
    },
    /** Body bytes stored by every anonymous endpoint (the instance-wide anonymous budget). */
    anonymousStoredBytes(): number {
      return anonymousBytes.get()?.bytes ?? 0;
    },
    /**
     * Stores the requests; called inside `db.tx` (the group commit's transaction), so they are
     * committed together with whatever else it writes, or none and it throws. Says per request
     * whether it was stored (false: its endpoint no longer exists).
     */
    insertRows(requests: readonly CapturedRequest[]): boolean[] {
      return insertAll(requests);
    },
    /** The status a stored request was answered with, when an action changed it after the commit. */
    setAnsweredStatus(requestId: string, status: number): void {
      answered.run(status, requestId);
    },
    /** Adds refusal counts to the endpoints' stored counters, in one transaction. */
    addRefusals(deltas: readonly RefusalDelta[]): void {
      sqlite.transaction(() => {
        for (const d of deltas)
          addRefusal.run(d.endpointId, d.rateLimited, d.tooLarge, d.lastRefusedAt);
      })();
    },
    /** Sets how many WAL pages trigger a checkpoint inside a commit (0: never). */
    setAutoCheckpoint(pages: number): void {
      sqlite.run(`PRAGMA wal_autocheckpoint = ${Math.max(0, Math.trunc(pages))}`);
    },
    /** Copies committed WAL frames into the database without waiting on readers or writers. */
    checkpoint(): CheckpointResult {
      return checkpoint.get() ?? { busy: 0, log: 0, checkpointed: 0 };
    },
  };
}

export type CaptureRepo = ReturnType<typeof createCaptureRepo>;

function toEndpoint(row: EndpointRow): CaptureEndpoint {
  return {
    id: row.id,
    organizationId: row.organizationId,
    slug: row.slug,
    forwardUrl: row.forwardUrl,
    status: row.status,
    plan: row.plan ?? "free",
    expiresAt: row.expiresAt,
    response: customResponseOf(row),
    verification: verificationOf(row.verification),
  };
}
