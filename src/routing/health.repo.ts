import type { Db } from "../db/db.open.ts";
import type { DbHandle } from "../db/db.tx.ts";
import type { HealthDay } from "./health.model.ts";
import type { HealthStore } from "./health.store.ts";

/** One recorded attempt of an event delivery, as its destination's day counts it. */
export interface HealthOutcome {
  destinationId: string;
  organizationId: string;
  bridgeId: string;
  day: string;
  /** The delivery ended with this attempt (delivered or given up). */
  ended: boolean;
  delivered: boolean;
  /** When the attempt failed (epoch ms); null when it succeeded. */
  failedAt: number | null;
}

/** SQL of `delivery_health_days`: one prepared upsert on the hot path, reads for the figures. */
export function createHealthRepo(db: DbHandle) {
  const { sqlite } = db;
  const upsert = sqlite.prepare<
    never,
    [string, string, string, string, number, number, number | null]
  >(
    `INSERT INTO delivery_health_days (destination_id, day, organization_id, bridge_id, attempted,
       delivered, last_failure_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (destination_id, day) DO UPDATE SET
       attempted = attempted + excluded.attempted,
       delivered = delivered + excluded.delivered,
       last_failure_at = coalesce(max(last_failure_at, excluded.last_failure_at),
         last_failure_at, excluded.last_failure_at)`,
  );
  const destinationDays = sqlite.prepare<HealthDay, [string, string]>(
    `SELECT day AS date, attempted, delivered FROM delivery_health_days
     WHERE destination_id = ? AND day >= ? ORDER BY day`,
  );
  const bridgeDays = sqlite.prepare<HealthDay, [string, string]>(
    `SELECT day AS date, sum(attempted) AS attempted, sum(delivered) AS delivered
     FROM delivery_health_days WHERE bridge_id = ? AND day >= ? GROUP BY day ORDER BY day`,
  );
  const lastFailures = sqlite.prepare<
    { destination_id: string; at: number | null },
    [string, string]
  >(
    `SELECT destination_id, max(last_failure_at) AS at FROM delivery_health_days
     WHERE bridge_id = ? AND day >= ? GROUP BY destination_id`,
  );
  const sweep = sqlite.prepare<never, [string]>("DELETE FROM delivery_health_days WHERE day < ?");

  return {
    /** Counts one attempt; call inside the transaction that records it. */
    record(o: HealthOutcome): void {
      upsert.run(
        o.destinationId,
        o.day,
        o.organizationId,
        o.bridgeId,
        o.ended ? 1 : 0,
        o.ended && o.delivered ? 1 : 0,
        o.failedAt,
      );
    },
    destinationDays: (destinationId: string, from: string): HealthDay[] =>
      destinationDays.all(destinationId, from),
    bridgeDays: (bridgeId: string, from: string): HealthDay[] => bridgeDays.all(bridgeId, from),
    /** The last failed attempt of each of a bridge's destinations since a day (epoch ms). */
    lastFailures(bridgeId: string, from: string): Map<string, number | null> {
      return new Map(lastFailures.all(bridgeId, from).map((r) => [r.destination_id, r.at]));
    },
    /** Forgets the days before `day`; returns how many rows went. */
    sweep: (day: string): number => sweep.run(day).changes,
  };
}

export type HealthRepo = ReturnType<typeof createHealthRepo>;

/** The SQLite repo as a HealthStore (a write runs in the open transaction or its own). */
export function createHealthSqliteStore(db: Db): HealthStore {
  const repo = createHealthRepo(db);
  return {
    record: async (_tx, outcome) => db.tx(() => repo.record(outcome)),
    destinationDays: async (destinationId, from) => repo.destinationDays(destinationId, from),
    bridgeDays: async (bridgeId, from) => repo.bridgeDays(bridgeId, from),
    lastFailures: async (bridgeId, from) => repo.lastFailures(bridgeId, from),
    sweep: async (day) => db.tx(() => repo.sweep(day)),
  };
}
