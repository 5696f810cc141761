import { describe, expect, test } from "bun:test";
import { moved, renumbered } from "./reorder.ts";

describe("reorder", () => {
  test("moves one place and stays put at the ends", () => {
    expect(moved(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(moved(["a", "b"], 0, -1)).toEqual(["a", "b"]);
  });

  test("only the items out of place are renumbered", () => {
    const list = [
      { id: "b", display_order: 2 },
      { id: "a", display_order: 1 },
      { id: "c", display_order: 3 },
    ];
    expect(renumbered(list).map((r) => [r.item.id, r.order])).toEqual([
      ["b", 1],
      ["a", 2],
    ]);
  });
});
