import { expect, test } from "bun:test";
import { overlayFresh } from "./fresh.ts";

const row = (id: string, at: string, status = "pending") => ({ id, created_at: at, status });

test("shown rows update in place; newer ones are counted, not inserted", () => {
  const shown = [row("b", "2026-11-26T10:00:02Z"), row("a", "2026-11-26T10:00:01Z")];
  const fresh = [
    row("c", "2026-11-26T10:00:03Z"),
    row("b", "2026-11-26T10:00:02Z", "failed"),
    row("a", "2026-11-26T10:00:01Z"),
  ];
  const { rows, newCount } = overlayFresh(shown, fresh);
  expect(rows.map((r) => [r.id, r.status])).toEqual([
    ["b", "failed"],
    ["a", "pending"],
  ]);
  expect(newCount).toBe(1);
});

test("nothing changed: the same array comes back", () => {
  const shown = [row("a", "2026-11-26T10:00:01Z")];
  expect(overlayFresh(shown, [row("a", "2026-11-26T10:00:01Z")]).rows).toBe(shown);
});
