import { expect } from "bun:test";
import { join } from "node:path";
import { loadSecretKey } from "../shared/secret-key.ts";

export const REPO_ROOT = join(import.meta.dir, "../..");

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `bun src/main.ts ...args` from the repo root with a clean WEIR_* environment. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  prefix: string[] = [],
): CliResult {
  const result = Bun.spawnSync([...prefix, "bun", "src/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...cleanEnv(), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
  };
}

/** Starts `bun src/main.ts ...args` in the background. */
export function spawnCli(args: string[], env: Record<string, string> = {}) {
  return Bun.spawn(["bun", "src/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...cleanEnv(), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Collects a child's output as it arrives: read `text` for what came so far. */
export function collect(stream: ReadableStream<Uint8Array>) {
  const state = { text: "" };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) state.text += decoder.decode(chunk, { stream: true });
  })();
  return state;
}

/** The caller's environment without WEIR_* settings, so the developer's shell cannot leak in. */
export function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key, value]) => !key.startsWith("WEIR_") && value !== undefined,
    ),
  ) as Record<string, string>;
}

/**
 * How to run the CLI as a user without write access to root-owned directories: root ignores
 * file modes, so as root the CLI runs as `nobody` (when that user can read this checkout).
 * Undefined when neither is possible here.
 */
export function unprivilegedPrefix(): string[] | undefined {
  if (process.getuid?.() !== 0) return [];
  const prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
  const probe = runCli(["version"], { HOME: "/tmp" }, prefix);
  return probe.exitCode === 0 ? prefix : undefined;
}

/** Makes `dir` what a started server leaves: a migrated weir.db plus secret.key. */
export function preparedDir(dir: string): string {
  const migrate = runCli(["migrate", "--data-dir", dir]);
  expect(migrate.stderr).toBe("");
  expect(migrate.exitCode).toBe(0);
  loadSecretKey(dir, ""); // only `serve` creates it otherwise
  return dir;
}
