// The in-memory index of windows: one organization's writes reload that organization alone, so
// they never cost a rebuild of every organization's windows.
import { describe, expect, test } from "bun:test";
import { createMaintenanceIndex } from "./maintenance.index.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";

const window = (id: string, organizationId: string, monitorId: string): MaintenanceWindow => ({
  id,
  organizationId,
  title: id,
  description: null,
  monitorIds: [monitorId],
  startsAt: "2026-01-01T00:00:00.000Z",
  endsAt: "2026-01-02T00:00:00.000Z",
  cron: null,
  durationMinutes: null,
  timezone: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

describe("the maintenance index", () => {
  test("a write reloads its organization's windows only; the others stay as they were", () => {
    let rows = [window("a1", "org-a", "ma"), window("b1", "org-b", "mb")];
    const reads = { all: 0, lists: [] as string[] };
    const index = createMaintenanceIndex({
      all: () => {
        reads.all += 1;
        return rows;
      },
      list: (organizationId) => {
        reads.lists.push(organizationId);
        return rows.filter((row) => row.organizationId === organizationId);
      },
    });
    const inside = new Date("2026-01-01T12:00:00Z");
    expect(index.inMaintenance("ma", inside)).toBe(true);
    expect(index.inMaintenance("mb", inside)).toBe(true);

    // org-a moves its window from monitor ma to ma2.
    rows = [window("a1", "org-a", "ma2"), window("b1", "org-b", "mb")];
    index.invalidate("org-a");
    expect(index.inMaintenance("ma", inside)).toBe(false);
    expect(index.inMaintenance("ma2", inside)).toBe(true);
    expect(index.inMaintenance("mb", inside)).toBe(true);
    expect(reads).toEqual({ all: 1, lists: ["org-a"] });
    const found = index.maintenanceFor("org-a", ["ma2"], inside, 7);
    expect(found.active.map((o) => o.window_id)).toEqual(["a1"]);
  });
});
