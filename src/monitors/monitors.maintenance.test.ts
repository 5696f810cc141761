import { describe, expect, test } from "bun:test";
import { createIds } from "../shared/ids.ts";
import { maintenanceStep } from "./monitors.maintenance.ts";
import type { MonitorState } from "./monitors.model.ts";

const ids = createIds();
const AT = "2026-01-01T02:00:00.000Z";
const change = (from: string, to: string) => ({ id: "c", from, to, at: AT, reason: "r" });

/** The alert a check that leaves a window tells, given the states on entering and now. */
const toldOnLeaving = (entered: MonitorState, now: MonitorState) => {
  const step = maintenanceStep({ state: now, maintenanceFrom: entered }, now, false, null, AT, ids);
  expect(step.event).toMatchObject({ from: "maintenance", to: now });
  expect(step.maintenanceFrom).toBeNull();
  return step.told && `${step.told.from}→${step.told.to}`;
};

describe("a maintenance window's effect on one check", () => {
  test("outside any window the check's own change is stored and told", () => {
    const own = change("up", "down");
    expect(
      maintenanceStep({ state: "up", maintenanceFrom: null }, "down", false, own, AT, ids),
    ).toEqual({ event: own, told: own, maintenanceFrom: null });
  });

  test("entering stores up → maintenance and keeps the state it had; inside nothing is told", () => {
    const entering = maintenanceStep(
      { state: "up", maintenanceFrom: null },
      "down",
      true,
      change("up", "down"),
      AT,
      ids,
    );
    expect(entering.event).toMatchObject({ from: "up", to: "maintenance" });
    expect(entering).toMatchObject({ told: null, maintenanceFrom: "up" });
    const inside = maintenanceStep(
      { state: "down", maintenanceFrom: "up" },
      "up",
      true,
      change("down", "up"),
      AT,
      ids,
    );
    expect(inside).toEqual({ event: null, told: null, maintenanceFrom: "up" });
  });

  test("leaving tells the net change across the window; the same state on both sides tells nothing", () => {
    expect(toldOnLeaving("up", "down")).toBe("up→down");
    expect(toldOnLeaving("down", "up")).toBe("down→up");
    expect(toldOnLeaving("up", "up")).toBeNull();
    expect(toldOnLeaving("down", "down")).toBeNull();
    expect(toldOnLeaving("pending", "down")).toBe("pending→down");
  });
});
