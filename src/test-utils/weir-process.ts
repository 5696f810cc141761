import { join } from "node:path";
import type { Subprocess } from "bun";
import { cleanEnv, runCli } from "./cli.ts";
import { freePort } from "./free-port.ts";
import { pollUntil } from "./poll.ts";
import { onPostgres, pgDatabaseFor, TEST_SECRET_KEY } from "./test-store.ts";

const MAIN = join(import.meta.dir, "../main.ts");

export interface WeirProcess {
  proc: Subprocess;
  url: string;
}

/**
 * `weir serve` as its own process on `dataDir` (the caller's WEIR_* settings left out, `env`
 * added), once it answers /healthz. It is pushed onto `running` so the caller's afterEach can
 * kill whatever is left. With `WEIR_TEST_STORE=postgres` (and no database in `env`) it runs on
 * the data dir's own PostgreSQL database, kept across restarts of that data dir.
 */
export async function startWeirProcess(
  dataDir: string,
  env: Record<string, string>,
  running: Subprocess[],
): Promise<WeirProcess> {
  const port = freePort();
  const args = ["serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir];
  const store =
    onPostgres && !env.WEIR_DATABASE_URL
      ? { WEIR_DATABASE_URL: (await pgDatabaseFor(dataDir)).url, WEIR_SECRET_KEY: TEST_SECRET_KEY }
      : {};
  const proc = Bun.spawn([process.execPath, MAIN, ...args], {
    env: { ...cleanEnv(), WEIR_LOG_LEVEL: "error", ...store, ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  running.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await pollUntil(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status === 200, {
    timeoutMs: 15_000,
    what: "weir serve to answer /healthz",
  });
  return { proc, url };
}

/**
 * `count` `weir serve` processes on one PostgreSQL database, started one after another (the
 * first applies the migrations), and the login of an operator of an enterprise organization
 * made with `weir admin` before any node serves, so no plan limit gets in a test's way.
 */
export async function startNodesOn(
  databaseUrl: string,
  count: number,
  dataDir: () => string,
  running: Subprocess[],
): Promise<{ nodes: WeirProcess[]; token: string }> {
  const credentials = { email: "ops@example.com", password: "a-long-password" };
  const created = runCli([
    "admin",
    "create-user",
    "--database",
    databaseUrl,
    "--email",
    credentials.email,
    "--password",
    credentials.password,
    "--org",
    "Ops",
    "--plan",
    "enterprise",
  ]);
  if (created.exitCode !== 0) throw new Error(`weir admin create-user: ${created.stderr}`);
  const env = { WEIR_DATABASE_URL: databaseUrl, WEIR_SECRET_KEY: "ab".repeat(32) };
  const nodes: WeirProcess[] = [];
  for (let i = 0; i < count; i++) nodes.push(await startWeirProcess(dataDir(), env, running));
  const login = await fetch(`${nodes[0]?.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(credentials),
  });
  const { token } = (await login.json()) as { token: string };
  return { nodes, token };
}

/**
 * Registers the operator of a fresh `weir serve` process through the API, as a person would on
 * first start; its login token.
 */
export async function registerOperator(url: string): Promise<string> {
  const answer = await fetch(`${url}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: "ops@example.com",
      password: "a-long-password",
      organization_name: "Ops",
    }),
  });
  const { token } = (await answer.json()) as { token?: string };
  if (answer.status !== 201 || !token) throw new Error(`register answered ${answer.status}`);
  return token;
}

/**
 * Load, then `kill -9` mid-stream: `senders` loops each call `send(index, n)` until the kill; once
 * `ready()` holds the process is killed while every sender has a request in flight. A send that
 * fails before the kill fails the test; after it, failures are what a crash looks like.
 */
export async function killMidStream(options: {
  proc: Subprocess;
  senders: number;
  send(index: number, n: number): Promise<void>;
  ready(): boolean;
  /** How long `ready()` may take. */
  timeoutMs: number;
  what: string;
}): Promise<void> {
  let killed = false;
  const loop = async (index: number) => {
    for (let n = 0; !killed; n++) {
      try {
        await options.send(index, n);
      } catch (error) {
        if (!killed) throw error;
      }
    }
  };
  const loops = Array.from({ length: options.senders }, (_, i) => loop(i));
  await pollUntil(options.ready, { timeoutMs: options.timeoutMs, what: options.what });
  options.proc.kill("SIGKILL");
  killed = true;
  await options.proc.exited;
  await Promise.all(loops);
}
