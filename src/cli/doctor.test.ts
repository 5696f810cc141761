import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { preparedDir, runCli as weir } from "../test-utils/cli.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const tempDir = useTempDirs();

type Report = { ok: boolean; checks: { name: string; status: string; detail: string }[] };

function doctorJson(dir: string, env: Record<string, string> = {}) {
  const run = weir(["doctor", "--json"], { WEIR_DATA_DIR: dir, ...env });
  expect(run.stderr).not.toContain("    at ");
  expect(run.stdout).not.toContain("    at ");
  const report = JSON.parse(run.stdout) as Report;
  const status = (name: string) => report.checks.find((c) => c.name === name);
  return { ...run, report, status };
}

describe("weir doctor", () => {
  test("a migrated data dir with a private secret.key is healthy", () => {
    const { exitCode: code, report, status } = doctorJson(preparedDir(tempDir()));
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      "config",
      "data_dir",
      "database",
      "migrations",
      "deliveries",
      "secret_key",
      "disk",
      "outbound",
      "public_url",
      "server",
    ]);
    for (const c of report.checks) {
      expect(["ok", "warn", "fail"]).toContain(c.status);
      expect(typeof c.detail).toBe("string");
    }
    for (const name of ["config", "data_dir", "database", "migrations", "secret_key", "outbound"]) {
      expect(status(name)?.status).toBe("ok");
    }
    expect(status("database")?.detail).toMatch(/integrity ok, \d+ pages \(.+\), WAL/);
  });

  test("open registration while server-side requests may reach the LAN is a warning", () => {
    const dir = preparedDir(tempDir());
    const open = doctorJson(dir, { WEIR_REGISTRATION: "open" });
    expect(open.exitCode).toBe(0);
    expect(open.status("outbound")).toEqual({
      name: "outbound",
      status: "warn",
      detail: expect.stringContaining("set WEIR_OUTBOUND_DENY"),
    });
    const denied = doctorJson(dir, {
      WEIR_REGISTRATION: "open",
      WEIR_OUTBOUND_DENY:
        "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7",
    });
    expect(denied.status("outbound")?.status).toBe("ok");
    const oneHole = doctorJson(dir, {
      WEIR_REGISTRATION: "open",
      WEIR_OUTBOUND_DENY:
        "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7",
      WEIR_OUTBOUND_ALLOW: "192.168.1.0/24",
    });
    expect(oneHole.status("outbound")?.status).toBe("warn");
  });

  test("public_url: unset is fine (URLs follow the request); a loopback base_url on all interfaces warns", () => {
    const dir = preparedDir(tempDir());
    expect(doctorJson(dir).status("public_url")).toMatchObject({
      status: "ok",
      detail: expect.stringContaining(
        "base_url not set: URLs handed out follow each request's Host",
      ),
    });
    const loopback = doctorJson(dir, { WEIR_BASE_URL: "http://localhost:8080" });
    expect(loopback.exitCode).toBe(0);
    expect(loopback.status("public_url")).toMatchObject({
      status: "warn",
      detail: expect.stringContaining(
        "is a loopback address while Weir listens on every interface",
      ),
    });
    const local = doctorJson(dir, {
      WEIR_BASE_URL: "http://localhost:8080",
      WEIR_HOST: "127.0.0.1",
    });
    expect(local.status("public_url")?.status).toBe("ok");
    const set = doctorJson(dir, { WEIR_BASE_URL: "https://hooks.example.com" });
    expect(set.status("public_url")).toEqual({
      name: "public_url",
      status: "ok",
      detail: "base_url https://hooks.example.com",
    });
  });

  test("deliveries due more than an hour ago and unsent are a backlog warning", () => {
    const dir = preparedDir(tempDir());
    expect(doctorJson(dir).status("deliveries")?.status).toBe("ok");
    const db = new Database(join(dir, "weir.db"));
    const insert = (id: string, dueAt: number) =>
      db.run(
        `INSERT INTO deliveries (id, kind, subject_id, destination_key, webhook_id, status,
           max_retries, next_attempt_at, created_at, updated_at)
         VALUES (?, 'forward', 'r', 'k', ?, 'pending', 2, ?, 'x', 'x')`,
        [id, `msg_${id}`, dueAt],
      );
    insert("recent", Date.now() - 60_000);
    expect(doctorJson(dir).status("deliveries")?.status).toBe("ok");
    insert("stale", Date.now() - 2 * 3_600_000);
    db.close();
    const { status, exitCode } = doctorJson(dir);
    expect(status("deliveries")?.status).toBe("warn");
    expect(status("deliveries")?.detail).toContain("1 of 2 queued deliveries are overdue");
    expect(exitCode).toBe(0);
  });

  test("text output has one line per check and a summary", () => {
    const dir = preparedDir(tempDir());
    const run = weir(["doctor", "--data-dir", dir]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^ok {4}database {5}integrity ok/m);
    expect(run.stdout).toMatch(/^ok {4}migrations {3}/m);
    expect(run.stdout).toMatch(/\d+ ok, \d+ warn, 0 fail/);
  });

  test("a missing data dir is one line, and doctor does not create it", () => {
    const dir = join(tempDir(), "absent");
    const run = weir(["doctor", "--json"], { WEIR_DATA_DIR: dir });
    expect([run.exitCode, run.stdout]).toEqual([1, ""]);
    expect(run.stderr).toBe(`weir: no database in ${dir} (run weir serve or weir migrate first)\n`);
    expect(existsSync(dir)).toBe(false);
  });

  test("no server running on the data dir is a warning, not a failure", () => {
    const { exitCode, status } = doctorJson(preparedDir(tempDir()), { WEIR_PORT: "1" });
    expect(exitCode).toBe(0);
    expect(status("server")).toEqual({
      name: "server",
      status: "warn",
      detail: "not running: http://127.0.0.1:1/healthz did not answer",
    });
  });

  test("a migration this weir does not know fails as a newer database", () => {
    const dir = preparedDir(tempDir());
    const db = new Database(join(dir, "weir.db"));
    db.run(
      "INSERT INTO _migrations (name, checksum, applied_at) VALUES ('9999_future', 'x', 'now')",
    );
    db.close();
    const { exitCode: code, status } = doctorJson(dir);
    expect(code).toBe(1);
    expect(status("migrations")?.status).toBe("fail");
    expect(status("migrations")?.detail).toContain("database is newer than this weir");
  });

  test("an applied migration whose text changed fails as a checksum mismatch", () => {
    const dir = preparedDir(tempDir());
    const db = new Database(join(dir, "weir.db"));
    db.run("UPDATE _migrations SET checksum = 'x'");
    db.close();
    const { exitCode: code, status } = doctorJson(dir);
    expect(code).toBe(1);
    expect(status("migrations")?.status).toBe("fail");
    expect(status("migrations")?.detail).toContain("checksum mismatch");
  });

  test("pending migrations are a warning, and doctor does not apply them", () => {
    const dir = preparedDir(tempDir());
    const db = new Database(join(dir, "weir.db"));
    db.run("DELETE FROM _migrations");
    db.close();
    const { exitCode: code, status, report } = doctorJson(dir);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(status("migrations")?.status).toBe("warn");
    expect(status("migrations")?.detail).toMatch(
      /^\d+ pending; run weir migrate or start the server$/,
    );
    const after = new Database(join(dir, "weir.db"), { readonly: true });
    expect(after.query("SELECT count(*) AS n FROM _migrations").get()).toEqual({ n: 0 });
    after.close();
  });

  test("a secret.key readable by others fails", () => {
    const dir = preparedDir(tempDir());
    chmodSync(join(dir, "secret.key"), 0o644);
    const { exitCode: code, status } = doctorJson(dir);
    expect(code).toBe(1);
    expect(status("secret_key")?.status).toBe("fail");
    expect(status("secret_key")?.detail).toContain("0644");
  });

  test("a bad WEIR_* value is a failed config check naming the key, not an abort", () => {
    const dir = preparedDir(tempDir());
    const { exitCode: code, status, report } = doctorJson(dir, { WEIR_PORT: "abc" });
    expect(code).toBe(1);
    expect(status("config")?.status).toBe("fail");
    expect(status("config")?.detail).toContain("WEIR_PORT");
    // The other checks still ran against the data dir.
    expect(status("database")?.status).toBe("ok");
    expect(report.checks).toHaveLength(7);
    const text = weir(["doctor"], { WEIR_DATA_DIR: dir, WEIR_PORT: "abc" });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/^fail {2}config {7}.*WEIR_PORT/m);
    expect(text.stdout + text.stderr).not.toContain("    at ");
  });
});
