import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnCli } from "../test-utils/cli.ts";
import { freePort } from "../test-utils/free-port.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const tempDir = useTempDirs("weir-datadir-");

const expectOneLine = (result: { exitCode: number; stderr: string }, expected: string | RegExp) => {
  expect(result.exitCode).toBe(1);
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  if (typeof expected === "string") expect(result.stderr).toBe(`${expected}\n`);
  else expect(result.stderr).toMatch(expected);
};

function startServer(dataDir: string, port: number) {
  const child = spawnCli([
    "serve",
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    "--data-dir",
    dataDir,
  ]);
  const ready = pollUntil(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok || undefined,
    { timeoutMs: 15_000, what: `weir on port ${port}` },
  );
  return { child, ready };
}

describe("one server per port and per data dir", () => {
  test("a second serve on the port fails in one line; the first keeps every request", async () => {
    const port = freePort();
    const first = startServer(tempDir(), port);
    try {
      await first.ready;
      const second = runCli([
        "serve",
        "--port",
        String(port),
        "--host",
        "127.0.0.1",
        "--data-dir",
        tempDir(),
      ]);
      expectOneLine(second, new RegExp(`^weir: cannot listen on 127\\.0\\.0\\.1:${port}: `));
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).ok).toBe(true);
    } finally {
      first.child.kill("SIGTERM");
      expect(await first.child.exited).toBe(0);
    }
  });

  test("a second serve on the data dir names the holder's pid; kill -9 leaves no stale lock", async () => {
    const dataDir = tempDir();
    const first = startServer(dataDir, freePort());
    await first.ready;
    try {
      const second = runCli(["serve", "--port", String(freePort()), "--data-dir", dataDir]);
      expectOneLine(
        second,
        `weir: data dir ${dataDir} is in use by weir (pid ${first.child.pid}); stop it first`,
      );
      const users = runCli(["admin", "list-users", "--data-dir", dataDir]);
      expect(users.stderr).toBe("");
      expect(users.stdout).toBe("no users yet\n");
    } finally {
      first.child.kill("SIGKILL");
      await first.child.exited;
    }
    const restarted = startServer(dataDir, freePort());
    try {
      await restarted.ready;
    } finally {
      restarted.child.kill("SIGTERM");
      expect(await restarted.child.exited).toBe(0);
    }
  });
});

describe("a data dir without a database", () => {
  const refusing: string[][] = [
    ["admin", "list-users"],
    ["admin", "list-orgs"],
    ["admin", "set-plan", "--org", "Ops", "team"],
    ["admin", "create-api-key", "--org", "Ops", "--name", "ci"],
    ["admin", "reset-password", "--email", "a@example.com", "--password", "long-enough"],
    ["backup", "/tmp/weir-never-written.db"],
  ];
  for (const args of refusing) {
    test(`weir ${args.join(" ")} refuses it in one line and creates nothing`, () => {
      const dataDir = join(tempDir(), "nothing-here");
      const result = runCli([...args, "--data-dir", dataDir]);
      expectOneLine(
        result,
        `weir: no Weir database at ${dataDir}/weir.db: point --data-dir or WEIR_DATA_DIR at the server's data dir (weir serve creates it)`,
      );
      expect(existsSync(dataDir)).toBe(false);
    });
  }

  test("admin create-user and migrate may start one", () => {
    const dataDir = join(tempDir(), "new");
    const created = runCli(
      ["admin", "create-user", "--email", "a@example.com", "--password", "long-enough"],
      { WEIR_DATA_DIR: dataDir },
    );
    expect(created.exitCode).toBe(0);
    expect(existsSync(join(dataDir, "weir.db"))).toBe(true);
    expect(runCli(["migrate", "--data-dir", join(tempDir(), "other")]).exitCode).toBe(0);
  });

  test("WEIR_CONFIG's data_dir points every command at the server's data", () => {
    const dataDir = tempDir();
    const system = join(tempDir(), "weir.toml");
    Bun.write(system, `data_dir = "${dataDir}"\n`);
    const env = { WEIR_CONFIG: system };
    runCli(["admin", "create-user", "--email", "a@example.com", "--password", "long-enough"], env);
    expect(runCli(["admin", "list-users"], env).stdout).toContain("a@example.com");
  });
});

test("an unknown command is one line and exit 1, not a server start", () => {
  expectOneLine(runCli(["nonsense"]), 'weir: unknown command "nonsense" (see weir --help)');
});
