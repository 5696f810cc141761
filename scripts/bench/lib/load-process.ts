import { trackProcess } from "./cleanup.ts";
import type { RunOptions } from "./types.ts";

/**
 * Runs a scenario's own load generator (`script`, a Bun file) as a process behind the load
 * pinning, hands it `plan` as its one JSON argument and returns the JSON it prints. It is killed
 * when it outlives the measured seconds by `graceMs`; a non-zero exit throws with its stderr.
 */
export async function runLoadProcess<Result>(
  script: string,
  plan: unknown,
  options: RunOptions,
  graceMs: number,
): Promise<Result> {
  const argv = [...options.loadPrefix, process.execPath, script, JSON.stringify(plan)];
  const proc = trackProcess(Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" }));
  const hang = setTimeout(() => proc.kill("SIGKILL"), options.durationSec * 1000 + graceMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(hang);
  const name = script.split("/").at(-1);
  if (code !== 0) throw new Error(`${name} exited ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout) as Result;
}
