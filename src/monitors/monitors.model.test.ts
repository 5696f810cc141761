import { describe, expect, test } from "bun:test";
import {
  nextSlotAfter,
  nextState,
  p95Of,
  parseStatusRanges,
  phaseOf,
  statusExpected,
} from "./monitors.model.ts";

describe("monitor scheduling and state rules", () => {
  test("phases spread a thousand monitors evenly across the interval: no herd at :00", () => {
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 1000; i++) {
      const phase = phaseOf(crypto.randomUUID(), 60);
      expect(phase).toBeGreaterThanOrEqual(0);
      expect(phase).toBeLessThan(60_000);
      buckets[Math.floor(phase / 6000)] += 1;
    }
    for (const n of buckets) expect(n).toBeGreaterThan(50);
    for (const n of buckets) expect(n).toBeLessThan(150);
  });

  test("the next slot is the monitor's phase, strictly after now, at most one interval away", () => {
    const phase = phaseOf("monitor-1", 60);
    for (const now of [0, 1, 59_999, 1_700_000_000_123, 1_700_000_000_000 + phase]) {
      const at = nextSlotAfter(now, phase, 60);
      expect(at).toBeGreaterThan(now);
      expect(at - now).toBeLessThanOrEqual(60_000);
      expect(at % 60_000).toBe(phase);
    }
  });

  test("p95 from a histogram: the edge where 95 % of answers are reached", () => {
    expect(p95Of([0, 0, 0, 0, 0, 0, 0, 0, 0, 0], null)).toBeNull();
    expect(p95Of([100, 0, 0, 0, 0, 0, 0, 0, 0, 0], 12)).toBe(50);
    expect(p95Of([90, 0, 10, 0, 0, 0, 0, 0, 0, 0], 180)).toBe(200);
    expect(p95Of([94, 0, 0, 0, 0, 0, 0, 0, 0, 6], 9000)).toBe(9000);
  });

  test("status ranges: lists of codes and ranges", () => {
    expect(parseStatusRanges("200-299,301")).toEqual([
      [200, 299],
      [301, 301],
    ]);
    for (const bad of ["abc", "", "200-", "99", "600", "300-200", "200,,301"]) {
      expect(parseStatusRanges(bad)).toBeNull();
    }
    expect(statusExpected(301, "200-299,301")).toBe(true);
    expect(statusExpected(302, "200-299,301")).toBe(false);
  });

  test("down only after retries + 1 failures in a row; success resets the count", () => {
    expect(nextState("up", 0, 2, "down")).toEqual({ state: "up", failures: 1 });
    expect(nextState("up", 1, 2, "down")).toEqual({ state: "up", failures: 2 });
    expect(nextState("up", 2, 2, "down")).toEqual({ state: "down", failures: 3 });
    expect(nextState("down", 3, 2, "up")).toEqual({ state: "up", failures: 0 });
    expect(nextState("pending", 0, 0, "down")).toEqual({ state: "down", failures: 1 });
    expect(nextState("up", 0, 0, "degraded")).toEqual({ state: "degraded", failures: 0 });
  });
});
