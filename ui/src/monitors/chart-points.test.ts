import { expect, test } from "bun:test";
import { chartPoints } from "./chart-points.ts";

const bucket = (start: string, avg: number | null) => ({
  start,
  checks: 1,
  up: 1,
  down: 0,
  degraded: 0,
  avg_response_ms: avg,
  max_response_ms: avg,
});

test("one point per slot of the range, ending at the current one, gaps as null", () => {
  const now = Date.parse("2026-11-03T14:25:00Z");
  const day = chartPoints(
    [bucket("2026-11-03T14:00:00.000Z", 120), bucket("2026-11-03T12:00:00.000Z", 80)],
    "24h",
    now,
  );
  expect(day).toHaveLength(24);
  expect(day.at(-1)).toEqual({ label: "14:00 UTC", value: 120 });
  expect(day.at(-3)).toEqual({ label: "12:00 UTC", value: 80 });
  expect(day.at(-2)?.value).toBeNull();
  const month = chartPoints([bucket("2026-10-05T00:00:00.000Z", 90)], "30d", now);
  expect(month).toHaveLength(30);
  expect(month[0]).toEqual({ label: "2026-10-05", value: 90 });
  expect(chartPoints([], "7d", now)).toHaveLength(168);
});
