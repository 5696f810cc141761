import { expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { loadSecretKey } from "./secret-key.ts";

const tempDir = useTempDirs();

test("created on first use with mode 0600, then read back unchanged", () => {
  const dir = tempDir();
  const first = loadSecretKey(dir, "");
  expect(first).toHaveLength(32);
  expect(statSync(join(dir, "secret.key")).mode & 0o777).toBe(0o600);
  const text = readFileSync(join(dir, "secret.key"), "utf8");
  expect(loadSecretKey(dir, "")).toEqual(first);
  expect(readFileSync(join(dir, "secret.key"), "utf8")).toBe(text);
});

test("two data dirs get different keys", () => {
  expect(loadSecretKey(tempDir(), "")).not.toEqual(loadSecretKey(tempDir(), ""));
});

test("a key readable by others is refused", () => {
  const dir = tempDir();
  loadSecretKey(dir, "");
  chmodSync(join(dir, "secret.key"), 0o644);
  expect(() => loadSecretKey(dir, "")).toThrow(/readable by others.*chmod 600/);
});

test("a corrupt key file is refused, never replaced", () => {
  const dir = tempDir();
  writeFileSync(join(dir, "secret.key"), "short\n", { mode: 0o600 });
  expect(() => loadSecretKey(dir, "")).toThrow(/not a valid Weir secret key/);
  expect(readFileSync(join(dir, "secret.key"), "utf8")).toBe("short\n");
});

test("WEIR_SECRET_KEY overrides the file and writes nothing", () => {
  const dir = tempDir();
  const key = loadSecretKey(dir, "f".repeat(64));
  expect(key).toHaveLength(32);
  expect(() => statSync(join(dir, "secret.key"))).toThrow();
});
