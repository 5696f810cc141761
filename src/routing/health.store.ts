import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { HealthDay } from "./health.model.ts";
import type { HealthOutcome } from "./health.repo.ts";

/**
 * A destination's daily delivery counts (health.repo.ts on SQLite, health.postgres.ts beside
 * it). `record` runs in the attempt's transaction: on PostgreSQL the caller's `tx`.
 */
export interface HealthStore {
  record(tx: PostgresTx | null, outcome: HealthOutcome): Promise<void>;
  destinationDays(destinationId: string, from: string): Promise<HealthDay[]>;
  bridgeDays(bridgeId: string, from: string): Promise<HealthDay[]>;
  /** The last failed attempt of each of a bridge's destinations since a day (epoch ms). */
  lastFailures(bridgeId: string, from: string): Promise<Map<string, number | null>>;
  /** Forgets the days before `day`; how many rows went. */
  sweep(day: string): Promise<number>;
}
