/** Pure chart arithmetic: a nice top for an axis, a series as an SVG path, summaries in words. */

/** The smallest of 1, 2, 2.5, 5 × 10ⁿ at or above `max` (at least 1): a round axis top. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/**
 * The series as a path in a `width`×`height` box (y grows downwards), `top` at the upper edge. A
 * null breaks the line; a point alone is drawn as a short dash so it shows.
 */
export function linePath(
  values: readonly (number | null)[],
  width: number,
  height: number,
  top: number,
): string {
  if (values.length === 0) return "";
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const y = (v: number) => round(height - (Math.min(v, top) / top) * height);
  const parts: string[] = [];
  let open = false;
  values.forEach((value, i) => {
    if (value === null) {
      open = false;
      return;
    }
    const x = round(i * step);
    const next = values[i + 1];
    const alone = !open && (next === null || next === undefined);
    parts.push(`${open ? "L" : "M"}${x} ${y(value)}`);
    if (alone) {
      const dash = Math.max(step / 3, 1);
      parts.push(`L${round(x + dash <= width ? x + dash : x - dash)} ${y(value)}`);
    }
    open = true;
  });
  return parts.join(" ");
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The median of the numbers present, or null. */
export function median(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (present.length === 0) return null;
  const mid = Math.floor(present.length / 2);
  return present.length % 2
    ? (present[mid] as number)
    : ((present[mid - 1] as number) + (present[mid] as number)) / 2;
}

/** A duration as people read it: "182 ms", "1.2 s". */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** "median 182 ms, worst 1.2 s", or "no data" when every value is missing. */
export function summarizeMs(values: readonly (number | null)[]): string {
  const present = values.filter((v): v is number => v !== null);
  const mid = median(present);
  if (mid === null) return "no data";
  return `median ${formatMs(mid)}, worst ${formatMs(Math.max(...present))}`;
}
