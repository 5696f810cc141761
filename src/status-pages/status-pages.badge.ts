import { escapeHtml } from "./status-pages.html.ts";
import type { Snapshot, SnapshotItem } from "./status-pages.snapshot.ts";

/** Rough width of a string in 11 px Verdana: enough for a badge, no font metrics needed. */
const textWidth = (text: string) => Math.round(text.length * 6.5 + 10);

function colourOf(percent: number | null): string {
  if (percent === null) return "#4b5563";
  if (percent >= 99) return "#15803d";
  if (percent >= 95) return "#a16207";
  return "#b91c1c";
}

/** The mean 90-day uptime of the page's monitors that have data; null when none has. */
export function overallUptime(snapshot: Snapshot): number | null {
  const figures = snapshot.groups
    .flatMap((g) => g.items)
    .filter((i) => i.kind === "monitor" && i.percent_90d !== null)
    .map((i) => i.percent_90d as number);
  if (figures.length === 0) return null;
  return Math.round((figures.reduce((a, b) => a + b, 0) / figures.length) * 100) / 100;
}

/** The monitor `id` as the page shows it, or null when the page does not show it. */
export const itemOf = (snapshot: Snapshot, id: string): SnapshotItem | null =>
  snapshot.groups.flatMap((g) => g.items).find((i) => i.kind === "monitor" && i.id === id) ?? null;

/** A flat two-part SVG badge, `uptime | 99.95%`; its text is escaped like the page's. */
export function renderBadge(label: string, percent: number | null): string {
  const value = percent === null ? "no data" : `${percent.toFixed(2)}%`;
  const left = textWidth(label);
  const right = textWidth(value);
  const width = left + right;
  const title = escapeHtml(`${label}: ${value}`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}"><title>${title}</title><rect width="${left}" height="20" fill="#374151"/><rect x="${left}" width="${right}" height="20" fill="${colourOf(percent)}"/><g fill="#ffffff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle"><text x="${left / 2}" y="14">${escapeHtml(label)}</text><text x="${left + right / 2}" y="14">${escapeHtml(value)}</text></g></svg>
`;
}
