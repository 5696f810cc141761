import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiCall } from "../test-utils/api-call.ts";
import { collect, runCli, spawnCli } from "../test-utils/cli.ts";
import { freePort } from "../test-utils/free-port.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { makeTempDir, useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator } from "../test-utils/weir-process.ts";

const tempDir = useTempDirs("weir-local-server-");

describe("commands find the server running on their data dir, flags included", () => {
  // One server for the describe: its dir outlives each test, unlike tempDir()'s.
  const home = makeTempDir("weir-local-server-");
  const dataDir = join(home.path, "data");
  let url: string;
  let serve: ReturnType<typeof spawnCli>;

  beforeAll(async () => {
    const port = freePort();
    url = `http://127.0.0.1:${port}`;
    // Port and base URL given as flags only: nothing in env or weir.toml says where it runs.
    serve = spawnCli([
      "serve",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--base-url",
      "https://hooks.example.com",
      "--data-dir",
      dataDir,
    ]);
    await pollUntil(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, {
      timeoutMs: 15_000,
      what: "weir serve",
    });
  });
  afterAll(async () => {
    serve.kill("SIGTERM");
    await serve.exited;
    home.remove();
  });

  test("weir healthcheck --data-dir checks the port the server was started on", () => {
    const result = runCli(["healthcheck", "--data-dir", dataDir]);
    expect([result.exitCode, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toBe(`ok: ${url}/healthz\n`);
    // WEIR_DATA_DIR, as in the container image, does the same.
    expect(runCli(["healthcheck"], { WEIR_DATA_DIR: dataDir }).stdout).toBe(`ok: ${url}/healthz\n`);
  });

  test("weir doctor reports the running server and checks its base URL, not the defaults", () => {
    const run = runCli(["doctor", "--json", "--data-dir", dataDir]);
    const checks = JSON.parse(run.stdout).checks as {
      name: string;
      status: string;
      detail: string;
    }[];
    const of = (name: string) => checks.find((c) => c.name === name);
    expect(of("server")).toEqual({
      name: "server",
      status: "ok",
      detail: expect.stringMatching(new RegExp(`^weir \\(pid ${serve.pid}\\) answers at ${url}$`)),
    });
    expect(of("public_url")?.detail).toBe("base_url https://hooks.example.com");
  });

  test("weir tail without --server streams from the data dir's server", async () => {
    const auth = { authorization: `Bearer ${await registerOperator(url)}` };
    const created = await apiCall({ url }, "POST", "/api/v1/endpoints", {
      headers: auth,
      body: { debug_endpoint: { name: "tailed", slug: "tailed" } },
    });
    expect(created.status).toBe(201);
    const token = auth.authorization.slice("Bearer ".length);
    const child = spawnCli(["tail", "tailed", "--data-dir", dataDir, "--token", token, "--json"]);
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    try {
      await pollUntil(() => stderr.text.includes("waiting for requests"), {
        timeoutMs: 15_000,
        what: `tail to join (stderr: ${stderr.text})`,
      });
      const captured = await fetch(`${url}/w/tailed`, { method: "POST", body: "hello" });
      const { request_id } = (await captured.json()) as { request_id: string };
      await pollUntil(() => stdout.text.includes(request_id), { what: "the tailed request" });
    } finally {
      child.kill("SIGINT");
      await child.exited;
    }
  });
});

describe("without a running server", () => {
  test("weir healthcheck --data-dir uses the port of the data dir's weir.toml", async () => {
    const dataDir = tempDir();
    const stand = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
    try {
      writeFileSync(join(dataDir, "weir.toml"), `port = ${stand.port}\nhost = "127.0.0.1"\n`);
      // Spawned, not run synchronously: the stand-in answers from this process's event loop.
      const child = spawnCli(["healthcheck", "--data-dir", dataDir]);
      expect(await child.exited).toBe(0);
      expect(await new Response(child.stdout).text()).toBe(
        `ok: http://127.0.0.1:${stand.port}/healthz\n`,
      );
    } finally {
      stand.stop(true);
    }
  });

  test("weir doctor where there is no database says so in one line", () => {
    for (const dataDir of [tempDir(), join(tempDir(), "absent")]) {
      const result = runCli(["doctor", "--data-dir", dataDir]);
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        `weir: no database in ${dataDir} (run weir serve or weir migrate first)\n`,
      );
    }
    const empty = join(tempDir(), "made-later");
    mkdirSync(empty);
    expect(runCli(["doctor", "--json"], { WEIR_DATA_DIR: empty }).stderr).toStartWith(
      "weir: no database in",
    );
  });
});
