import { expect, test } from "bun:test";
import { filterErrors, parseFilters } from "./filters.ts";

test("the filter editor sends an array and says why other text is refused", () => {
  expect(parseFilters("")).toEqual({ filters: [] });
  expect(parseFilters('[{"body.type": "paid"}]')).toEqual({ filters: [{ "body.type": "paid" }] });
  expect(parseFilters('{"body.type": 1}')).toEqual({
    error: "Filters must be a JSON array of filter objects.",
  });
  expect("error" in parseFilters("[{")).toBe(true);
});

test("every server message about a filter path lands under the editor", () => {
  expect(filterErrors({ "filters[0].body.a.$regex": ["bad pattern"], url: ["required"] })).toEqual([
    "filters[0].body.a.$regex: bad pattern",
  ]);
});
