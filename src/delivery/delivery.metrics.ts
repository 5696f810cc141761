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

/**
 * A worker's attempts since start by kind and outcome (`success` or the attempt's error_type),
 * for `weir_delivery_attempts_total`: the same counts on either store.
 */
export function createAttemptCounts() {
  const counts = new Map<string, number>();
  return {
    count(kind: string, attempt: { errorType: string | null }): void {
      const key = `${kind}\u0000${attempt.errorType ?? "success"}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    /** [kind, outcome, count] rows, as renderDeliveryMetrics takes them. */
    list: (): [string, string, number][] =>
      [...counts].map(([key, n]) => [...key.split("\u0000"), n] as [string, string, number]),
  };
}
