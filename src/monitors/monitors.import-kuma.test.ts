import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { signUp } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { runCli } from "../test-utils/cli.ts";
import { MONITORS_PATH } from "../test-utils/monitors.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { MAX_KUMA_MONITORS } from "./monitors.import-kuma.repo.ts";

const tempDir = useTempDirs("weir-kuma-import-");
const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

/** The columns of Uptime Kuma's `monitor` table that the import reads, and only those. */
const KUMA_COLUMNS = [
  "id INTEGER PRIMARY KEY AUTOINCREMENT",
  "name VARCHAR(150)",
  "active BOOLEAN DEFAULT 1",
  "user_id INTEGER",
  "interval INTEGER DEFAULT 20",
  "url TEXT",
  "type VARCHAR(20)",
  "weight INTEGER DEFAULT 2000",
  "hostname VARCHAR(255)",
  "port INTEGER",
  "created_date DATETIME",
  "keyword VARCHAR(255)",
  "maxretries INTEGER DEFAULT 0",
  "ignore_tls BOOLEAN DEFAULT 0",
  "upside_down BOOLEAN DEFAULT 0",
  "maxredirects INTEGER DEFAULT 10",
  "accepted_statuscodes_json TEXT DEFAULT '[\"200-299\"]'",
  "dns_resolve_type VARCHAR(5)",
  "dns_resolve_server VARCHAR(255)",
  "dns_last_result VARCHAR(255)",
  "retry_interval INTEGER DEFAULT 0",
  "push_token VARCHAR(20)",
  "method TEXT DEFAULT 'GET'",
  "body TEXT",
  "headers TEXT",
  "basic_auth_user TEXT",
  "basic_auth_pass TEXT",
  "timeout DOUBLE DEFAULT 0",
  "invert_keyword BOOLEAN DEFAULT 0",
  "json_path TEXT",
  "expected_value VARCHAR(255)",
  "description TEXT",
  "parent INTEGER",
  "docker_container VARCHAR(255)",
  "docker_host INTEGER",
];

const KEPT_TOKEN = "kumaPushToken_0123456789abcdef";

/**
 * A Kuma data file holding `rows` (column → value), made here with bun:sqlite; with
 * `dockerDaemons`, Kuma's docker_host table too (id → docker_daemon).
 */
function kumaFile(
  dir: string,
  rows: Record<string, unknown>[],
  dockerDaemons: Record<number, string> = {},
): string {
  const path = join(dir, "kuma.db");
  const db = new Database(path, { create: true });
  db.run(`CREATE TABLE monitor (${KUMA_COLUMNS.join(", ")})`);
  if (Object.keys(dockerDaemons).length > 0) {
    db.run(
      "CREATE TABLE docker_host (id INTEGER PRIMARY KEY, user_id INT, docker_daemon VARCHAR(255), docker_type VARCHAR(255), name VARCHAR(255))",
    );
    for (const [id, daemon] of Object.entries(dockerDaemons)) {
      db.run("INSERT INTO docker_host (id, user_id, docker_daemon) VALUES (?, 1, ?)", [
        Number(id),
        daemon,
      ]);
    }
  }
  for (const row of rows) {
    const columns = Object.keys(row);
    db.run(
      `INSERT INTO monitor (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      Object.values(row) as never[],
    );
  }
  db.close();
  return path;
}

const ROWS = [
  { id: 1, name: "Core", type: "group" },
  {
    name: "shop",
    type: "http",
    url: "http://127.0.0.1:9/health",
    interval: 30,
    maxretries: 2,
    timeout: 12.5,
    method: "post",
    body: '{"ping":true}',
    headers: '{"x-probe":"kuma"}',
    accepted_statuscodes_json: '["200-299","301"]',
    parent: 1,
  },
  {
    name: "no errors",
    type: "keyword",
    url: "http://127.0.0.1:9/",
    keyword: "error",
    invert_keyword: 1,
    ignore_tls: 1,
    basic_auth_user: "ops",
    basic_auth_pass: "hunter2",
  },
  {
    name: "queue",
    type: "json-query",
    url: "http://127.0.0.1:9/stats",
    json_path: "queue.state",
    expected_value: "ok",
  },
  { name: "jsonata", type: "json-query", url: "http://127.0.0.1:9/", json_path: "$sum(items)" },
  { name: "postgres", type: "port", hostname: "127.0.0.1", port: 5432, active: 0 },
  {
    name: "mail",
    type: "dns",
    hostname: "example.org",
    dns_resolve_type: "MX",
    dns_resolve_server: "1.1.1.1",
    active: 0,
  },
  { name: "caa", type: "dns", hostname: "example.org", dns_resolve_type: "CAA" },
  { name: "backup", type: "push", push_token: KEPT_TOKEN, interval: 3600 },
  { name: "cron", type: "push", push_token: "short" },
  { name: "inverted", type: "http", url: "http://127.0.0.1:9/", upside_down: 1 },
  { name: "broker", type: "mqtt", hostname: "127.0.0.1", port: 1883 },
];

describe("monitors import from Uptime Kuma", () => {
  test("a Kuma data file: dry run writes nothing; the import maps each monitor or says why not", async () => {
    const server = await startTestServer();
    servers.push(server);
    const account = await signUp(server);
    const file = kumaFile(tempDir(), ROWS);
    const cli = (...extra: string[]) =>
      runCli(["monitors", "import", file, "--data-dir", server.dataDir, ...extra]);

    const dry = cli("--org", account.organizationId, "--dry-run", "--json");
    expect(dry.exitCode).toBe(0);
    const planned = JSON.parse(dry.stdout);
    expect(planned.written).toBe(false);
    expect(planned.monitors.filter((m: { status: string }) => m.status === "valid")).toHaveLength(
      7,
    );
    // Nothing was written, so nothing has an id to show.
    expect(planned.monitors.some((m: object) => "id" in m)).toBe(false);
    expect(await monitorsOf(server, account.headers)).toEqual([]);

    const run = cli("--org", account.organizationId);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const lines = run.stdout;
    expect(lines).toContain("skipped Core (a group, not a check");
    expect(lines).toContain("skipped jsonata (json query $sum(items) is not a plain path");
    expect(lines).toContain("skipped caa (dns record type CAA is not one Weir checks)");
    expect(lines).toContain("skipped inverted (upside-down mode");
    expect(lines).toContain("skipped broker (type mqtt has no counterpart in Weir)");
    expect(lines).toContain("  basic auth left out");
    expect(lines).toContain("  ignore_tls left out");
    expect(lines).toContain("  resolver 1.1.1.1 left out");
    expect(lines).toContain(`/api/push/${KEPT_TOKEN})`);
    expect(lines).toMatch(/created cron .*\n {2}new push URL: the old token is too short/);

    const byName = Object.fromEntries(
      (await monitorsOf(server, account.headers)).map((m) => [m.name, m]),
    );
    expect(Object.keys(byName).sort()).toEqual(
      ["backup", "cron", "mail", "no errors", "postgres", "queue", "shop"].sort(),
    );
    expect(byName.shop).toMatchObject({
      type: "http",
      url: "http://127.0.0.1:9/health",
      method: "POST",
      body: '{"ping":true}',
      headers: { "x-probe": "kuma" },
      expected_status: "200-299,301",
      interval_seconds: 30,
      timeout_seconds: 13,
      retries: 2,
      group: "Core",
    });
    expect(byName["no errors"]).toMatchObject({ keyword: "error", keyword_absent: true });
    expect(byName["no errors"]?.headers).toEqual({});
    expect(byName.queue).toMatchObject({ json_path: "queue.state", json_expected: "ok" });
    expect(byName.postgres).toMatchObject({
      type: "tcp",
      url: "tcp://127.0.0.1:5432",
      status: "paused",
    });
    expect(byName.mail).toMatchObject({ type: "dns", hostname: "example.org", record_type: "MX" });
    expect(byName.cron?.push_url).not.toContain("short");
    // The senders Kuma's push URL had keep working against Weir's.
    const push = await server.request(`/api/push/${KEPT_TOKEN}?status=up&msg=OK&ping=12`);
    expect(push.status).toBe(200);

    // Again: the kept token is now taken, so that monitor gets a new one (and says so).
    const again = cli("--json");
    expect(again.exitCode).toBe(0);
    const backup = JSON.parse(again.stdout).monitors.find(
      (m: { name: string }) => m.name === "backup",
    );
    expect(backup.notes).toContain(
      "new push URL: the old token is already used by another monitor",
    );
  });

  test("an entry that fails writes nothing at all; several organizations need --org", async () => {
    const server = await startTestServer();
    servers.push(server);
    const account = await signUp(server);
    const dir = tempDir();
    const list = join(dir, "monitors.json");
    writeFileSync(
      list,
      JSON.stringify([
        { name: "api", type: "http", url: "http://127.0.0.1:9/" },
        { name: "bad", type: "http" },
      ]),
    );
    const run = runCli(["monitors", "import", list, "--data-dir", server.dataDir, "--json"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("nothing imported: 1 of 2 entries failed");
    const results = JSON.parse(run.stdout);
    expect(results.written).toBe(false);
    expect(results.monitors[0]).toMatchObject({ name: "api", status: "valid" });
    expect(results.monitors[1]).toMatchObject({ name: "bad", status: "failed" });
    expect(await monitorsOf(server, account.headers)).toEqual([]);

    await signUp(server);
    const ambiguous = runCli(["monitors", "import", list, "--data-dir", server.dataDir]);
    expect(ambiguous.exitCode).toBe(1);
    expect(ambiguous.stderr).toContain("give --org: the data dir has 2 organizations");
  });
});

describe("Kuma docker and ping monitors", () => {
  test("docker monitors name their daemon from Kuma's docker hosts; ping keeps its host", async () => {
    const server = await startTestServer();
    servers.push(server);
    const account = await signUp(server);
    const file = kumaFile(
      tempDir(),
      [
        { name: "web", type: "docker", docker_container: "web", docker_host: 1, active: 0 },
        { name: "db", type: "docker", docker_container: "db", docker_host: 2, active: 0 },
        { name: "lost", type: "docker", docker_container: "x", docker_host: 9 },
        { name: "router", type: "ping", hostname: "192.168.1.1", active: 0 },
      ],
      { 1: "/var/run/docker.sock", 2: "tcp://192.168.1.20:2375" },
    );
    const run = runCli(["monitors", "import", file, "--data-dir", server.dataDir]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("skipped lost (docker host #9 is not in the file)");
    const byName = Object.fromEntries(
      (await monitorsOf(server, account.headers)).map((m) => [m.name, m]),
    );
    expect(byName.web).toMatchObject({
      type: "docker",
      container: "web",
      docker_host: "unix:///var/run/docker.sock",
    });
    expect(byName.db).toMatchObject({ docker_host: "tcp://192.168.1.20:2375" });
    expect(byName.router).toMatchObject({ type: "ping", hostname: "192.168.1.1" });
  });
});

describe("a Kuma file too large to be a real one", () => {
  test("is refused before its rows are read, and nothing is imported", async () => {
    const server = await startTestServer();
    servers.push(server);
    const account = await signUp(server);
    const file = kumaFile(tempDir(), []);
    const db = new Database(file);
    db.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <= ${MAX_KUMA_MONITORS})
       INSERT INTO monitor (name, type, url, active) SELECT 'm' || i, 'http', 'http://127.0.0.1:9/', 0 FROM n`,
    );
    db.close();
    const run = runCli(["monitors", "import", file, "--data-dir", server.dataDir]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`at most ${MAX_KUMA_MONITORS}`);
    expect(await monitorsOf(server, account.headers)).toEqual([]);
  });
});

describe("a later Kuma's JSON comparisons", () => {
  test("json_path_operator becomes a filter operator; header values that are numbers become text", async () => {
    const server = await startTestServer();
    servers.push(server);
    const account = await signUp(server);
    const file = kumaFile(tempDir(), []);
    const db = new Database(file);
    db.run("ALTER TABLE monitor ADD json_path_operator VARCHAR(10)");
    const insert = db.prepare(
      "INSERT INTO monitor (name, type, url, json_path, expected_value, json_path_operator, headers, active) VALUES (?, 'json-query', 'http://127.0.0.1:9/', ?, ?, ?, ?, 0)",
    );
    insert.run("depth", "queue.depth", "1000", "<", '{"x-count": 1}');
    insert.run("version", "version", "2.", "contains", null);
    insert.run("odd", "value", "1", "~=", null);
    db.close();
    const run = runCli(["monitors", "import", file, "--data-dir", server.dataDir]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("skipped odd (json comparison ~= has no counterpart)");
    const byName = Object.fromEntries(
      (await monitorsOf(server, account.headers)).map((m) => [m.name, m]),
    );
    expect(byName.depth).toMatchObject({
      json_path: "queue.depth",
      json_expected: { $lt: 1000 },
      headers: { "x-count": "1" },
    });
    expect(byName.version).toMatchObject({ json_expected: { $contains: "2." } });
  });
});

async function monitorsOf(server: TestServer, headers: Record<string, string>) {
  const answer = await apiCall(server, "GET", `${MONITORS_PATH}?page_size=100`, { headers });
  return answer.body.data as ({ name: string; push_url?: string } & Record<string, unknown>)[];
}
