import { expect, test } from "bun:test";
import { inMaintenance, receivingToday, troubledMonitors } from "./attention.ts";

test("down monitors come before degraded ones; the rest are left out", () => {
  const monitors = [
    { id: "a", status: "up" },
    { id: "b", status: "degraded" },
    { id: "c", status: "down" },
    { id: "d", status: "paused" },
  ];
  expect(troubledMonitors(monitors, 5).map((m) => m.id)).toEqual(["c", "b"]);
  expect(troubledMonitors(monitors, 1).map((m) => m.id)).toEqual(["c"]);
});

test("endpoints that received today, latest first", () => {
  const now = new Date(2026, 10, 3, 15, 0);
  const at = (h: number, day = 3) => new Date(2026, 10, day, h, 0).toISOString();
  const endpoints = [
    { id: "old", last_request_at: at(23, 2) },
    { id: "morning", last_request_at: at(8) },
    { id: "never", last_request_at: null },
    { id: "noon", last_request_at: at(12) },
  ];
  expect(receivingToday(endpoints, now, 5).map((e) => e.id)).toEqual(["noon", "morning"]);
});

test("monitors in maintenance are counted apart", () => {
  const monitors = [{ status: "maintenance" }, { status: "up" }, { status: "maintenance" }];
  expect(inMaintenance(monitors)).toBe(2);
});
