import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_TABLE } from "./config.table.ts";

test("docs/configuration.md documents every key and its environment variable", () => {
  const doc = readFileSync(join(import.meta.dir, "../../docs/configuration.md"), "utf8");
  const missing = Object.entries(CONFIG_TABLE)
    .filter(([key, entry]) => !doc.includes(`| ${key} | \`${entry.env}\``))
    .map(([key]) => key);
  expect(missing).toEqual([]);
});
