import { expect, test } from "bun:test";
import { fromLocalInput, toLocalInput } from "./time-input.ts";

test("a time filter survives the round trip through the datetime-local input", () => {
  const iso = fromLocalInput("2026-11-26T09:30");
  expect(toLocalInput(iso)).toBe("2026-11-26T09:30");
  expect(fromLocalInput("")).toBe("");
  expect(toLocalInput("not a date")).toBe("");
});
