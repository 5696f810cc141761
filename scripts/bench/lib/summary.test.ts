import { describe, expect, test } from "bun:test";
import type { EntryResult } from "./bench.ts";
import { compareWithReferences, summarizeEntry } from "./summary.ts";
import type { Measurement, Scenario } from "./types.ts";

const measurement = (rate: number, extra: Partial<Measurement> = {}): Measurement => ({
  rate,
  latencyMs: { p50: 1, p90: 2, p99: rate / 1000 },
  non2xx: 0,
  errors: 0,
  ...extra,
});

const entry = (
  name: string,
  rates: number[],
  scenario?: Scenario,
  extra?: Partial<Measurement>,
): EntryResult => ({
  name,
  role: scenario ? "subject" : "baseline",
  scenario,
  rounds: rates.map((rate, i) => ({
    round: i + 1,
    measurement: measurement(rate, extra),
    rssKiB: 1000 * (i + 1),
    cpuUsPerOp: 10_000 / rate,
  })),
});

const scenario = (targets: Scenario["targets"]): Scenario => ({
  name: "s",
  description: "",
  subject: () => ({ command: ["x"], healthPath: "/" }),
  request: { method: "GET", path: "/" },
  targets,
});

describe("summarizeEntry", () => {
  const baseline = entry("baseline", [100, 120, 80]);

  test("medians, ratio of medians, paired round ratios, max RSS", () => {
    const s = summarizeEntry(
      entry("s", [40, 60, 50], scenario(undefined)),
      baseline,
      "GET /",
      "req/s",
    );
    expect(s.rate).toBe(50);
    expect(s.ratio).toBeCloseTo(0.5);
    expect(s.roundRatios.map((r) => Number(r.toFixed(3)))).toEqual([0.4, 0.5, 0.625]);
    expect(s.rssMaxKiB).toBe(3000);
    expect(s.flagged).toBe(false);
  });

  test("PASS and MISS per target", () => {
    const s = summarizeEntry(
      entry("s", [50], scenario({ minRatio: 0.4, maxRatio: 0.45, minRate: 60, maxP99Ms: 0.01 })),
      baseline,
      "",
      "",
    );
    expect(s.targets.map((t) => [t.label, t.pass])).toEqual([
      ["ratio >= 0.40", true],
      ["ratio <= 0.45", false],
      ["rate >= 60", false],
      ["p99 <= 0.01 ms", false],
    ]);
  });

  test("errors flag the run and turn its targets into MISS", () => {
    const s = summarizeEntry(
      entry("s", [50], scenario({ minRatio: 0.1 }), { non2xx: 7 }),
      baseline,
      "",
      "",
    );
    expect(s.flagged).toBe(true);
    expect(s.non2xx).toBe(7);
    expect(s.targets[0]).toMatchObject({ pass: false, note: "run had errors" });
  });

  test("a subject with no measured round is a failure with no ratio", () => {
    const failed: EntryResult = {
      ...entry("s", [], scenario({ minRatio: 0.1 })),
      failure: "server exited",
    };
    const s = summarizeEntry(failed, baseline, "", "");
    expect(s.failure).toBe("server exited");
    expect(s.ratio).toBeNaN();
    expect(s.targets[0]?.pass).toBe(false);
  });
});

describe("other figures", () => {
  test("medians per name, and a minimum per figure is a target", () => {
    const baseline = entry("baseline", [100, 100, 100]);
    const subject: EntryResult = {
      ...entry("s", [50, 50, 50], scenario({ minFigures: { "e2e/s": 3000, "other/s": 10 } })),
    };
    subject.rounds = subject.rounds.map((r, i) => ({
      ...r,
      measurement: { ...r.measurement, figures: { "e2e/s": [2000, 4000, 3500][i] ?? 0 } },
    }));
    const summary = summarizeEntry(subject, baseline, "load", "req/s");
    expect(summary.figures).toEqual({ "e2e/s": 3500 });
    expect(summary.targets.map((t) => [t.label, t.pass])).toEqual([
      ["e2e/s >= 3000", true],
      ["other/s >= 10", false],
    ]);
  });

  test("a maximum per figure is a target too (a cost)", () => {
    const baseline = entry("baseline", [100, 100, 100]);
    const subject = entry("s", [50, 50, 50], scenario({ maxFigures: { "cost ms": 1 } }));
    subject.rounds = subject.rounds.map((r, i) => ({
      ...r,
      measurement: { ...r.measurement, figures: { "cost ms": [0.5, 2, 0.8][i] ?? 0 } },
    }));
    const met = summarizeEntry(subject, baseline, "load", "req/s");
    expect(met.targets.map((t) => [t.label, t.actual, t.pass])).toEqual([
      ["cost ms <= 1", 0.8, true],
    ]);
    subject.rounds = subject.rounds.map((r) => ({
      ...r,
      measurement: { ...r.measurement, figures: { "cost ms": 1.5 } },
    }));
    const missed = summarizeEntry(subject, baseline, "load", "req/s");
    expect(missed.targets.map((t) => t.pass)).toEqual([false]);
  });
});

describe("compareWithReferences", () => {
  const baseline = entry("baseline", [100, 100, 100]);
  const proto = scenario(undefined);
  const mock = { ...scenario(undefined), name: "mock" };
  const subject: Scenario = {
    ...scenario(undefined),
    references: [
      { scenario: { ...proto, name: "proto" }, minRatio: 0.9 },
      { scenario: mock, minRatio: 3 },
    ],
  };

  test("subject ÷ each reference, paired per round, with a target per minimum", () => {
    const subjectEntry = entry("s", [45, 50, 55], subject);
    const group = [
      subjectEntry,
      entry("proto", [50, 60, 50], proto),
      entry("mock", [10, 20, 15], mock),
    ];
    const s = compareWithReferences(
      summarizeEntry(subjectEntry, baseline, "", ""),
      subjectEntry,
      group,
    );
    expect(s.versus.map((v) => [v.reference, Number(v.ratio.toFixed(3))])).toEqual([
      ["proto", 1],
      ["mock", 3.333],
    ]);
    expect(s.versus[0]?.roundRatios.map((r) => Number(r.toFixed(3)))).toEqual([0.9, 0.833, 1.1]);
    expect(s.cpuUsPerOp).toBeCloseTo(200);
    expect(s.versus.map((v) => Number(v.cpuRatio.toFixed(3)))).toEqual([1, 3.333]);
    expect(s.targets.map((t) => [t.label, t.pass])).toEqual([
      ["÷ proto >= 0.90", true],
      ["÷ mock >= 3.00", true],
    ]);
  });

  test("a reference that failed makes its comparison a MISS", () => {
    const subjectEntry = entry("s", [50], subject);
    const failedProto: EntryResult = { ...entry("proto", [], proto), failure: "exited" };
    const s = compareWithReferences(summarizeEntry(subjectEntry, baseline, "", ""), subjectEntry, [
      subjectEntry,
      failedProto,
      entry("mock", [10], mock),
    ]);
    expect(s.versus[0]?.ratio).toBeNaN();
    expect(s.targets[0]).toMatchObject({ pass: false, note: "reference failed" });
    expect(s.targets[1]?.pass).toBe(true);
  });
});
