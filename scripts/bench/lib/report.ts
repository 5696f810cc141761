/** The human table, the loud warnings, the target verdicts and the --json document. */
import type { BenchConfig } from "./bench.ts";
import { formatKiB, formatMs, formatRate, formatRatio, formatSpread } from "./stats.ts";
import type { EntrySummary } from "./summary.ts";

/**
 * Right-aligns every column but the first. A plain string is a full-width line (a group heading)
 * that takes no part in the column widths.
 */
export function renderTable(rows: readonly (string[] | string)[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    if (typeof row === "string") continue;
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const pad = (cell: string, i: number) =>
    i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0);
  return rows
    .map((row) => (typeof row === "string" ? row : row.map(pad).join("  ").trimEnd()))
    .join("\n");
}

function status(entry: EntrySummary): string {
  if (entry.failure) return "!! FAILED";
  const parts = [];
  if (entry.non2xx) parts.push(`${entry.non2xx} NON-2XX`);
  if (entry.errors) parts.push(`${entry.errors} SOCKET ERRORS`);
  return parts.length ? `!! ${parts.join(", ")}` : "ok";
}

function row(entry: EntrySummary): string[] {
  const unit = entry.unit === "req/s" ? "" : ` ${entry.unit}`;
  return [
    entry.role === "baseline" ? `  baseline` : `  ${entry.name}`,
    `${formatRate(entry.rate)}${unit}`,
    formatSpread(entry.spread),
    formatMs(entry.latencyMs?.p50 ?? Number.NaN),
    formatMs(entry.latencyMs?.p99 ?? Number.NaN),
    formatRatio(entry.ratio),
    entry.rssMaxKiB === null ? "-" : formatKiB(entry.rssMaxKiB),
    entry.cpuUsPerOp === null ? "-" : `${entry.cpuUsPerOp.toFixed(1)} µs`,
    status(entry),
  ];
}

function tableText(entries: readonly EntrySummary[]): string {
  const rows: (string[] | string)[] = [
    ["scenario", "req/s", "spread", "p50", "p99", "ratio", "RSS max", "CPU/op", "status"],
  ];
  let load: string | undefined;
  for (const entry of entries) {
    if (entry.load !== load) {
      load = entry.load;
      rows.push(`load: ${load}`);
    }
    rows.push(row(entry));
  }
  return renderTable(rows);
}

/** The runners' other figures (medians over rounds), one row per entry that has any. */
function figuresText(entries: readonly EntrySummary[]): string {
  const rows = entries.flatMap((e) =>
    Object.entries(e.figures).map(([name, value]) => [
      `  ${e.role === "baseline" ? `baseline (${e.load})` : e.name}`,
      name,
      formatFigure(value),
    ]),
  );
  return rows.length ? `other figures (medians over rounds):\n${renderTable(rows)}` : "";
}

const formatFigure = (value: number) =>
  Math.abs(value) >= 100 ? formatRate(value) : value.toFixed(2);

function targetValue(label: string, actual: number, unit: string): string {
  if (label.startsWith("ratio")) return formatRatio(actual);
  if (label.startsWith("p99")) return formatMs(actual);
  if (label.startsWith("rate")) return `${formatRate(actual)} ${unit}`;
  return formatFigure(actual);
}

function targetsText(entries: readonly EntrySummary[]): string {
  const rows = entries.flatMap((e) =>
    e.targets.map((t) => [
      `  ${e.name}`,
      t.label,
      targetValue(t.label, t.actual, e.unit),
      t.pass ? "PASS" : `MISS${t.note ? ` (${t.note})` : ""}`,
    ]),
  );
  return rows.length ? `targets:\n${renderTable(rows)}` : "";
}

/** Each subject ÷ its references, median of the rates and the per-round paired ratios. */
function versusText(entries: readonly EntrySummary[]): string {
  const rows = entries.flatMap((e) =>
    e.versus.map((v) => [
      `  ${e.name}`,
      `÷ ${v.reference}`,
      formatRatio(v.ratio),
      `rounds ${v.roundRatios.map(formatRatio).join(" ")}`,
      `CPU/op ${formatRatio(v.cpuRatio)}`,
    ]),
  );
  return rows.length
    ? `compared with references (same load, same rounds):\n${renderTable(rows)}`
    : "";
}

/** A multi-line error (message + server log tail) squeezed onto one banner line. */
function oneLine(text: string, limit = 240): string {
  const joined = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" | ");
  return joined.length > limit ? `${joined.slice(0, limit)}...` : joined;
}

/** A banner nobody scrolls past: figures from runs with errors are not figures. */
function warningsText(entries: readonly EntrySummary[]): string {
  const flagged = entries.filter((e) => e.flagged);
  if (!flagged.length) return "";
  const lines = flagged.map((e) => {
    const who =
      e.role === "baseline"
        ? `baseline for ${e.load} (every ratio in its group is invalid)`
        : e.name;
    if (e.failure) return `!! ${who}: FAILED: ${oneLine(e.failure)}`;
    const detail = e.errorDetails.length ? ` [${e.errorDetails.join("; ")}]` : "";
    return `!! ${who}: ${e.non2xx} non-2xx responses, ${e.errors} socket errors${detail}: its figures are NOT valid`;
  });
  const bar = "!".repeat(72);
  return [bar, "!! WARNING: some runs had errors", ...lines, bar].join("\n");
}

export function headerText(config: BenchConfig): string {
  const warmup = config.warmupSec ? ` (+${config.warmupSec} s warm-up)` : "";
  return [
    `Weir bench: ${config.rounds} interleaved round(s) x ${config.durationSec} s${warmup}, ${config.connections} connections, 1 wrk thread`,
    config.pinning.note,
    ...(config.cpuWarning ? [config.cpuWarning] : []),
    ...(config.usesWeir ? [`Weir runs as: ${config.weirCommand.join(" ")}`] : []),
    "Figures are medians over rounds; ratio = req/s / baseline req/s for the same load in this run.",
  ].join("\n");
}

export function textReport(config: BenchConfig, entries: readonly EntrySummary[]): string {
  return [
    headerText(config),
    tableText(entries),
    versusText(entries),
    figuresText(entries),
    targetsText(entries),
    warningsText(entries),
  ]
    .filter(Boolean)
    .join("\n\n");
}

export function jsonReport(config: BenchConfig, entries: readonly EntrySummary[]): string {
  const finite = (_key: string, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value) ? null : value;
  const document = {
    config: {
      durationSec: config.durationSec,
      warmupSec: config.warmupSec,
      rounds: config.rounds,
      connections: config.connections,
      pinned: config.pinning.pinned,
      pinning: config.pinning.note,
      cpuWarning: config.cpuWarning,
      weirCommand: config.weirCommand,
    },
    results: entries,
    flagged: entries.some((e) => e.flagged),
    allTargetsPass: entries.every((e) => e.targets.every((t) => t.pass)),
  };
  return JSON.stringify(document, finite, 2);
}
