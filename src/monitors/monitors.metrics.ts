import type { MonitorFigures } from "./monitors.repo.ts";

/** A Prometheus label value: backslash, double quote and newline escaped. */
const label = (text: string) =>
  text.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

/**
 * Per-monitor lines for /metrics, from the monitors' own columns (state, last response time,
 * counters kept by each check's transaction): a scrape reads one row per monitor, never checks.
 */
export function renderMonitorMetrics(
  monitors: readonly MonitorFigures[],
  inMaintenance: (monitorId: string) => boolean,
): string[] {
  const up = [
    "# HELP weir_monitor_up Whether the monitor is up or degraded (1) or not (0).",
    "# TYPE weir_monitor_up gauge",
  ];
  const response = [
    "# HELP weir_monitor_response_ms The last check's response time in milliseconds.",
    "# TYPE weir_monitor_response_ms gauge",
  ];
  const maintenance = [
    "# HELP weir_monitor_maintenance Whether a maintenance window covers the monitor now (1) or not (0).",
    "# TYPE weir_monitor_maintenance gauge",
  ];
  const counts = [
    "# HELP weir_monitor_checks_total Checks stored, by outcome.",
    "# TYPE weir_monitor_checks_total counter",
  ];
  for (const m of monitors) {
    const labels = `monitor_id="${m.id}",monitor="${label(m.name)}",type="${m.type}"`;
    const isUp = !m.paused && (m.state === "up" || m.state === "degraded");
    up.push(`weir_monitor_up{${labels}} ${isUp ? 1 : 0}`);
    maintenance.push(`weir_monitor_maintenance{${labels}} ${inMaintenance(m.id) ? 1 : 0}`);
    if (m.lastResponseMs !== null)
      response.push(`weir_monitor_response_ms{${labels}} ${m.lastResponseMs}`);
    counts.push(`weir_monitor_checks_total{${labels},status="up"} ${m.checksUp}`);
    counts.push(`weir_monitor_checks_total{${labels},status="down"} ${m.checksDown}`);
    counts.push(`weir_monitor_checks_total{${labels},status="degraded"} ${m.checksDegraded}`);
    counts.push(`weir_monitor_checks_total{${labels},status="maintenance"} ${m.checksMaintenance}`);
  }
  return [...up, ...maintenance, ...response, ...counts];
}
