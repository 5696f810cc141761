import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSecretKey } from "../shared/secret-key.ts";
import { runCli } from "./cli.test-helpers.ts";

// Helpers shared by the doctor and backup tests (the CLI runners come from cli.test-helpers.ts).

const dirs: string[] = [];

/** A fresh `weir-*` temp dir, removed by `removeTempDirs`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "weir-"));
  dirs.push(dir);
  return dir;
}

/** Removes every dir `tempDir` made (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A data dir as a started server leaves it: a migrated weir.db plus secret.key. */
export function preparedDir(): string {
  const dir = tempDir();
  const migrate = runCli(["migrate", "--data-dir", dir]);
  expect(migrate.stderr).toBe("");
  expect(migrate.exitCode).toBe(0);
  loadSecretKey(dir, ""); // only `serve` creates it otherwise
  return dir;
}

/** Polls `ready` until it holds or `ms` pass (no fixed sleeps in tests). */
export async function waitFor(
  ready: () => boolean,
  ms = 10_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}
