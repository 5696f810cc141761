// The per-check question (coversAt) of a recurring window, asked by every check of every monitor
// the window names: its answer must not cost a cron search each time.
import { describe, expect, spyOn, test } from "bun:test";
import { Cron } from "croner";
import { coversAt, type MaintenanceWindow, timesOf } from "./maintenance.model.ts";

const MINUTE = 60_000;
const recurring = (cron: string, durationMinutes: number): MaintenanceWindow => ({
  id: "w",
  organizationId: "o",
  title: "t",
  description: null,
  monitorIds: ["m"],
  startsAt: null,
  endsAt: null,
  cron,
  durationMinutes,
  timezone: "UTC",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

/** The answer with nothing remembered: a fresh cron asked once. */
function fresh(window: MaintenanceWindow, at: number): boolean {
  const start = new Cron(window.cron ?? "", { timezone: "UTC", paused: true }).nextRun(
    new Date(at - (window.durationMinutes ?? 0) * MINUTE),
  );
  return start !== null && start.getTime() <= at;
}

describe("coversAt of a recurring window", () => {
  test("checks moving forward between occurrences cost no cron search, and agree with one", () => {
    // 29 February: the rarest pattern, whose search walks years ahead.
    const window = recurring("0 0 29 2 *", 60);
    const times = timesOf(window);
    if (times.kind !== "recurring") throw new Error("expected a recurring window");
    const search = spyOn(times.cron, "nextRun");
    const from = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 1000; i++) coversAt(times, from + i * 20_000);
    expect(search.mock.calls.length).toBeLessThanOrEqual(2);
    search.mockRestore();
  });

  test("inside, at the edges and after an occurrence, forward and backward, it answers as a fresh search", () => {
    const window = recurring("30 22 * * *", 30);
    const times = timesOf(window);
    const start = Date.UTC(2026, 0, 1, 22, 30);
    const ats = [
      start - 1,
      start,
      start + 29 * MINUTE,
      start + 30 * MINUTE,
      start + 31 * MINUTE,
      start + 24 * 60 * MINUTE + 1,
      start - 60 * MINUTE,
      start + 10 * MINUTE,
      start + 48 * 60 * MINUTE + 5 * MINUTE,
    ];
    for (const at of ats) expect([at, coversAt(times, at)]).toEqual([at, fresh(window, at)]);
  });
});
