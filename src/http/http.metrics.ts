/** Request latency histogram buckets, in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  method: string;
  route: string;
  counts: number[];
  sum: number;
  count: number;
}

interface Counter {
  method: string;
  route: string;
  status: number;
  count: number;
}

/** In-process HTTP metrics, rendered in Prometheus text format. One registry per app. */
export interface Metrics {
  observe(method: string, route: string, status: number, seconds: number): void;
  /**
   * Adds lines a room renders itself (its HELP/TYPE included), read on every scrape; on
   * PostgreSQL a room reads them from the database then, so they are the cluster's as of now.
   */
  addSource(render: () => string[] | Promise<string[]>): void;
  render(): Promise<string>;
}

/**
 * Creates an empty registry. `route` must be the route pattern, never the raw path. Observing is
 * on every request's path, so it only concatenates a key and bumps numbers; label escaping
 * happens when /metrics is rendered.
 */
export function createMetrics(): Metrics {
  const requests = new Map<string, Counter>();
  const latency = new Map<string, Histogram>();
  const sources: (() => string[] | Promise<string[]>)[] = [];
  return {
    addSource(render) {
      sources.push(render);
    },
    observe(method, route, status, seconds) {
      const seriesKey = `${method} ${route}`;
      const counterKey = `${seriesKey} ${status}`;
      const counter = requests.get(counterKey);
      if (counter) counter.count += 1;
      else requests.set(counterKey, { method, route, status, count: 1 });
      let histogram = latency.get(seriesKey);
      if (!histogram) {
        histogram = { method, route, counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
        latency.set(seriesKey, histogram);
      }
      const bucket = BUCKETS.findIndex((upper) => seconds <= upper);
      if (bucket >= 0) histogram.counts[bucket] = (histogram.counts[bucket] ?? 0) + 1;
      histogram.sum += seconds;
      histogram.count += 1;
    },
    render: async () =>
      [
        ...renderRequests(requests),
        ...renderLatency(latency),
        ...renderProcess(),
        ...(await Promise.all(sources.map((render) => render()))).flat(),
      ]
        .join("\n")
        .concat("\n"),
  };
}

function labels(values: Record<string, string>): string {
  return Object.entries(values)
    .map(
      ([name, value]) =>
        `${name}="${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`,
    )
    .join(",");
}

function renderRequests(requests: Map<string, Counter>): string[] {
  const lines = [
    "# HELP weir_http_requests_total HTTP requests by route and status.",
    "# TYPE weir_http_requests_total counter",
  ];
  for (const { method, route, status, count } of requests.values()) {
    lines.push(
      `weir_http_requests_total{${labels({ method, route, status: String(status) })}} ${count}`,
    );
  }
  return lines;
}

function renderLatency(latency: Map<string, Histogram>): string[] {
  const name = "weir_http_request_duration_seconds";
  const lines = [`# HELP ${name} HTTP request latency by route.`, `# TYPE ${name} histogram`];
  for (const histogram of latency.values()) {
    const key = labels({ method: histogram.method, route: histogram.route });
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
