import { expect, test } from "bun:test";
import {
  bridgeState,
  clampDays,
  type DestinationSignals,
  destinationState,
  fillDays,
  parseHealthDays,
  sweptBefore,
} from "./health.model.ts";

const now = Date.UTC(2026, 2, 1, 0, 10); // just after a midnight, across February's end
const up: DestinationSignals = { paused: false, breakerOpen: false, lastFailureAt: null };
const failedAgo = (ms: number): DestinationSignals => ({ ...up, lastFailureAt: now - ms });
const down: DestinationSignals = { ...up, breakerOpen: true };

test("every day of the window, oldest first, today last, missing days as zeros", () => {
  const days = fillDays(now, 3, [{ date: "2026-02-27", attempted: 5, delivered: 4 }]);
  expect(days).toEqual([
    { date: "2026-02-27", attempted: 5, delivered: 4 },
    { date: "2026-02-28", attempted: 0, delivered: 0 },
    { date: "2026-03-01", attempted: 0, delivered: 0 },
  ]);
  expect(fillDays(now, 400, [])).toHaveLength(400);
  expect(sweptBefore(now)).toBe(fillDays(now, 400, [])[0]?.date ?? "");
});

test("a destination is down when paused or its breaker is open, degraded after a failure within the hour", () => {
  expect(destinationState(up, now)).toBe("up");
  expect(destinationState({ ...up, paused: true }, now)).toBe("down");
  expect(destinationState(down, now)).toBe("down");
  expect(destinationState(failedAgo(59 * 60_000), now)).toBe("degraded");
  expect(destinationState(failedAgo(60 * 60_000), now)).toBe("up");
});

test("a bridge is down when paused or all its destinations are, degraded when some are not up", () => {
  expect(bridgeState(false, [up, up], now)).toBe("up");
  expect(bridgeState(true, [up], now)).toBe("down");
  expect(bridgeState(false, [down, down], now)).toBe("down");
  expect(bridgeState(false, [down, up], now)).toBe("degraded");
  expect(bridgeState(false, [up, failedAgo(1_000)], now)).toBe("degraded");
  expect(bridgeState(false, [], now)).toBe("up");
});

test("days is a whole number from 1 to 400, 90 when absent", () => {
  expect(parseHealthDays(undefined)).toEqual({ days: 90 });
  expect(parseHealthDays("1")).toEqual({ days: 1 });
  expect(parseHealthDays("400")).toEqual({ days: 400 });
  for (const bad of ["0", "401", "-1", "2.5", "1e2", "x"]) {
    expect(parseHealthDays(bad)).toHaveProperty("error");
  }
});

test("the port's window stays within 1–400 days", () => {
  expect([clampDays(90), clampDays(0), clampDays(-3), clampDays(1000), clampDays(7.9)]).toEqual([
    90, 1, 1, 400, 7,
  ]);
  expect(clampDays(Number.NaN)).toBe(90);
});
