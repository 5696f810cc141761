import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { openDatabase, StartupError } from "./db.open.ts";

const tempDir = useTempDirs();

test("full durability: WAL, synchronous=FULL, foreign keys on, busy timeout", () => {
  const db = openDatabase(tempDir(), "full");
  const pragma = (name: string) =>
    Object.values(db.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("synchronous")).toBe(2);
  expect(pragma("foreign_keys")).toBe(1);
  expect(pragma("busy_timeout")).toBe(5000);
  db.close();
});

test("normal durability uses synchronous=NORMAL", () => {
  const db = openDatabase(tempDir(), "normal");
  expect(db.sqlite.query("PRAGMA synchronous").get()).toEqual({ synchronous: 1 });
  db.close();
});

test("creates a missing data dir, including parents", () => {
  const dir = join(tempDir(), "a", "b");
  openDatabase(dir).close();
});

test("a data dir that is a file is a StartupError", () => {
  const file = join(tempDir(), "file");
  writeFileSync(file, "");
  expect(() => openDatabase(file)).toThrow(StartupError);
});

test("a file that is not a database is a StartupError", () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, "weir.db"),
    "this is not sqlite, just text that is long enough to be read as a header",
  );
  expect(() => openDatabase(dir)).toThrow(/cannot be opened/);
});
