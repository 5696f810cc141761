import { describe, expect, test } from "bun:test";
import {
  admit,
  type BreakerState,
  closedBreaker,
  record,
  releaseStaleProbe,
} from "./delivery.breaker.model.ts";

const OPEN_MS = 30_000;

/** Feeds outcomes ("s" success, "f" failure) through admit + record at time `now`. */
function run(outcomes: string, state = closedBreaker(), now = 0): BreakerState {
  let current = state;
  for (const outcome of outcomes) {
    const admission = admit(current, now);
    if (!admission.allowed) throw new Error(`refused at ${outcome}`);
    current = record(admission.state, outcome === "s", now, OPEN_MS);
  }
  return current;
}

describe("breaker: when it opens", () => {
  // [outcomes, phase after them]
  const rows: Array<[string, string]> = [
    ["", "closed"],
    ["ffff", "closed"], // 4 in a row: not yet
    ["fffff", "open"], // 5 in a row
    ["ffffsffff", "closed"], // a success resets the run; 8/9 failed but fewer than 10 attempts
    ["sfsfsfsfs", "closed"], // 9 attempts: the ratio rule needs 10
    ["sfsfsfsfsf", "open"], // 10 attempts, 50 % failed
    ["ssfsfsfsfs", "closed"], // 10 attempts, 40 % failed
    ["sssssssssssssssssssfsfsfsf", "closed"], // window of 20 holds 4 failures: 20 %
    ["ssssssssssffffsffffs", "closed"], // 8 of 20 failed: 40 %
    ["ssssssssssffffsffffsf", "closed"], // 9 of the last 20 failed: 45 %
    ["ssssssssssffffsffffsff", "open"], // 10 of the last 20 failed: 50 %
  ];
  for (const [outcomes, phase] of rows) {
    test(`${outcomes || "(none)"} → ${phase}`, () => {
      expect(run(outcomes).phase).toBe(phase as never);
    });
  }

  test("only the last 20 attempts are kept", () => {
    const state = run(`ffffssssss${"s".repeat(20)}`);
    expect(state.recent).toEqual(Array(20).fill(true));
  });

  test("failures that left the window no longer count", () => {
    // 9 of the last 20 failed (45 %): the 4 early failures are outside the window.
    const state = run(`ffffssssss${"s".repeat(6)}ffffsffffsf`);
    expect(state.recent.filter((ok) => !ok)).toHaveLength(9);
    expect(state.phase).toBe("closed");
  });
});

describe("breaker: open, half-open, closed", () => {
  const opened = run("fffff", closedBreaker(), 1_000);

  test("while open, attempts wait until the open period ends", () => {
    const admission = admit(opened, 1_000 + OPEN_MS - 1);
    expect(admission.allowed).toBe(false);
    expect(!admission.allowed && admission.retryAt).toBe(1_000 + OPEN_MS);
  });

  test("after the open period one probe goes; a second waits", () => {
    const probe = admit(opened, 1_000 + OPEN_MS);
    expect(probe.allowed).toBe(true);
    expect(probe.state.phase).toBe("half_open");
    expect(admit(probe.state, 1_000 + OPEN_MS).allowed).toBe(false);
  });

  test("a successful probe closes it and clears the history", () => {
    const probe = admit(opened, 1_000 + OPEN_MS);
    const closed = record(probe.state, true, 1_000 + OPEN_MS, OPEN_MS);
    expect(closed).toEqual(closedBreaker());
  });

  test("a failed probe opens it again for another period", () => {
    const at = 1_000 + OPEN_MS;
    const reopened = record(admit(opened, at).state, false, at, OPEN_MS);
    expect(reopened.phase).toBe("open");
    expect(reopened.openUntil).toBe(at + OPEN_MS);
    expect(admit(reopened, at + OPEN_MS - 1).allowed).toBe(false);
  });

  test("a late failure of an attempt sent before it opened is noted but does not put off the probe", () => {
    const late = record(opened, false, 1_000 + 10_000, OPEN_MS);
    expect(late.phase).toBe("open");
    expect(late.openUntil).toBe(1_000 + OPEN_MS);
    expect(late.recent.filter((ok) => !ok)).toHaveLength(6);
    expect(admit(late, 1_000 + OPEN_MS).allowed).toBe(true);
  });

  test("a probe lost in a crash is released after another open period", () => {
    const at = 1_000 + OPEN_MS;
    const stuck = admit(opened, at).state;
    expect(releaseStaleProbe(stuck, at + OPEN_MS - 1, OPEN_MS)).toBe(stuck);
    const released = releaseStaleProbe(stuck, at + OPEN_MS, OPEN_MS);
    expect(admit(released, at + OPEN_MS).allowed).toBe(true);
  });

  test("the state is plain data that survives JSON (kept in a row)", () => {
    expect(JSON.parse(JSON.stringify(opened))).toEqual(opened);
  });
});
