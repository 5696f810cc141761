/** Monitor kinds (decisions.md §15). */
export const MONITOR_TYPES = ["http", "tcp", "dns", "push", "docker", "ping"] as const;
export type MonitorType = (typeof MONITOR_TYPES)[number];

export const RECORD_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS"] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** What one check found. */
export type CheckStatus = "up" | "down" | "degraded";
/** What a monitor is (paused is a flag beside it, shown instead while set). */
export type MonitorState = CheckStatus | "pending";

/** The type-specific settings, stored as one JSON column. */
export interface MonitorSettings {
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  expected_status?: string;
  keyword?: string | null;
  keyword_absent?: boolean;
  json_path?: string | null;
  json_expected?: unknown;
  degraded_after_ms?: number | null;
  hostname?: string;
  record_type?: RecordType;
  expected?: string | null;
  /** docker: the container's name or id, and the daemon (`unix:///…sock` or `tcp://host:port`). */
  container?: string;
  docker_host?: string;
  /** Any type: the heading a status page shows the monitor under. */
  group?: string;
}

/** A monitor as the room holds it. */
export interface Monitor {
  id: string;
  organizationId: string;
  name: string;
  type: MonitorType;
  settings: MonitorSettings;
  intervalSeconds: number;
  timeoutSeconds: number;
  retries: number;
  /** The monitor this one depends on (same organization); its down alerts wait while it is down. */
  parentId: string | null;
  pushToken: string | null;
  paused: boolean;
  state: MonitorState;
  consecutiveFailures: number;
  phaseMs: number;
  nextCheckAt: number | null;
  lastCheckedAt: string | null;
  lastResponseMs: number | null;
  checksUp: number;
  checksDown: number;
  checksDegraded: number;
  createdAt: string;
  updatedAt: string;
}

/** One probe's outcome before it is stored. */
export interface ProbeResult {
  status: CheckStatus;
  statusCode: number | null;
  responseTimeMs: number | null;
  error: string | null;
  tlsDaysRemaining: number | null;
}

export const MIN_INTERVAL_SECONDS = 10;
export const DEFAULT_INTERVAL_SECONDS = 60;
export const DEFAULT_TIMEOUT_SECONDS = 30;

/**
 * Parses `200-299,301`: comma-separated codes or ranges of 100–599. Null when the text is not
 * such a list.
 */
export function parseStatusRanges(text: string): [number, number][] | null {
  const ranges: [number, number][] = [];
  for (const part of text.split(",")) {
    const match = /^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$/.exec(part);
    if (!match) return null;
    const low = Number(match[1]);
    const high = Number(match[2] ?? match[1]);
    if (low < 100 || high > 599 || low > high) return null;
    ranges.push([low, high]);
  }
  return ranges;
}

export function statusExpected(status: number, expected: string): boolean {
  const ranges = parseStatusRanges(expected) ?? [[200, 299]];
  return ranges.some(([low, high]) => status >= low && status <= high);
}

/**
 * Where a monitor's checks fall within its interval: a hash of its id, so checks of many
 * monitors spread over the interval (no herd at :00) and a restart keeps each one's slot.
 */
export function phaseOf(id: string, intervalSeconds: number): number {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619) >>> 0;
  return hash % (intervalSeconds * 1000);
}

/** The first slot of the monitor's phase strictly after `now`. */
export function nextSlotAfter(now: number, phaseMs: number, intervalSeconds: number): number {
  const period = intervalSeconds * 1000;
  const offset = (((phaseMs - now) % period) + period) % period;
  return now + (offset === 0 ? period : offset);
}

/**
 * How long after the last push a push monitor waits before it counts as missed (the repo's
 * restart resume computes the same in SQL).
 */
export function pushGraceMs(intervalSeconds: number): number {
  return Math.max(10_000, intervalSeconds * 100);
}

/**
 * The state after a check: a failure turns an up (or pending) monitor down only once it is the
 * `retries + 1`-th in a row (decisions.md §13); success and degraded apply at once.
 */
export function nextState(
  current: MonitorState,
  failuresBefore: number,
  retries: number,
  result: CheckStatus,
): { state: MonitorState; failures: number } {
  if (result !== "down") return { state: result, failures: 0 };
  const failures = failuresBefore + 1;
  return { state: failures > retries ? "down" : current, failures };
}

/** The state a client sees: paused wins, then a maintenance window covering it now. */
export function shownStatus(monitor: Pick<Monitor, "paused" | "state">, inMaintenance = false) {
  if (monitor.paused) return "paused";
  return inMaintenance ? "maintenance" : monitor.state;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The hour and day buckets (UTC starts) a check at `at` belongs to. */
export function bucketsOf(at: number): { hour: number; day: number } {
  return { hour: at - (at % HOUR_MS), day: at - (at % DAY_MS) };
}

export const TIME = { HOUR_MS, DAY_MS } as const;

/**
 * Upper edges (ms) of the response-time histogram each rollup bucket keeps; a tenth bucket holds
 * the slower answers. p95 is read from it: the edge below which 95 % of the answers fell.
 */
export const RESPONSE_EDGES_MS = [50, 100, 200, 300, 500, 750, 1000, 2000, 5000] as const;
export const EMPTY_HISTOGRAM = RESPONSE_EDGES_MS.map(() => 0).concat(0);

/** The histogram slot of a response time. */
export function histogramSlot(responseMs: number): number {
  const slot = RESPONSE_EDGES_MS.findIndex((edge) => responseMs <= edge);
  return slot === -1 ? RESPONSE_EDGES_MS.length : slot;
}

/**
 * The approximate 95th percentile: the upper edge of the slot where 95 % of the answers are
 * reached (the slowest answer seen, for the open-ended last slot). Null without answers.
 */
export function p95Of(histogram: readonly number[], slowestMs: number | null): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let slot = 0; slot < histogram.length; slot++) {
    seen += histogram[slot] ?? 0;
    if (seen >= total * 0.95) return RESPONSE_EDGES_MS[slot] ?? slowestMs;
  }
  return slowestMs;
}
