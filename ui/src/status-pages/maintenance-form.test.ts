import { describe, expect, test } from "bun:test";
import { toLocalInput } from "../kit/time-input.ts";
import { timeZones, windowBody, windowDraft } from "./maintenance-form.ts";

describe("maintenance window form", () => {
  test("a one-off window sends its local times as ISO UTC and clears the cron", () => {
    const start = "2026-12-01T22:00:00.000Z";
    const draft = {
      ...windowDraft(),
      title: "Upgrade",
      starts_at: toLocalInput(start),
      ends_at: toLocalInput("2026-12-01T23:30:00.000Z"),
    };
    expect(windowBody(draft)).toMatchObject({
      cron: null,
      starts_at: start,
      ends_at: "2026-12-01T23:30:00.000Z",
    });
  });

  test("a recurring window sends cron, minutes and zone; a bad number goes as typed", () => {
    const draft = { ...windowDraft(), recurring: true, cron: " 0 2 * * 0 ", timezone: "UTC" };
    expect(windowBody({ ...draft, duration_minutes: "90" })).toMatchObject({
      cron: "0 2 * * 0",
      duration_minutes: 90,
      timezone: "UTC",
    });
    expect(windowBody({ ...draft, duration_minutes: "1h" }).duration_minutes).toBe("1h");
  });

  test("the current zone comes first and appears once", () => {
    const zones = timeZones("UTC");
    expect(zones[0]).toBe("UTC");
    expect(zones.filter((z) => z === "UTC")).toHaveLength(1);
  });
});
