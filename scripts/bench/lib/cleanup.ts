/**
 * Everything the harness starts or creates is registered here, so that a normal end, an error and
 * Ctrl-C all leave no server, no wrk and no temp dir behind. The exit-time path is synchronous
 * because `process.on("exit")` cannot await.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

const processes = new Set<Subprocess>();
const dirs = new Set<string>();
let installed = false;

export function trackProcess<T extends Subprocess>(proc: T): T {
  processes.add(proc);
  void proc.exited.then(() => processes.delete(proc));
  return proc;
}

/** A new temp dir under the OS temp dir, removed on exit. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** Kills what is still running (SIGKILL: no time is left to be polite) and removes temp dirs. */
export function cleanupNow(): void {
  for (const proc of processes) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  }
  processes.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

/** Installs the exit, signal and crash hooks once. */
export function installCleanupHooks(): void {
  if (installed) return;
  installed = true;
  process.on("exit", cleanupNow);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping servers and removing temp dirs`);
      cleanupNow();
      process.exit(code);
    });
  }
}
