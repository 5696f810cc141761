import type { FilterCost } from "./ingest.plans.ts";

/**
 * The ingest path in Prometheus text: how many times a request was routed through its source's
 * filters and the time that took, so the cost per event is seconds ÷ evaluations.
 */
export function renderIngestMetrics(cost: FilterCost): string[] {
  return [
    "# HELP weir_ingest_filter_evaluations_total Ingested requests routed through their source's filters.",
    "# TYPE weir_ingest_filter_evaluations_total counter",
    `weir_ingest_filter_evaluations_total ${cost.evaluations}`,
    "# HELP weir_ingest_filter_seconds_total Time spent evaluating filters on the ingest path.",
    "# TYPE weir_ingest_filter_seconds_total counter",
    `weir_ingest_filter_seconds_total ${cost.totalMicros / 1e6}`,
    "# HELP weir_ingest_filter_budget_exceeded_total Events stored failed because their filters ran out of budget.",
    "# TYPE weir_ingest_filter_budget_exceeded_total counter",
    `weir_ingest_filter_budget_exceeded_total ${cost.budgetExceeded}`,
  ];
}
