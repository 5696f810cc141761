import { describe, expect, test } from "bun:test";
import { nextStatus } from "./incident-words.ts";

describe("incident workflow", () => {
  test("an update proposes the next status, and resolved stays resolved", () => {
    expect(nextStatus("investigating")).toBe("identified");
    expect(nextStatus("monitoring")).toBe("resolved");
    expect(nextStatus("resolved")).toBe("resolved");
  });
});
