import { expect, test } from "bun:test";
import { createGroupShares, fairShare } from "./db.due-groups.ts";

test("each group holding rows is owed an equal part, at least one row", () => {
  expect(fairShare(256, 1)).toBe(256);
  expect(fairShare(256, 2)).toBe(128);
  expect(fairShare(256, 3)).toBe(85);
  expect(fairShare(2, 5)).toBe(1);
  expect(fairShare(16, 0)).toBe(16);
});

test("a group alone takes every slot; a newcomer is owed its part even when none is free", () => {
  const shares = createGroupShares();
  for (let i = 0; i < 16; i++) {
    expect(shares.room("a", 16, i)).toBeGreaterThan(0);
    shares.hold("a");
  }
  // Every slot is A's: A may take no more, B (holding none) is owed half.
  expect(shares.room("a", 16, 16)).toBe(0);
  expect(shares.room("b", 16, 16)).toBe(8);
  expect(shares.full(16)).toEqual(["a"]);
  for (let i = 0; i < 8; i++) shares.hold("b");
  expect(shares.room("b", 16, 24)).toBe(0);
  // A's rows end: A is over its part, so it takes only free slots.
  for (let i = 0; i < 12; i++) shares.release("a");
  expect(shares.room("a", 16, 12)).toBe(4);
  expect(shares.release("b")).toBe(false);
});

test("rows taken in the same claim count as held", () => {
  const shares = createGroupShares();
  for (let i = 0; i < 16; i++) shares.hold("a");
  const taken = new Map([["b", 7]]);
  expect(shares.room("b", 16, 23, taken)).toBe(1);
  expect(shares.room("c", 16, 23, taken)).toBe(5);
});
