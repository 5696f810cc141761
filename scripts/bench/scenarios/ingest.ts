import { baselineServer } from "../lib/subjects.ts";
import type { CustomScenario, Measurement, RunOptions, RunTarget } from "../lib/types.ts";
import { runWrk } from "../lib/wrk.ts";
import {
  ingestCosts,
  prepareRoute,
  resetSink,
  SLUG,
  seededWeir,
  sinkState,
  UNIQUE_TOKEN,
  webhookBody,
} from "./ingest-setup.ts";

/** How long deliveries may take to catch up after the load before the run counts as lost. */
const DRAIN_MS = 120_000;

/** Waits until the sink's count stops moving (what earlier load left queued has arrived). */
async function settledSink(quietMs = 500): Promise<{ count: number; lastAt: number }> {
  let state = await sinkState();
  const deadline = Date.now() + DRAIN_MS;
  for (;;) {
    await Bun.sleep(quietMs);
    const next = await sinkState();
    if (next.count === state.count || Date.now() > deadline) return next;
    state = next;
  }
}

/** How one Weir ingest run is set up. */
export interface RoutedLoad {
  /** The source deduplicates (exclude_fields with 3 paths). */
  dedup: boolean;
  /** Every request carries a fresh `id` (dedup must see new keys, not repeats). */
  unique: boolean;
}

/**
 * Weir with one bridge to the sink: drains what the warm-up left queued, takes the load, then
 * awaits the deliveries at the sink: end-to-end events/s = events delivered / (load start →
 * last delivery). An accepted event that never reaches the sink counts as an error.
 */
export async function measureRoutedIngest(
  target: RunTarget,
  options: RunOptions,
  load: RoutedLoad,
): Promise<Measurement> {
  const path = await prepareRoute(target.origin, load.dedup);
  const request = {
    method: "POST" as const,
    path,
    body: webhookBody(),
    ...(load.unique ? { uniqueToken: UNIQUE_TOKEN } : {}),
  };
  await settledSink();
  await resetSink();
  const before = await ingestCosts(target.origin);
  const startedAt = Date.now();
  const wrk = await runWrk(request, target, options);
  const accepted = wrk.totalRequests - wrk.non2xx;
  const atLoadEnd = (await sinkState()).count;
  const sink = await settledSink();
  const after = await ingestCosts(target.origin);
  const evaluations = after.evaluations - before.evaluations;
  const filterUs = ((after.seconds - before.seconds) * 1e6) / evaluations;
  const keyed = after.keyed - before.keyed;
  const dedupUs = ((after.dedupSeconds - before.dedupSeconds) * 1e6) / keyed;
  const e2e = sink.count / ((sink.lastAt - startedAt) / 1000);
  const lost = Math.max(0, accepted - sink.count);
  process.stderr.write(
    `    ${accepted} accepted; sink: ${atLoadEnd} by the end of the load, ${sink.count} in all, ` +
      `last ${((sink.lastAt - startedAt) / 1000).toFixed(1)} s after the start; ` +
      `filter ${filterUs.toFixed(2)} µs/event over ${evaluations} evaluations` +
      (keyed > 0 ? `; dedup ${dedupUs.toFixed(2)} µs/event over ${keyed} keyed` : "") +
      "\n",
  );
  return {
    ...wrk,
    errors: wrk.errors + lost,
    errorDetail: lost ? `${lost} accepted events never reached the sink` : wrk.errorDetail,
    figures: {
      "end-to-end events/s": e2e,
      "delivered during load/s": atLoadEnd / options.durationSec,
      "filter µs/event": filterUs,
      ...(load.dedup ? { "dedup µs/event": dedupUs } : {}),
    },
  };
}

/** The baseline (raw Bun.serve) gets the bare wrk load; the subject is Weir. */
async function runIngest(target: RunTarget, options: RunOptions): Promise<Measurement> {
  if (target.role === "baseline") {
    return runWrk({ method: "POST", path: `/in/${SLUG}`, body: webhookBody() }, target, options);
  }
  return measureRoutedIngest(target, options, { dedup: false, unique: false });
}

/**
 * Routing's hot path: a 1 KiB order webhook to /in/{slug}, one active bridge, one http
 * destination on a local sink whose filters let every event through. Accepted = answered 200
 * after the event and its delivery row committed.
 */
export const ingest: CustomScenario = {
  name: "ingest",
  description:
    "POST 1 KiB JSON to /in/{slug}: event + delivery committed, then delivered to a local sink; end-to-end events/s and filter µs",
  weir: true,
  subject: seededWeir,
  baseline: baselineServer,
  run: runIngest,
  unit: "req/s",
  loadKey: "ingest POST 1 KiB webhook",
  targets: { minRatio: 0.3, minFigures: { "end-to-end events/s": 3000 } },
};
