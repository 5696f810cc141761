import { expect, test } from "bun:test";
import { formatDuration, latencyOf } from "./latency.ts";

const at = "2026-11-26T10:00:00.000Z";

test("a delivered event's latency ends at its last success; a pending one's runs to now", () => {
  const now = Date.parse("2026-11-26T10:00:30.000Z");
  expect(
    latencyOf(
      { status: "delivered", created_at: at, completed_at: "2026-11-26T10:00:00.182Z" },
      now,
    ),
  ).toEqual({ ms: 182, running: false });
  expect(latencyOf({ status: "pending", created_at: at, completed_at: null }, now)).toEqual({
    ms: 30_000,
    running: true,
  });
  for (const status of ["failed", "filtered", "paused", "unrouted"]) {
    expect(latencyOf({ status, created_at: at, completed_at: null }, now)).toBeNull();
  }
});

test("durations read as people say them", () => {
  expect(formatDuration(85)).toBe("85 ms");
  expect(formatDuration(1234)).toBe("1.2 s");
  expect(formatDuration(42_000)).toBe("42 s");
  expect(formatDuration(245_000)).toBe("4 min 5 s");
  expect(formatDuration(3 * 3_600_000 + 20 * 60_000)).toBe("3 h 20 min");
  expect(formatDuration(52 * 3_600_000)).toBe("2 d 4 h");
});
