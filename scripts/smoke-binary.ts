#!/usr/bin/env bun
/**
 * Smoke test of the compiled binary, the only place binary-only failures show (embedded files,
 * migrations imported as text, the single-file QuickJS variant, .env/bunfig autoloading).
 * Builds dist/weir (unless --no-build), then runs it from an EMPTY temp directory holding a
 * hostile .env and a garbage bunfig.toml, and checks the CLI, the server and its data dir.
 *
 * Usage: bun scripts/smoke-binary.ts [--no-build]
 */
import { Database } from "bun:sqlite";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../src/test-utils/free-port.ts";

const root = join(import.meta.dir, "..");
const binary = join(root, "dist/weir");
const STARTUP_DEADLINE_MS = 15_000;
const STOP_DEADLINE_MS = 5_000;

type Outcome = { name: string; ok: boolean; detail: string };
const outcomes: Outcome[] = [];
const cleanups: (() => void)[] = [];
const metrics: Record<string, string> = {};

class CheckFailed extends Error {}

/** Throws a CheckFailed with `message` unless `condition` holds. */
function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

function assertContentType(response: Response, expected: string): void {
  const actual = response.headers.get("content-type") ?? "";
  assert(actual.includes(expected), `content-type ${actual || "(none)"}, expected ${expected}`);
}

/** Runs one named check; a throw is a failure with its message, never an abort of the run. */
async function check(name: string, run: () => unknown): Promise<boolean> {
  try {
    const detail = await run();
    outcomes.push({ name, ok: true, detail: typeof detail === "string" ? detail : "" });
    console.log(`  ok    ${name}${typeof detail === "string" && detail ? `  (${detail})` : ""}`);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    outcomes.push({ name, ok: false, detail: message });
    console.log(`  FAIL  ${name}: ${message}`);
    return false;
  }
}

function cleanup(): void {
  for (const undo of cleanups.splice(0).reverse()) {
    try {
      undo();
    } catch {
      // Best effort: the other cleanups still run.
    }
  }
}

/** The environment of every child: ours minus WEIR_* so only the temp dir's files could leak in. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("WEIR_")) env[key] = value;
  }
  return env;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the binary to completion (killed after `timeoutMs`). */
function runWeir(args: string[], cwd: string, timeoutMs = 15_000): RunResult {
  const result = Bun.spawnSync([binary, ...args], {
    cwd,
    env: childEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: timeoutMs,
  });
  return {
    code: result.exitCode,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
  };
}

function describe(result: RunResult): string {
  const text = (result.stderr || result.stdout).trim().split("\n").slice(-3).join(" | ");
  return `exit ${result.code}${text ? `: ${text}` : ""}`;
}

function mib(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

/** A temp dir with nothing but files that must NOT influence the binary. */
function makeHostileDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "weir-smoke-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, ".env"), "WEIR_PORT=1\n");
  writeFileSync(join(dir, "bunfig.toml"), "this is [[not toml\n preload = = ]]\n\u0000garbage\n");
  return dir;
}

function build(): void {
  console.log("smoke: building dist/weir (./scripts/build)");
  const result = Bun.spawnSync(["bash", join(root, "scripts/build")], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.exitCode !== 0) {
    console.error(`smoke: build failed (exit ${result.exitCode})`);
    console.log("smoke: 0 passed, 1 failed");
    process.exit(1);
  }
}

async function cliChecks(cwd: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  await check("weir version", () => {
    const r = runWeir(["version"], cwd);
    assert(r.code === 0, describe(r));
    assert(r.stdout.trim() === `weir ${pkg.version}`, `printed ${JSON.stringify(r.stdout.trim())}`);
    return r.stdout.trim();
  });
  await check("weir --help", () => {
    const r = runWeir(["--help"], cwd);
    assert(r.code === 0, describe(r));
    for (const command of ["serve", "migrate", "healthcheck"]) {
      assert(r.stdout.includes(command), `help does not mention ${command}`);
    }
  });
  await check(".env and bunfig.toml in the cwd are not autoloaded", () => {
    const r = runWeir(["config", "print", "--json"], cwd);
    assert(r.code === 0, `${describe(r)} (a garbage bunfig.toml was read?)`);
    const port = (JSON.parse(r.stdout) as Record<string, { value: unknown; source: string }>).port;
    assert(
      port?.value === 8080 && port.source === "default",
      `port is ${JSON.stringify(port)}: .env was loaded`,
    );
  });
  await check("unusable data dir: exit 1, one line on stderr, no stack", () => {
    const file = join(cwd, "not-a-dir");
    writeFileSync(file, "x");
    const r = runWeir(
      ["serve", "--host", "127.0.0.1", "--port", String(freePort()), "--data-dir", file],
      cwd,
    );
    const lines = r.stderr.trim().split("\n").filter(Boolean);
    assert(r.code === 1, `exit ${r.code}, wanted 1`);
    assert(
      lines.length === 1,
      `stderr has ${lines.length} lines: ${r.stderr.trim().slice(0, 400)}`,
    );
    assert(!/^\s+at /m.test(r.stderr), "stderr holds a stack trace");
    return lines[0];
  });
  await check(
    "QuickJS sandbox runs in a worker of the binary (weir sandbox-selftest --json)",
    () => {
      const r = runWeir(["sandbox-selftest", "--json"], cwd);
      assert(r.code === 0, describe(r));
      const out = JSON.parse(r.stdout) as {
        ok?: unknown;
        result?: unknown;
        timeout_kind?: unknown;
        in_worker?: unknown;
        realm_reused?: unknown;
      };
      assert(out.ok === true, `ok is ${JSON.stringify(out.ok)}`);
      assert(
        JSON.stringify(out.result) === '{"sum":3,"doubled":6}',
        `result ${JSON.stringify(out.result)} (the host function call did not come back)`,
      );
      assert(out.timeout_kind === "timeout", `timeout_kind is ${JSON.stringify(out.timeout_kind)}`);
      assert(out.in_worker === true, `in_worker is ${JSON.stringify(out.in_worker)}`);
      assert(
        out.realm_reused === true,
        `realm_reused is ${JSON.stringify(out.realm_reused)} (a frozen realm was not reused cleanly)`,
      );
      return `result ${JSON.stringify(out.result)}, in a worker thread, a frozen realm reused`;
    },
  );
}

interface Server {
  proc: Bun.Subprocess;
  cwd: string;
  port: number;
  dataDir: string;
  log: string;
  get(path: string): Promise<Response>;
}

function startServer(cwd: string): Server {
  const port = freePort();
  const dataDir = join(cwd, "data");
  const log = join(cwd, "server.log");
  const proc = Bun.spawn(
    [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir],
    {
      cwd,
      env: childEnv(),
      stdin: "ignore",
      stdout: Bun.file(log),
      stderr: Bun.file(`${log}.err`),
    },
  );
  cleanups.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  const get = (path: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
  return { proc, cwd, port, dataDir, log, get };
}

async function waitHealthy(server: Server, startedAt: number): Promise<number> {
  while (performance.now() - startedAt < STARTUP_DEADLINE_MS) {
    if (server.proc.exitCode !== null) {
      const err = existsSync(`${server.log}.err`)
        ? readFileSync(`${server.log}.err`, "utf8").trim()
        : "";
      throw new CheckFailed(`server exited with ${server.proc.exitCode}: ${err.slice(0, 400)}`);
    }
    const response = await server.get("/healthz").catch(() => undefined);
    if (response?.status === 200) {
      const body = (await response.json()) as { status?: string };
      assert(body.status === "ok", `/healthz said ${JSON.stringify(body)}`);
      return performance.now() - startedAt;
    }
    await Bun.sleep(10);
  }
  throw new CheckFailed(`/healthz did not answer 200 within ${STARTUP_DEADLINE_MS} ms`);
}

async function dataDirChecks(server: Server): Promise<void> {
  await check("weir.db has every migration of migrations/", () => {
    const path = join(server.dataDir, "weir.db");
    assert(existsSync(path), `${path} does not exist`);
    const expected = readdirSync(join(root, "migrations"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => f.slice(0, -4))
      .sort();
    const db = new Database(path, { readonly: true });
    try {
      const applied = db
        .query<{ name: string }, []>("SELECT name FROM _migrations ORDER BY name")
        .all()
        .map((row) => row.name);
      assert(
        JSON.stringify(applied) === JSON.stringify(expected),
        `applied ${applied.join(",")} != files ${expected.join(",")}`,
      );
      return `${applied.length} migration(s)`;
    } finally {
      db.close();
    }
  });
  await check("secret.key exists with mode 0600", () => {
    const path = join(server.dataDir, "secret.key");
    assert(existsSync(path), `${path} does not exist`);
    const mode = statSync(path).mode & 0o777;
    assert(mode === 0o600, `mode is ${mode.toString(8)}`);
  });
}

async function httpChecks(server: Server): Promise<void> {
  await check("GET / serves the embedded UI (or placeholder) as text/html", async () => {
    const r = await server.get("/");
    const body = await r.text();
    assert(r.status === 200, `status ${r.status}`);
    assertContentType(r, "text/html");
    assert(/<html/i.test(body), "body is not an HTML page");
    return `${body.length} bytes`;
  });
  await check("GET /api/openapi.json is an OpenAPI document", async () => {
    const r = await server.get("/api/openapi.json");
    assert(r.status === 200, `status ${r.status}`);
    const doc = (await r.json()) as { openapi?: unknown; paths?: unknown };
    assert(typeof doc.openapi === "string", "no openapi field");
    assert(doc.paths !== null && typeof doc.paths === "object", "no paths object");
    return `openapi ${doc.openapi}, ${Object.keys(doc.paths as object).length} path(s)`;
  });
  await check("GET /api/docs is HTML", async () => {
    const r = await server.get("/api/docs");
    await r.arrayBuffer();
    assert(r.status === 200, `status ${r.status}`);
    assertContentType(r, "text/html");
  });
  await check("GET /api/v1/nope is 404 JSON {error:not_found}", async () => {
    const r = await server.get("/api/v1/nope");
    const text = await r.text();
    assert(r.status === 404, `status ${r.status}`);
    assertContentType(r, "application/json");
    assert(
      (JSON.parse(text) as { error?: string }).error === "not_found",
      `body ${text.slice(0, 200)}`,
    );
  });
  if (existsSync(join(root, "ui/dist"))) await uiDistCheck(server);
  await check("weir healthcheck --port exits 0 while the server runs", () => {
    const r = runWeir(["healthcheck", "--port", String(server.port)], server.cwd);
    assert(r.code === 0, describe(r));
  });
  await check("logs are JSON lines on stdout", () => {
    const first = readFileSync(server.log, "utf8").split("\n")[0] ?? "";
    assert(first.startsWith("{"), `first line: ${first.slice(0, 200)}`);
    JSON.parse(first);
  });
}

/** With a built UI, every file of ui/dist must come back from the binary byte for byte. */
async function uiDistCheck(server: Server): Promise<void> {
  await check("every file of ui/dist is embedded and served byte for byte", async () => {
    const dist = join(root, "ui/dist");
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) =>
      statSync(join(dist, f)).isFile(),
    );
    for (const file of files) {
      const path = `/${file.split("\\").join("/")}`;
      const r = await server.get(path);
      const body = Buffer.from(await r.arrayBuffer());
      assert(r.status === 200, `${path}: status ${r.status}`);
      assert(body.equals(readFileSync(join(dist, file))), `${path}: bytes differ from ui/dist`);
    }
    return `${files.length} file(s)`;
  });
  await check("the real UI is served: index.html no-cache, hashed assets immutable", async () => {
    const index = await server.get("/");
    const html = await index.text();
    assert(html.includes('id="app"'), "GET / is not the built UI (placeholder embedded?)");
    assert(index.headers.get("cache-control") === "no-cache", "index.html must not be cached");
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert(script, "index.html references no /assets/*.js");
    const asset = await server.get(script);
    await asset.arrayBuffer();
    assert(asset.status === 200, `${script}: status ${asset.status}`);
    const cache = asset.headers.get("cache-control") ?? "";
    assert(cache.includes("immutable"), `${script}: cache-control ${cache}`);
  });
  await check("SPA fallback for UI paths only; capture and API 404s stay JSON", async () => {
    const deep = await server.get("/endpoints/some-id");
    assert(deep.status === 200 && (await deep.text()).includes('id="app"'), "no SPA fallback");
    for (const path of ["/w/no-such-slug", "/api/v1/no-such-thing"]) {
      const r = await server.get(path);
      await r.arrayBuffer();
      assert(r.status === 404, `${path}: status ${r.status}`);
      assertContentType(r, "application/json");
    }
  });
}

/**
 * A capture through the binary: an endpoint row is written straight into its database (the
 * server reads it on the next request), then a binary body goes to a capture URL and must come
 * back from weir.db byte for byte, acknowledged only once committed.
 */
async function captureChecks(server: Server): Promise<void> {
  const slug = "smoke-capture";
  const body = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
  await check(
    "POST /w/{slug}/sub?q=1 stores the body byte-exact before answering 200",
    async () => {
      const db = new Database(join(server.dataDir, "weir.db"));
      try {
        const stamp = new Date().toISOString();
        db.run(
          "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
          ["smoke-org", "smoke", "team", stamp, stamp],
        );
        db.run(
          "INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?)",
          ["smoke-endpoint", "smoke-org", "smoke", slug, stamp, stamp],
        );
        const r = await fetch(`http://127.0.0.1:${server.port}/w/${slug}/sub?q=1`, {
          method: "POST",
          headers: { "content-type": "application/octet-stream" },
          body,
          signal: AbortSignal.timeout(5000),
        });
        const answer = (await r.json()) as { message?: string; request_id?: string };
        assert(r.status === 200, `status ${r.status}`);
        assert(answer.message === "Webhook received", `body ${JSON.stringify(answer)}`);
        const row = db
          .query<{ body: Uint8Array; path: string; query_string: string }, [string]>(
            "SELECT body, path, query_string FROM captured_requests WHERE id = ?",
          )
          .get(answer.request_id ?? "");
        assert(row, `request ${answer.request_id} is not in weir.db`);
        assert(
          Buffer.from(row.body).equals(Buffer.from(body)),
          "stored body differs from the one sent",
        );
        assert(
          row.path === "/sub" && row.query_string === "q=1",
          `path ${row.path} query ${row.query_string}`,
        );
        return `request ${answer.request_id}`;
      } finally {
        db.close();
      }
    },
  );
  await check("a capture URL with an unknown slug is 404 {error:not_found}", async () => {
    const r = await server.get("/debug/no-such-endpoint");
    const text = await r.text();
    assert(r.status === 404, `status ${r.status}`);
    assert(
      (JSON.parse(text) as { error?: string }).error === "not_found",
      `body ${text.slice(0, 200)}`,
    );
  });
}

function readRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  assert(kb, "no VmRSS in /proc status");
  return Number(kb) * 1024;
}

async function stopChecks(server: Server): Promise<void> {
  await check(`SIGTERM stops the server with exit 0 within ${STOP_DEADLINE_MS} ms`, async () => {
    const startedAt = performance.now();
    server.proc.kill("SIGTERM");
    const timeout = Bun.sleep(STOP_DEADLINE_MS).then(() => "timeout" as const);
    const code = await Promise.race([server.proc.exited, timeout]);
    assert(code !== "timeout", "still running after the deadline");
    assert(code === 0, `exit ${code} (signal ${server.proc.signalCode})`);
    return `${Math.round(performance.now() - startedAt)} ms`;
  });
  await check("weir healthcheck --port exits 1 once the server is stopped", () => {
    const r = runWeir(
      ["healthcheck", "--port", String(server.port), "--timeout", "1000"],
      server.cwd,
    );
    assert(r.code === 1, describe(r));
  });
}

async function serverChecks(cwd: string): Promise<void> {
  const startedAt = performance.now();
  const server = startServer(cwd);
  const up = await check("GET /healthz answers 200 {status:ok}", async () => {
    const ms = await waitHealthy(server, startedAt);
    metrics["startup to /healthz"] = `${Math.round(ms)} ms`;
    return `${Math.round(ms)} ms after spawn`;
  });
  if (!up) {
    console.log(
      `  (server stderr: ${existsSync(`${server.log}.err`) ? readFileSync(`${server.log}.err`, "utf8").slice(0, 800) : ""})`,
    );
  }
  await dataDirChecks(server);
  await httpChecks(server);
  await captureChecks(server);
  if (server.proc.exitCode === null) {
    for (let i = 0; i < 20; i++)
      await (await server.get("/healthz").catch(() => undefined))?.arrayBuffer();
    // Not a wait for a condition: a short quiet spell so the figure is idle RSS, not in-flight.
    await Bun.sleep(300);
    await check("idle RSS readable from /proc", () => {
      metrics["idle RSS"] = mib(readRss(server.proc.pid));
      return metrics["idle RSS"];
    });
  }
  await stopChecks(server);
}

async function main(): Promise<number> {
  if (!process.argv.includes("--no-build")) build();
  if (!existsSync(binary)) {
    console.error(`smoke: ${binary} does not exist; run ./scripts/build`);
    return 1;
  }
  metrics["binary size"] = mib(statSync(binary).size);
  const cwd = makeHostileDir();
  console.log(`smoke: running ${binary} from ${cwd}`);
  await cliChecks(cwd);
  await serverChecks(cwd);
  for (const [name, value] of Object.entries(metrics)) console.log(`  metric ${name}: ${value}`);
  const failed = outcomes.filter((o) => !o.ok).length;
  console.log(`smoke: ${outcomes.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}
let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(`smoke: aborted: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  cleanup();
}
process.exit(exitCode);
