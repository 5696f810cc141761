import { describe, expect, test } from "bun:test";
import { formatMs, linePath, median, niceMax, summarizeMs } from "./scale.ts";

describe("chart scale", () => {
  test("a round axis top at or above the largest value", () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(182)).toBe(200);
    expect(niceMax(1200)).toBe(2000);
    expect(niceMax(240)).toBe(250);
    expect(niceMax(500)).toBe(500);
  });
  test("a path breaks at gaps and draws a lone point as a dash", () => {
    expect(linePath([0, 100, null, 50], 30, 10, 100)).toBe("M0 10 L10 0 M30 5 L26.7 5");
    expect(linePath([], 30, 10, 100)).toBe("");
  });
  test("summaries in words", () => {
    expect(median([3, null, 1, 2])).toBe(2);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(formatMs(182)).toBe("182 ms");
    expect(formatMs(1200)).toBe("1.2 s");
    expect(summarizeMs([100, 1200, null, 182])).toBe("median 182 ms, worst 1.2 s");
    expect(summarizeMs([null])).toBe("no data");
  });
});
