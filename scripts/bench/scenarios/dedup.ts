import type { CustomScenario } from "../lib/types.ts";
import { measureRoutedIngest } from "./ingest.ts";
import { seededWeir } from "./ingest-setup.ts";

/**
 * What deduplication costs an ingest: the `ingest` path (1 KiB webhook, one bridge, one http
 * destination on the sink), every body fresh, the source with `exclude_fields` of 3 paths (the
 * subject) against the same source without deduplication (the baseline), same rounds. Every
 * request is new, so each one hashes its body, writes its key and stores its event: the
 * expensive case. Ratio ≥ 0.85: dedup costs less than 15 % of the rate.
 */
export const dedup: CustomScenario = {
  name: "dedup",
  description:
    "the ingest scenario with unique bodies: source deduplicating on exclude_fields (3 paths) ÷ the same without dedup",
  weir: true,
  subject: seededWeir,
  baseline: seededWeir,
  run: (target, options) =>
    measureRoutedIngest(target, options, { dedup: target.role === "subject", unique: true }),
  unit: "req/s",
  loadKey: "ingest POST 1 KiB webhook, unique bodies",
  targets: { minRatio: 0.85 },
};
