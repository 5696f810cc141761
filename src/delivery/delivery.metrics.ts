import type { BreakerPhase } from "./delivery.breaker.model.ts";

const PHASES: BreakerPhase[] = ["closed", "open", "half_open"];

/** The outbox in Prometheus text: queue depth, due now, attempts by outcome, breakers by phase. */
export function renderDeliveryMetrics(
  stats: { queued: number; due: number; breakers: { phase: string; n: number }[] },
  outcomes: readonly [string, string, number][],
): string[] {
  const lines = [
    "# HELP weir_delivery_queue_depth Deliveries not yet ended (pending, delivering, retrying).",
    "# TYPE weir_delivery_queue_depth gauge",
    `weir_delivery_queue_depth ${stats.queued}`,
    "# HELP weir_delivery_due Deliveries due now and not claimed by a worker.",
    "# TYPE weir_delivery_due gauge",
    `weir_delivery_due ${stats.due}`,
    "# HELP weir_delivery_attempts_total Delivery attempts since start by kind and outcome (success or error_type).",
    "# TYPE weir_delivery_attempts_total counter",
  ];
  for (const [kind, outcome, n] of outcomes) {
    lines.push(`weir_delivery_attempts_total{kind="${kind}",outcome="${outcome}"} ${n}`);
  }
  lines.push(
    "# HELP weir_delivery_breakers Destination circuit breakers by state.",
    "# TYPE weir_delivery_breakers gauge",
  );
  for (const phase of PHASES) {
    const n = stats.breakers.find((b) => b.phase === phase)?.n ?? 0;
    lines.push(`weir_delivery_breakers{state="${phase}"} ${n}`);
  }
  return lines;
}
