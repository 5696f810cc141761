import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "../db/db.open.ts";
import type { Check } from "./doctor.checks.ts";

/** A due delivery still unsent this long after it was due means the worker is not keeping up. */
export const BACKLOG_WARN_MS = 60 * 60 * 1000;

/**
 * The outbox's backlog: deliveries due more than an hour ago and still not sent (the server is
 * down, stuck, or cannot keep up). Read-only; a data dir without the outbox yet is fine.
 */
export function checkDeliveryBacklog(dir: string, now = Date.now()): Check {
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const table = db
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'",
      )
      .get();
    if (!table?.n) return { name: "deliveries", status: "ok", detail: "no outbox yet" };
    const row = db
      .query<{ overdue: number; oldest: number | null; queued: number }, [number]>(
        `SELECT
           (SELECT count(*) FROM deliveries WHERE next_attempt_at <= ?1) AS overdue,
           (SELECT min(next_attempt_at) FROM deliveries WHERE next_attempt_at IS NOT NULL) AS oldest,
           (SELECT count(*) FROM deliveries WHERE next_attempt_at IS NOT NULL) AS queued`,
      )
      .get(now - BACKLOG_WARN_MS);
    const overdue = row?.overdue ?? 0;
    const queued = row?.queued ?? 0;
    if (overdue > 0 && row?.oldest != null) {
      const hours = ((now - row.oldest) / 3_600_000).toFixed(1);
      return {
        name: "deliveries",
        status: "warn",
        detail: `${overdue} of ${queued} queued deliveries are overdue by more than 1 h (oldest due ${hours} h ago): is weir serve running, and can it reach the destinations?`,
      };
    }
    return { name: "deliveries", status: "ok", detail: `${queued} queued, none overdue by 1 h` };
  } finally {
    db.close();
  }
}
