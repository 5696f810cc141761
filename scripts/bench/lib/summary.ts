/** Turns round results into medians, ratios and target verdicts. Pure, so it is unit-tested. */
import type { EntryResult, GroupResult } from "./bench.ts";
import { max, median, ratio, spread } from "./stats.ts";
import type { Percentiles, Targets } from "./types.ts";

export interface TargetCheck {
  /** e.g. "ratio >= 0.40" or "p99 <= 20 ms". */
  label: string;
  actual: number;
  pass: boolean;
  /** Why a target whose number looks fine still misses (invalid or failed run). */
  note?: string;
}

export interface EntrySummary {
  name: string;
  role: "baseline" | "subject";
  load: string;
  unit: string;
  /** Medians over the measured rounds. */
  rate: number;
  latencyMs: Percentiles | null;
  rssMaxKiB: number | null;
  /** Median server CPU µs per operation over the rounds; null when it could not be read. */
  cpuUsPerOp: number | null;
  spread: number;
  ratio: number;
  roundRates: number[];
  /** Per-round subject/baseline, paired by round; a second view on noise. */
  roundRatios: number[];
  non2xx: number;
  errors: number;
  errorDetails: string[];
  failure?: string;
  /** Medians over rounds of the runner's other figures (Measurement.figures), by name. */
  figures: Record<string, number>;
  /** Non-2xx, socket errors or a failure: the figures must not be trusted. */
  flagged: boolean;
  targets: TargetCheck[];
  /** Subject ÷ each of its references measured in the same rounds. */
  versus: Comparison[];
}

/** How a subject compared with one reference (both medians over the same rounds). */
export interface Comparison {
  reference: string;
  /** subject median rate / reference median rate. */
  ratio: number;
  /** Per-round subject/reference, paired by round. */
  roundRatios: number[];
  /**
   * Reference CPU µs per operation / subject's (medians): above 1 the subject spends less CPU
   * on each operation. Steadier than the rates when neighbours take the server's core.
   */
  cpuRatio: number;
}

function medianLatency(entry: EntryResult): Percentiles | null {
  const all = entry.rounds.flatMap((r) =>
    r.measurement.latencyMs ? [r.measurement.latencyMs] : [],
  );
  if (!all.length) return null;
  return {
    p50: median(all.map((l) => l.p50)),
    p90: median(all.map((l) => l.p90)),
    p99: median(all.map((l) => l.p99)),
  };
}

/** Median of each named figure over the rounds that measured it. */
function medianFigures(entry: EntryResult): Record<string, number> {
  const byName = new Map<string, number[]>();
  for (const round of entry.rounds) {
    for (const [name, value] of Object.entries(round.measurement.figures ?? {})) {
      byName.set(name, [...(byName.get(name) ?? []), value]);
    }
  }
  return Object.fromEntries([...byName].map(([name, values]) => [name, median(values)]));
}

function checkTargets(
  targets: Targets | undefined,
  summary: Omit<EntrySummary, "targets" | "versus">,
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const invalid = summary.failure ? "run failed" : summary.flagged ? "run had errors" : undefined;
  const add = (label: string, actual: number, ok: boolean) => {
    const pass = ok && !invalid && Number.isFinite(actual);
    checks.push({ label, actual, pass, note: pass ? undefined : invalid });
  };
  if (targets?.minRatio !== undefined)
    add(
      `ratio >= ${targets.minRatio.toFixed(2)}`,
      summary.ratio,
      summary.ratio >= targets.minRatio,
    );
  if (targets?.maxRatio !== undefined)
    add(
      `ratio <= ${targets.maxRatio.toFixed(2)}`,
      summary.ratio,
      summary.ratio <= targets.maxRatio,
    );
  if (targets?.minRate !== undefined)
    add(`rate >= ${targets.minRate}`, summary.rate, summary.rate >= targets.minRate);
  if (targets?.maxP99Ms !== undefined) {
    const p99 = summary.latencyMs?.p99 ?? Number.NaN;
    add(`p99 <= ${targets.maxP99Ms} ms`, p99, p99 <= targets.maxP99Ms);
  }
  for (const [name, min] of Object.entries(targets?.minFigures ?? {})) {
    const actual = summary.figures[name] ?? Number.NaN;
    add(`${name} >= ${min}`, actual, actual >= min);
  }
  for (const [name, max] of Object.entries(targets?.maxFigures ?? {})) {
    const actual = summary.figures[name] ?? Number.NaN;
    add(`${name} <= ${max}`, actual, actual <= max);
  }
  return checks;
}

export function summarizeEntry(
  entry: EntryResult,
  baseline: EntryResult,
  load: string,
  unit: string,
): EntrySummary {
  const rates = entry.rounds.map((r) => r.measurement.rate);
  const baseRates = new Map(baseline.rounds.map((r) => [r.round, r.measurement.rate]));
  const rss = entry.rounds.flatMap((r) => (r.rssKiB === null ? [] : [r.rssKiB]));
  const cpu = entry.rounds.flatMap((r) => (r.cpuUsPerOp == null ? [] : [r.cpuUsPerOp]));
  const non2xx = entry.rounds.reduce((sum, r) => sum + r.measurement.non2xx, 0);
  const errors = entry.rounds.reduce((sum, r) => sum + r.measurement.errors, 0);
  const partial = {
    name: entry.name,
    role: entry.role,
    load,
    unit,
    rate: median(rates),
    latencyMs: medianLatency(entry),
    rssMaxKiB: rss.length ? max(rss) : null,
    cpuUsPerOp: cpu.length ? median(cpu) : null,
    spread: spread(rates),
    ratio: ratio(median(rates), median([...baseRates.values()])),
    roundRates: rates,
    roundRatios: entry.rounds.map((r) =>
      ratio(r.measurement.rate, baseRates.get(r.round) ?? Number.NaN),
    ),
    non2xx,
    errors,
    errorDetails: entry.rounds.flatMap((r) =>
      r.measurement.errorDetail ? [`round ${r.round}: ${r.measurement.errorDetail}`] : [],
    ),
    failure: entry.failure ?? (entry.rounds.length ? undefined : "no round measured"),
    figures: medianFigures(entry),
    flagged: non2xx > 0 || errors > 0 || entry.failure !== undefined,
  };
  return { ...partial, targets: checkTargets(entry.scenario?.targets, partial), versus: [] };
}

function medianCpu(entry: EntryResult | undefined): number {
  const cpu = entry?.rounds.flatMap((r) => (r.cpuUsPerOp == null ? [] : [r.cpuUsPerOp])) ?? [];
  return median(cpu);
}

/**
 * Adds subject ÷ reference for each reference of the subject measured in the same group, and a
 * target check for each reference that sets a minimum. A reference that failed makes its
 * comparison a MISS, like a failed subject.
 */
export function compareWithReferences(
  summary: EntrySummary,
  entry: EntryResult,
  group: readonly EntryResult[],
): EntrySummary {
  const references = entry.scenario?.references ?? [];
  if (!references.length) return summary;
  const versus: Comparison[] = [];
  const targets = [...summary.targets];
  for (const { scenario, minRatio } of references) {
    const other = group.find((e) => e.name === scenario.name);
    const otherRates = new Map(other?.rounds.map((r) => [r.round, r.measurement.rate]) ?? []);
    const compared: Comparison = {
      reference: scenario.name,
      ratio: ratio(summary.rate, median([...otherRates.values()])),
      roundRatios: entry.rounds.map((r) =>
        ratio(r.measurement.rate, otherRates.get(r.round) ?? Number.NaN),
      ),
      cpuRatio: ratio(medianCpu(other), summary.cpuUsPerOp ?? Number.NaN),
    };
    versus.push(compared);
    if (minRatio === undefined) continue;
    const invalid = summary.failure
      ? "run failed"
      : summary.flagged
        ? "run had errors"
        : other?.failure
          ? "reference failed"
          : undefined;
    const pass = !invalid && Number.isFinite(compared.ratio) && compared.ratio >= minRatio;
    targets.push({
      label: `÷ ${scenario.name} >= ${minRatio.toFixed(2)}`,
      actual: compared.ratio,
      pass,
      note: pass ? undefined : invalid,
    });
  }
  return { ...summary, versus, targets };
}

/** Baseline first, then its subjects, per group. */
export function summarize(results: readonly GroupResult[]): EntrySummary[] {
  return results.flatMap(({ group, baseline, subjects }) =>
    [baseline, ...subjects].map((entry) =>
      compareWithReferences(
        summarizeEntry(entry, baseline, group.load, group.unit),
        entry,
        subjects,
      ),
    ),
  );
}
