/** Parses wrk 4.x text output. Pure, so it is unit-tested against captured outputs. */
import type { Measurement, Percentiles } from "./types.ts";

export interface WrkResult extends Measurement {
  latencyMs: Percentiles;
  totalRequests: number;
  /** Thread-stats average Req/Sec (per thread; with -t1 close to `rate`). */
  threadRateAvg: number | null;
  socketErrors: { connect: number; read: number; write: number; timeout: number };
}

// wrk prints times with format_time_us: us/ms/s, and past a minute m/h.
const TIME_UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
// ...and counts with format_metric: k/M/G/T/P in steps of 1000.
const COUNT_SUFFIX: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** "812.00us" | "1.23ms" | "2.00s" | "1.50m" → milliseconds. */
export function parseDurationMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text.trim());
  const unit = match?.[2];
  if (!match || unit === undefined) throw new Error(`wrk: cannot read duration "${text}"`);
  return Number(match[1]) * (TIME_UNIT_MS[unit] ?? Number.NaN);
}

/** "18.46k" | "2.10M" | "950" → number. */
export function parseCount(text: string): number {
  const match = /^([\d.]+)([kMGTP]?)$/.exec(text.trim());
  if (!match) throw new Error(`wrk: cannot read count "${text}"`);
  return Number(match[1]) * (COUNT_SUFFIX[match[2] ?? ""] ?? Number.NaN);
}

function percentile(output: string, p: number): number {
  const match = new RegExp(`^\\s*${p}(?:\\.0+)?%\\s+(\\S+)\\s*$`, "m").exec(output);
  if (!match?.[1]) throw new Error(`wrk: no ${p}% latency line (was --latency given?)`);
  return parseDurationMs(match[1]);
}

function intAfter(output: string, pattern: RegExp): number {
  const match = pattern.exec(output);
  return match?.[1] ? Number(match[1]) : 0;
}

function socketErrors(output: string): WrkResult["socketErrors"] {
  const m = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const [connect, read, write, timeout] = [m?.[1], m?.[2], m?.[3], m?.[4]].map(Number);
  return { connect: connect || 0, read: read || 0, write: write || 0, timeout: timeout || 0 };
}

function threadRateAvg(output: string): number | null {
  const match = /^\s*Req\/Sec\s+(\S+)/m.exec(output);
  return match?.[1] ? parseCount(match[1]) : null;
}

/** Reads one wrk run's stdout (run with --latency). Throws when the essentials are missing. */
export function parseWrkOutput(output: string): WrkResult {
  const rateMatch = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  if (!rateMatch?.[1]) throw new Error("wrk: no Requests/sec line in its output");
  const errors = socketErrors(output);
  const errorTotal = errors.connect + errors.read + errors.write + errors.timeout;
  return {
    rate: Number(rateMatch[1]),
    latencyMs: {
      p50: percentile(output, 50),
      p90: percentile(output, 90),
      p99: percentile(output, 99),
    },
    non2xx: intAfter(output, /Non-2xx or 3xx responses:\s+(\d+)/),
    errors: errorTotal,
    errorDetail: errorTotal
      ? `connect ${errors.connect}, read ${errors.read}, write ${errors.write}, timeout ${errors.timeout}`
      : undefined,
    totalRequests: intAfter(output, /^\s*(\d+) requests in /m),
    threadRateAvg: threadRateAvg(output),
    socketErrors: errors,
  };
}
