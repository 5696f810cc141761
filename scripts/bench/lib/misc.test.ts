import { describe, expect, test } from "bun:test";
import { busyWarning, parseProcStat } from "./cpu-busy.ts";
import { parseCpuSeconds, parseVmRssKiB } from "./proc.ts";
import { renderTable } from "./report.ts";

describe("parseVmRssKiB", () => {
  test("reads VmRSS from /proc/<pid>/status", () => {
    expect(parseVmRssKiB("Name:\tbun\nVmPeak:\t  999 kB\nVmRSS:\t   83251 kB\nThreads:\t4\n")).toBe(
      83251,
    );
    expect(parseVmRssKiB("Name:\tzombie\nState:\tZ (zombie)\n")).toBeNull();
  });
});

describe("cpu busy", () => {
  test("per-cpu busy and total jiffies; idle + iowait count as idle", () => {
    const stat =
      "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 5 0 5 40 0 0 0 0 0 0\ncpu1 1 0 1 7 1 0 0 0 0 0\nintr 1\n";
    const cpus = parseProcStat(stat);
    expect(cpus.get(0)).toEqual({ busy: 10, total: 50 });
    expect(cpus.get(1)).toEqual({ busy: 2, total: 10 });
    expect(cpus.size).toBe(2);
  });
  test("warns only about busy cpus the run uses", () => {
    const busy = new Map([
      [0, 0.94],
      [1, 0.05],
      [2, 0.9],
    ]);
    expect(busyWarning(busy, [0, 1])).toContain("cpu 0 94% busy");
    expect(busyWarning(busy, [1])).toBeNull();
  });
});

describe("renderTable", () => {
  test("first column left, others right; string rows are headings outside the widths", () => {
    const text = renderTable([["a", "1"], "heading that is long", ["bbb", "22"]]);
    expect(text).toBe("a     1\nheading that is long\nbbb  22");
  });
});

describe("parseCpuSeconds", () => {
  test("user + system ticks after the command name, even one with spaces and parentheses", () => {
    const stat = "4242 (bun (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 4 0 99";
    expect(parseCpuSeconds(stat)).toBeCloseTo(3.25);
  });

  test("null for text that is not a stat line", () => {
    expect(parseCpuSeconds("gone")).toBeNull();
  });
});
