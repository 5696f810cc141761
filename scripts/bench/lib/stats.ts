/** Small statistics and number formatting. Pure, so it is unit-tested. */

/** Median; the mean of the two middle values for an even count; NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/** The value below which `fraction` (0–1) of the values lie (nearest rank); NaN for none. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

/** Largest value; NaN for none. */
export function max(values: readonly number[]): number {
  return values.length ? Math.max(...values) : Number.NaN;
}

/**
 * (max − min) / median: how far apart the rounds were, to tell noise from a real difference.
 * 0 for one round, NaN for none.
 */
export function spread(values: readonly number[]): number {
  const mid = median(values);
  if (!values.length) return Number.NaN;
  return values.length < 2 || !mid ? 0 : (Math.max(...values) - Math.min(...values)) / mid;
}

/** subject / baseline; NaN when either is missing or the baseline is zero. */
export function ratio(subject: number, baseline: number): number {
  return Number.isFinite(subject) && Number.isFinite(baseline) && baseline > 0
    ? subject / baseline
    : Number.NaN;
}

/** "0.42x"; three decimals below 0.1 so small ratios (0.04 vs 0.05) stay distinguishable. */
export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return `${value.toFixed(value < 0.1 ? 3 : 2)}x`;
}

/** "52,341" — whole operations per second with thousands separators. */
export function formatRate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-";
}

/** Milliseconds with precision that suits the size: "0.412 ms", "3.21 ms", "57.2 ms", "1204 ms". */
export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return "-";
  const digits = value < 1 ? 3 : value < 10 ? 2 : value < 100 ? 1 : 0;
  return `${value.toFixed(digits)} ms`;
}

/** KiB (as /proc reports RSS) → "81.3 MiB". */
export function formatKiB(kib: number): string {
  return Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : "-";
}

/** 0.153 → "±8%" of spread around the median (half the range). */
export function formatSpread(value: number): string {
  return Number.isFinite(value) ? `±${Math.round((value * 100) / 2)}%` : "-";
}
