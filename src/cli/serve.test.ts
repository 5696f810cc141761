import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnCli, unprivilegedPrefix } from "../test-utils/cli.ts";
import { freePort } from "../test-utils/free-port.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const tempDir = useTempDirs("weir-cli-");

const expectOneLineFailure = (result: { exitCode: number; stderr: string }, pattern: RegExp) => {
  expect(result.exitCode).toBe(1);
  const lines = result.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^weir: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toContain("    at ");
};

describe("weir serve", () => {
  test("starts on a fresh data dir: WAL database, 0600 secret key, /healthz, clean SIGTERM", async () => {
    const dataDir = join(tempDir(), "data");
    const port = freePort();
    const child = spawnCli([
      "serve",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--data-dir",
      dataDir,
    ]);
    try {
      const health = await pollUntil(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/healthz`);
          return response.ok ? response.json() : undefined;
        },
        { timeoutMs: 15_000, what: "/healthz" },
      );
      expect(health).toMatchObject({ status: "ok" });
      expect(statSync(join(dataDir, "secret.key")).mode & 0o777).toBe(0o600);
      const db = new Database(join(dataDir, "weir.db"), { readonly: true });
      expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(db.query("SELECT count(*) AS n FROM _migrations").get()).toEqual({
        n: expect.any(Number),
      });
      db.close();
    } finally {
      child.kill("SIGTERM");
    }
    expect(await child.exited).toBe(0);
  });

  test("a data dir that is a file stops start-up with one line and exit 1", () => {
    const file = join(tempDir(), "not-a-dir");
    writeFileSync(file, "x");
    expectOneLineFailure(
      runCli(["serve", "--port", "0", "--data-dir", file]),
      /data dir .* is not a directory$/,
    );
  });

  const unprivileged = unprivilegedPrefix();
  test.skipIf(unprivileged === undefined)(
    "a data dir that is not writable stops start-up with one line and exit 1",
    () => {
      const parent = tempDir();
      const dataDir = join(parent, "read-only");
      mkdirSync(dataDir);
      chmodSync(parent, 0o755);
      chmodSync(dataDir, 0o555);
      const result = runCli(
        ["serve", "--port", "0", "--data-dir", dataDir],
        { HOME: "/tmp" },
        unprivileged,
      );
      expectOneLineFailure(result, /data dir .* is not writable/);
    },
  );

  test("a database newer than the binary stops start-up with one line and exit 1", () => {
    const dataDir = tempDir();
    expect(runCli(["migrate", "--data-dir", dataDir]).exitCode).toBe(0);
    const db = new Database(join(dataDir, "weir.db"));
    db.run(
      "INSERT INTO _migrations (name, checksum, applied_at) VALUES ('9999_future', 'x', 'now')",
    );
    db.close();
    expectOneLineFailure(
      runCli(["serve", "--port", "0", "--data-dir", dataDir]),
      /9999_future.*newer version/,
    );
  });

  test("an invalid setting stops start-up naming the key", () => {
    expectOneLineFailure(
      runCli(["serve", "--data-dir", tempDir()], { WEIR_PORT: "eighty" }),
      /invalid port \(WEIR_PORT\)/,
    );
  });

  test("a WEIR_SECRET_KEY shorter than 32 bytes stops start-up with one line, never echoed", () => {
    const result = runCli(["serve", "--port", "0", "--data-dir", tempDir()], {
      WEIR_SECRET_KEY: "weak-passphrase",
    });
    expectOneLineFailure(
      result,
      /invalid secret_key \(WEIR_SECRET_KEY\): must carry at least 32 bytes/,
    );
    expect(result.stderr).not.toContain("weak-passphrase");
  });

  test("a port already in use is one line, not a stack trace", () => {
    const busy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    try {
      const result = runCli([
        "serve",
        "--port",
        String(busy.port),
        "--host",
        "127.0.0.1",
        "--data-dir",
        tempDir(),
      ]);
      expectOneLineFailure(result, /cannot listen on 127\.0\.0\.1:\d+/);
    } finally {
      busy.stop(true);
    }
  });

  test("weir.toml in the data dir configures the server", async () => {
    const dataDir = tempDir();
    const port = freePort();
    writeFileSync(join(dataDir, "weir.toml"), `port = ${port}\nhost = "127.0.0.1"\n`);
    const child = spawnCli(["serve", "--data-dir", dataDir]);
    try {
      await pollUntil(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, {
        timeoutMs: 15_000,
        what: "/healthz",
      });
    } finally {
      child.kill("SIGTERM");
      await child.exited;
    }
  });
});

describe("other commands", () => {
  test("migrate applies once, then is a no-op", () => {
    const dataDir = tempDir();
    const first = runCli(["migrate", "--data-dir", dataDir, "--json"]);
    expect(first.exitCode).toBe(0);
    expect(JSON.parse(first.stdout).applied.length).toBeGreaterThan(0);
    const second = runCli(["migrate", "--data-dir", dataDir, "--json"]);
    expect(JSON.parse(second.stdout).applied).toEqual([]);
  });

  test("version prints the package version, also as JSON", () => {
    const { version } = require("../../package.json");
    expect(runCli(["version"]).stdout.trim()).toBe(`weir ${version}`);
    expect(JSON.parse(runCli(["version", "--json"]).stdout)).toMatchObject({
      version,
      schema: expect.any(String),
    });
  });

  test("config print shows sources and redacts secrets", () => {
    const result = runCli(["config", "print", "--json", "--data-dir", tempDir()], {
      WEIR_SECRET_KEY: "c0ffee".repeat(11).slice(0, 64),
      WEIR_LOG_LEVEL: "warn",
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain("c0ffee");
    const config = JSON.parse(result.stdout);
    expect(config.secret_key.value).toBe("(redacted)");
    expect(config.log_level).toEqual({ value: "warn", source: "env", env: "WEIR_LOG_LEVEL" });
    expect(config.port.source).toBe("default");
  });

  test("healthcheck exits 1 when nothing answers", () => {
    const result = runCli(["healthcheck", "--port", String(freePort())]);
    expectOneLineFailure(result, /did not answer/);
  });

  test("--help works on every command", () => {
    const top = runCli(["--help"]);
    expect(top.exitCode).toBe(0);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z-]+)(?: \[options\]| )/gm)].map(
      (m) => m[1] as string,
    );
    expect(commands).toEqual(
      expect.arrayContaining(["serve", "migrate", "version", "config", "healthcheck"]),
    );
    for (const command of commands.filter((c) => c !== "help")) {
      const help = runCli([command, "--help"]);
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toContain(`Usage: weir ${command}`);
    }
  });
});
