/** Running wrk against one server. */
import { join } from "node:path";
import { trackProcess } from "./cleanup.ts";
import type { RequestSpec, RunOptions, RunTarget } from "./types.ts";
import { parseWrkOutput, type WrkResult } from "./wrk-parse.ts";
import { buildWrkScript } from "./wrk-script.ts";

/** Extra time wrk gets past its duration before it counts as hung and is killed. */
const HANG_MARGIN_MS = 30_000;

export function wrkPath(): string | null {
  return Bun.which("wrk");
}

/** One wrk run: one thread (one core for the load), `connections` connections, --latency. */
export async function runWrk(
  request: RequestSpec,
  target: RunTarget,
  options: RunOptions,
): Promise<WrkResult> {
  const script = join(options.dir, "request.lua");
  await Bun.write(script, buildWrkScript(request));
  const argv = [
    ...options.loadPrefix,
    wrkPath() ?? "wrk",
    "-t1",
    `-c${options.connections}`,
    `-d${options.durationSec}s`,
    "--latency",
    "-s",
    script,
    `${target.origin}${request.path}`,
  ];
  const proc = trackProcess(Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" }));
  const hang = setTimeout(() => proc.kill("SIGKILL"), options.durationSec * 1000 + HANG_MARGIN_MS);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(hang);
  if (code !== 0) throw new Error(`wrk exited ${code}: ${stderr.trim() || stdout.trim()}`);
  return parseWrkOutput(stdout);
}
