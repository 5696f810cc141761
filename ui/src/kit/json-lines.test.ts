import { describe, expect, test } from "bun:test";
import { jsonLines, jsonTokens } from "./json-lines.ts";

const pretty = JSON.stringify(
  { order: "A-17", items: [1, 2, { sku: "x" }], paid: true, note: null, empty: {} },
  null,
  2,
);

describe("JSON lines", () => {
  test("each opening line knows its closing line and how many entries it holds", () => {
    const lines = jsonLines(pretty);
    expect(lines[0]).toMatchObject({ closes: lines.length - 1, entries: 5 });
    const items = lines.findIndex((l) => l.text.includes('"items"'));
    expect(lines[items]).toMatchObject({ entries: 3 });
    expect(lines[lines[items]?.closes ?? 0]?.text.trim()).toBe("],");
    const nested = lines.findIndex((l) => l.text.trim() === "{" && l.indent > 0);
    expect(lines[nested]).toMatchObject({ entries: 1, closes: nested + 2 });
  });

  test("tokens rebuild the line exactly and name what they are", () => {
    for (const line of pretty.split("\n")) {
      expect(
        jsonTokens(line)
          .map((t) => t.text)
          .join(""),
      ).toBe(line);
    }
    const kinds = (line: string) => jsonTokens(line).filter((t) => t.kind !== "space");
    expect(kinds('  "order": "A-17",')).toEqual([
      { kind: "key", text: '"order"' },
      { kind: "punct", text: ":" },
      { kind: "string", text: '"A-17"' },
      { kind: "punct", text: "," },
    ]);
    expect(kinds("  -1.5e3,").map((t) => t.kind)).toEqual(["number", "punct"]);
    expect(kinds('  "a\\"b": null').map((t) => t.kind)).toEqual(["key", "punct", "literal"]);
  });
});
