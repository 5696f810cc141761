import type { DedupKeys } from "./dedup.keys.ts";
import type { DedupCost } from "./dedup.service.ts";

/**
 * The dedup keys in memory against their cap, the fresh keys the cap kept out, and what keying
 * costs the ingest path (seconds ÷ keyed requests is the cost per event).
 */
export function renderDedupMetrics(
  figures: ReturnType<DedupKeys["figures"]>,
  cost: DedupCost,
): string[] {
  return [
    "# HELP weir_dedup_keyed_total Ingested requests keyed for deduplication (their source has it on).",
    "# TYPE weir_dedup_keyed_total counter",
    `weir_dedup_keyed_total ${cost.keyed}`,
    "# HELP weir_dedup_seconds_total Time spent hashing ingested requests and checking their keys.",
    "# TYPE weir_dedup_seconds_total counter",
    `weir_dedup_seconds_total ${cost.totalMicros / 1e6}`,
    "# HELP weir_dedup_keys Dedup keys held (live, or expired and not yet swept).",
    "# TYPE weir_dedup_keys gauge",
    `weir_dedup_keys ${figures.liveKeys}`,
    "# HELP weir_dedup_keys_max Most dedup keys held in memory (WEIR_DEDUP_MAX_KEYS).",
    "# TYPE weir_dedup_keys_max gauge",
    `weir_dedup_keys_max ${figures.maxKeys}`,
    "# HELP weir_dedup_index_bytes Memory of the dedup key index's arrays.",
    "# TYPE weir_dedup_index_bytes gauge",
    `weir_dedup_index_bytes ${figures.indexBytes}`,
    "# HELP weir_dedup_keys_unremembered_total Fresh keys not stored because the cap was reached (their events were accepted).",
    "# TYPE weir_dedup_keys_unremembered_total counter",
    `weir_dedup_keys_unremembered_total ${figures.unremembered}`,
  ];
}
