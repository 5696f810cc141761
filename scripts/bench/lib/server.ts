/** Starting a server process, waiting until it answers, and stopping it. */
import { join } from "node:path";
import type { Subprocess } from "bun";
import { trackProcess } from "./cleanup.ts";
import type { ServerSpec } from "./types.ts";

const HOST = "127.0.0.1";
const POLL_MS = 50;
const STOP_GRACE_MS = 5000;

export interface RunningServer {
  proc: Subprocess;
  pid: number;
  port: number;
  origin: string;
  logPath: string;
}

/** The caller's environment without WEIR_* variables, so a run does not depend on who runs it. */
function cleanEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("WEIR_")) env[key] = value;
  }
  return { ...env, ...extra };
}

async function lastLines(path: string, count: number): Promise<string> {
  const file = Bun.file(path);
  if (!(await file.exists())) return "";
  return (await file.text()).trimEnd().split("\n").slice(-count).join("\n");
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Polls the health URL until 2xx, the process exits, or the deadline passes. */
async function waitHealthy(server: RunningServer, spec: ServerSpec): Promise<void> {
  const url = `${server.origin}${spec.healthPath}`;
  const deadline = Date.now() + (spec.startupTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
      const log = await lastLines(server.logPath, 15);
      throw new Error(
        `server exited (${server.proc.exitCode ?? server.proc.signalCode}) before answering ${url}\n${log}`,
      );
    }
    if (await answers(url)) return;
    await Bun.sleep(POLL_MS);
  }
  await stopServer(server);
  throw new Error(
    `server did not answer ${url} within ${spec.startupTimeoutMs ?? 30_000} ms\n${await lastLines(server.logPath, 15)}`,
  );
}

/** Starts `spec` (behind `prefix`, e.g. taskset) in `cwd`, logging to `<dir>/server.log`. */
export async function launchServer(
  spec: ServerSpec,
  options: { port: number; prefix: string[]; cwd: string; dir: string },
): Promise<RunningServer> {
  const logPath = join(options.dir, "server.log");
  const log = Bun.file(logPath);
  // Output goes to a file, not a pipe nobody reads, so a chatty server can never block on it.
  const proc = trackProcess(
    Bun.spawn([...options.prefix, ...spec.command], {
      cwd: options.cwd,
      env: cleanEnv(spec.env),
      stdin: "ignore",
      stdout: log,
      stderr: log,
    }),
  );
  const server = {
    proc,
    pid: proc.pid,
    port: options.port,
    origin: `http://${HOST}:${options.port}`,
    logPath,
  };
  await waitHealthy(server, spec);
  return server;
}

/** SIGTERM, then SIGKILL if it has not exited after a grace period. */
export async function stopServer(server: RunningServer): Promise<void> {
  const { proc } = server;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const exited = await Promise.race([
    proc.exited.then(() => true),
    Bun.sleep(STOP_GRACE_MS).then(() => false),
  ]);
  if (!exited) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}
