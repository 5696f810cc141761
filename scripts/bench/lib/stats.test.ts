import { describe, expect, test } from "bun:test";
import {
  formatKiB,
  formatMs,
  formatRate,
  formatRatio,
  formatSpread,
  max,
  median,
  percentile,
  ratio,
  spread,
} from "./stats.ts";

describe("median", () => {
  test("odd and even counts, unsorted input", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
  test("does not reorder the caller's array", () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
  test("NaN for no values", () => {
    expect(median([])).toBeNaN();
  });
});

describe("percentile", () => {
  test("nearest rank: p50 and p99 of 1..100, unsorted input", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile(values, 1)).toBe(100);
  });
  test("one value is every percentile; none is NaN", () => {
    expect(percentile([7], 0.5)).toBe(7);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe("max and spread", () => {
  test("max", () => {
    expect(max([1, 5, 2])).toBe(5);
    expect(max([])).toBeNaN();
  });
  test("spread is the range over the median", () => {
    expect(spread([90, 100, 110])).toBeCloseTo(0.2);
    expect(spread([100])).toBe(0);
    expect(spread([])).toBeNaN();
  });
});

describe("ratio", () => {
  test("subject over baseline", () => {
    expect(ratio(40, 100)).toBeCloseTo(0.4);
  });
  test("NaN when it cannot be computed", () => {
    expect(ratio(40, 0)).toBeNaN();
    expect(ratio(Number.NaN, 100)).toBeNaN();
    expect(ratio(40, Number.NaN)).toBeNaN();
  });
});

describe("formatting", () => {
  test("ratios: two decimals, three below 0.1, a dash when missing", () => {
    expect(formatRatio(1)).toBe("1.00x");
    expect(formatRatio(0.4249)).toBe("0.42x");
    expect(formatRatio(0.0449)).toBe("0.045x");
    expect(formatRatio(Number.NaN)).toBe("-");
  });
  test("rates, milliseconds, memory and spread", () => {
    expect(formatRate(52341.6)).toBe("52,342");
    expect(formatMs(0.4123)).toBe("0.412 ms");
    expect(formatMs(3.214)).toBe("3.21 ms");
    expect(formatMs(57.21)).toBe("57.2 ms");
    expect(formatMs(1204.4)).toBe("1204 ms");
    expect(formatKiB(83_251)).toBe("81.3 MiB");
    expect(formatSpread(0.16)).toBe("±8%");
    expect(formatSpread(Number.NaN)).toBe("-");
  });
});
