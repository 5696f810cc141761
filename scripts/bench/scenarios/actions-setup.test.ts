import { describe, expect, test } from "bun:test";
import { tallyRuns } from "./actions-setup.ts";

const row = (rowid: number, results: unknown[]) => ({
  rowid,
  results: JSON.stringify(results),
  created_at: `2026-01-01T00:00:0${rowid}.000Z`,
});
const ok = (type: string, duration_ms: number) => ({ type, status: "ok", duration_ms, output: {} });

describe("tallyRuns", () => {
  test("chains run, their time, the script's time; skipped and incomplete runs apart", () => {
    const tally = tallyRuns(
      [
        row(1, [ok("condition", 0.1), ok("run_script", 0.5), ok("store_variable", 0.2)]),
        row(2, [
          {
            type: "condition",
            status: "skipped",
            duration_ms: 0,
            output: { reason: "too_many_runs_waiting" },
          },
        ]),
        row(3, [
          ok("condition", 0.1),
          { type: "extract_json", status: "error", duration_ms: 0.1, output: null },
        ]),
      ],
      0,
    );
    expect(tally).toMatchObject({ lastRowid: 3, ran: 2, skipped: 1, incomplete: 1 });
    expect(tally.chainMs.map((ms) => Number(ms.toFixed(3)))).toEqual([0.8, 0.2]);
    expect(tally.scriptMs).toEqual([0.5]);
    expect(tally.lastAt).toBe(Date.parse("2026-01-01T00:00:03.000Z"));
  });

  test("no new run: the reading starts where it did", () => {
    const tally = tallyRuns([], 42);
    expect(tally).toMatchObject({ lastRowid: 42, ran: 0, skipped: 0, incomplete: 0 });
    expect(tally.lastAt).toBeNaN();
  });
});
