/**
 * Deliveries give way to ingest when the process is saturated (docs/design/delivery.md "Giving way to
 * ingest"). Ingest and delivery share one event loop: under a burst, every delivery sent is CPU
 * an accepted webhook does not get. The signal is the size of the ingest's group-commit batches:
 * at a moderate rate a batch holds one or a few requests (the loop has time to spare); when the
 * loop is saturated requests pile up between turns and batches fill. The delivery worker's
 * concurrency then shrinks towards a floor (deliveries never starve), and comes back as soon as
 * batches shrink or stop. Off unless WEIR_DELIVERY_GIVE_WAY_FLOOR is set. Pure: the worker
 * feeds it batch sizes and times.
 */

export interface GiveWayPolicy {
  /** The configured concurrency (WEIR_DELIVERY_CONCURRENCY): what deliveries get when not saturated. */
  max: number;
  /** What deliveries always keep, however busy ingest is. */
  floor: number;
  /** Smoothed batch size at or under which ingest is not pressing: full concurrency. */
  busyBatch: number;
  /** Smoothed batch size from which the loop counts as saturated: the floor. */
  saturatedBatch: number;
  /** A batch older than this says nothing any more (the burst ended): full concurrency. */
  quietMs: number;
}

/** Ingest's recent batch sizes, smoothed. */
export interface IngestPressure {
  /** Exponentially weighted mean of the last batches' sizes. */
  batch: number;
  /** When the last batch committed (epoch ms); null: none yet. */
  at: number | null;
}

export const NO_PRESSURE: IngestPressure = { batch: 0, at: null };

/** Weight of the newest batch in the smoothed size: a few batches decide, one does not. */
const SMOOTHING = 0.25;

/**
 * The policy for a configured concurrency and floor (WEIR_DELIVERY_GIVE_WAY_FLOOR; 0: never give
 * way). Measured (docs/design/delivery.md, "Giving way to ingest"): batches must average over 16
 * requests before anything gives way, so at 1,000 events/s only a loop already taking 16 ms a
 * turn would; the floor from 48 (three quarters of the bench's 64 connections in every batch).
 */
export function giveWayPolicy(max: number, floor: number): GiveWayPolicy {
  return {
    max,
    floor: floor > 0 ? Math.min(max, floor) : max,
    busyBatch: 16,
    saturatedBatch: 48,
    quietMs: 100,
  };
}

/** The pressure after one more committed ingest batch of `size` requests (a quiet spell forgets). */
export function observeBatch(
  pressure: IngestPressure,
  size: number,
  now: number,
  policy: GiveWayPolicy,
): IngestPressure {
  const stale = pressure.at === null || now - pressure.at > policy.quietMs;
  return { batch: stale ? size : pressure.batch + SMOOTHING * (size - pressure.batch), at: now };
}

/** How many deliveries may run at once now. */
export function deliveryLimit(
  pressure: IngestPressure,
  now: number,
  policy: GiveWayPolicy,
): number {
  const { max, floor, busyBatch, saturatedBatch } = policy;
  if (pressure.at === null || now - pressure.at > policy.quietMs) return max;
  if (pressure.batch <= busyBatch) return max;
  if (pressure.batch >= saturatedBatch) return floor;
  const share = (saturatedBatch - pressure.batch) / (saturatedBatch - busyBatch);
  return Math.max(floor, Math.round(floor + share * (max - floor)));
}
