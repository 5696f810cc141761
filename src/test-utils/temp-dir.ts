import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh directory under the system temp dir, and the function that removes it. */
export function makeTempDir(prefix = "weir-test-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * For a test file: returns a maker of temp dirs that are all removed after each test.
 * Call it at the top level of the file.
 */
export function useTempDirs(prefix = "weir-test-"): () => string {
  const made: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const dir of made.splice(0)) dir.remove();
  });
  return () => {
    const dir = makeTempDir(prefix);
    made.push(dir);
    return dir.path;
  };
}
