/** Request latency histogram buckets, in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/** In-process HTTP metrics, rendered in Prometheus text format. One registry per app. */
export interface Metrics {
  observe(method: string, route: string, status: number, seconds: number): void;
  render(): string;
}

/** Creates an empty registry. `route` must be the route pattern, never the raw path. */
export function createMetrics(): Metrics {
  const requests = new Map<string, number>();
  const latency = new Map<string, Histogram>();
  return {
    observe(method, route, status, seconds) {
      const key = labels({ method, route, status: String(status) });
      requests.set(key, (requests.get(key) ?? 0) + 1);
      const histogramKey = labels({ method, route });
      const histogram = latency.get(histogramKey) ?? newHistogram();
      latency.set(histogramKey, histogram);
      const bucket = BUCKETS.findIndex((upper) => seconds <= upper);
      if (bucket >= 0) histogram.counts[bucket] = (histogram.counts[bucket] ?? 0) + 1;
      histogram.sum += seconds;
      histogram.count += 1;
    },
    render: () =>
      [...renderRequests(requests), ...renderLatency(latency), ...renderProcess()]
        .join("\n")
        .concat("\n"),
  };
}

const newHistogram = (): Histogram => ({ counts: BUCKETS.map(() => 0), sum: 0, count: 0 });

function labels(values: Record<string, string>): string {
  return Object.entries(values)
    .map(
      ([name, value]) =>
        `${name}="${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`,
    )
    .join(",");
}

function renderRequests(requests: Map<string, number>): string[] {
  const lines = [
    "# HELP weir_http_requests_total HTTP requests by route and status.",
    "# TYPE weir_http_requests_total counter",
  ];
  for (const [key, count] of requests) lines.push(`weir_http_requests_total{${key}} ${count}`);
  return lines;
}

function renderLatency(latency: Map<string, Histogram>): string[] {
  const name = "weir_http_request_duration_seconds";
  const lines = [`# HELP ${name} HTTP request latency by route.`, `# TYPE ${name} histogram`];
  for (const [key, histogram] of latency) {
    let cumulative = 0;
    BUCKETS.forEach((upper, i) => {
      cumulative += histogram.counts[i] ?? 0;
      lines.push(`${name}_bucket{${key},le="${upper}"} ${cumulative}`);
    });
    lines.push(`${name}_bucket{${key},le="+Inf"} ${histogram.count}`);
    lines.push(`${name}_sum{${key}} ${histogram.sum}`, `${name}_count{${key}} ${histogram.count}`);
  }
  return lines;
}

function renderProcess(): string[] {
  const memory = process.memoryUsage();
  return [
    "# HELP weir_process_resident_memory_bytes Resident set size.",
    "# TYPE weir_process_resident_memory_bytes gauge",
    `weir_process_resident_memory_bytes ${memory.rss}`,
    "# HELP weir_process_heap_used_bytes JavaScript heap in use.",
    "# TYPE weir_process_heap_used_bytes gauge",
    `weir_process_heap_used_bytes ${memory.heapUsed}`,
    "# HELP weir_process_uptime_seconds Seconds since the process started.",
    "# TYPE weir_process_uptime_seconds gauge",
    `weir_process_uptime_seconds ${process.uptime()}`,
  ];
}
