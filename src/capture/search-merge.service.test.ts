import { describe, expect, test } from "bun:test";
import { mergeSearchIndex, type SearchMergeDeps } from "./search-merge.service.ts";

/** A merge whose steps have `work` steps of work left, each taking `stepMs` on a fake clock. */
function fakeMerge(work: number, overrides: Partial<SearchMergeDeps> = {}) {
  let now = 0;
  let left = work;
  const pauses: number[] = [];
  const deps: SearchMergeDeps = {
    step: () => {
      now += 3;
      if (left === 0) return false;
      left -= 1;
      return true;
    },
    pause: async (stepMs) => {
      pauses.push(stepMs);
    },
    running: () => true,
    now: () => now,
    maxSteps: 100,
    ...overrides,
  };
  return { deps, pauses, left: () => left };
}

describe("mergeSearchIndex", () => {
  test("steps until FTS5 reports nothing left, pausing as long as each step took", async () => {
    const merge = fakeMerge(5);
    const report = await mergeSearchIndex(merge.deps);
    expect(report).toEqual({ steps: 6, slowestStepMs: 3, finished: true });
    expect(merge.pauses).toEqual([3, 3, 3, 3, 3]);
    expect(merge.left()).toBe(0);
  });

  test("stops at its step budget and says it did not finish", async () => {
    const merge = fakeMerge(50, { maxSteps: 10 });
    const report = await mergeSearchIndex(merge.deps);
    expect(report.steps).toBe(10);
    expect(report.finished).toBe(false);
    expect(merge.left()).toBe(40);
  });

  test("ends after the current step once the app stops", async () => {
    let running = true;
    const merge = fakeMerge(50, { running: () => running });
    merge.deps.pause = async () => {
      running = false;
    };
    const report = await mergeSearchIndex(merge.deps);
    expect(report).toMatchObject({ steps: 1, finished: false });
  });
});
