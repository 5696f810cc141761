import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { signUp } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { runCli } from "../test-utils/cli.ts";
import { MONITORS_PATH } from "../test-utils/monitors.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { durationSeconds, importEntries } from "./monitors.import.model.ts";

const tempDir = useTempDirs("weir-monitors-import-");
const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

const GATUS_E2E = `
endpoints:
  - name: api
    group: core
    enabled: false
    url: http://127.0.0.1:9/health
    method: POST
    conditions:
      - "[STATUS] > 200"
      - "[BODY] != pat(*error*)"
      - "[RESPONSE_TIME] < 500"
  - name: stats
    group: core
    url: http://127.0.0.1:9/stats
    conditions:
      - "[STATUS] == any(200, 204)"
      - "[BODY].queue.depth < 1000"
  - name: page
    url: http://127.0.0.1:9/
    conditions:
      - "[STATUS] < 400"
      - "[BODY] == pat(*Welcome*)"
      - "[BODY] == hello"
`;

const GATUS = `
endpoints:
  - name: website
    url: https://example.org/health
    interval: 5m
    conditions:
      - "[STATUS] == 200"
      - "[BODY].status == UP"
      - "[RESPONSE_TIME] < 300"
      - "[CERTIFICATE_EXPIRATION] > 48h"
  - name: postgres
    url: tcp://10.0.0.5:5432
    interval: 30s
    conditions:
      - "[CONNECTED] == true"
  - name: mx
    url: 8.8.8.8
    dns:
      query-name: example.org
      query-type: MX
    conditions:
      - "[BODY] == mx.example.org"
      - "[DNS_RCODE] == NOERROR"
  - name: ping
    url: icmp://10.0.0.1
`;

describe("monitors import", () => {
  test("Gatus endpoints map to monitor bodies; what has no counterpart is named", () => {
    const entries = importEntries(Bun.YAML.parse(GATUS));
    expect(entries).toEqual([
      {
        name: "website",
        body: {
          name: "website",
          interval_seconds: 300,
          type: "http",
          url: "https://example.org/health",
          expected_status: "200",
          json_path: "status",
          json_expected: "UP",
          degraded_after_ms: 300,
        },
        notes: ["condition left out: [CERTIFICATE_EXPIRATION] > 48h"],
      },
      {
        name: "postgres",
        body: { name: "postgres", interval_seconds: 30, type: "tcp", url: "tcp://10.0.0.5:5432" },
        notes: [],
      },
      {
        name: "mx",
        body: {
          name: "mx",
          interval_seconds: 60,
          type: "dns",
          hostname: "example.org",
          record_type: "MX",
          expected: "mx.example.org",
        },
        notes: [],
      },
      {
        name: "ping",
        body: { name: "ping", interval_seconds: 60, type: "ping", hostname: "10.0.0.1" },
        notes: [],
      },
    ]);
    expect(durationSeconds("1m30s")).toBe(90);
    expect(durationSeconds("soon")).toBeNull();
    expect(() => importEntries({ monitors: [] })).toThrow(/JSON list/);
  });

  test("weir monitors import creates them in the organization, within its plan, on the data dir", () => {
    const dir = tempDir();
    const user = runCli([
      ...["admin", "create-user", "--email", "ops@example.com", "--password", "first-password"],
      ...["--org", "Ops", "--data-dir", dir],
    ]);
    expect(user.exitCode).toBe(0);
    const gatus = join(dir, "gatus.yaml");
    writeFileSync(gatus, GATUS);
    const run = runCli(["monitors", "import", gatus, "--org", "Ops", "--data-dir", dir, "--json"]);
    expect(run.stderr).toBe("");
    const imported = JSON.parse(run.stdout).monitors;
    expect(imported.map((m: { status: string }) => m.status)).toEqual([
      "created",
      "created",
      "created",
      "created",
    ]);

    const plain = runCli(["monitors", "import", gatus, "--org", "Nowhere", "--data-dir", dir]);
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toMatch(/no organization "Nowhere"/);
  });

  test("a Gatus YAML file end to end: conditions, group and enabled reach the API's monitors", async () => {
    const server = await startTestServer();
    servers.push(server);
    const account = await signUp(server);
    const file = join(tempDir(), "config.yml");
    writeFileSync(file, GATUS_E2E);
    const run = runCli(["monitors", "import", file, "--data-dir", server.dataDir]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("  condition left out: [BODY] == hello");
    const answer = await apiCall(server, "GET", `${MONITORS_PATH}?page_size=100`, {
      headers: account.headers,
    });
    const byName = Object.fromEntries(
      (answer.body.data as ({ name: string } & Record<string, unknown>)[]).map((m) => [m.name, m]),
    );
    expect(byName.api).toMatchObject({
      type: "http",
      url: "http://127.0.0.1:9/health",
      method: "POST",
      expected_status: "201-599",
      keyword: "error",
      keyword_absent: true,
      degraded_after_ms: 500,
      group: "core",
      status: "paused",
    });
    expect(byName.stats).toMatchObject({
      json_path: "queue.depth",
      json_expected: { $lt: 1000 },
      expected_status: "200,204",
      group: "core",
    });
    expect(byName.page).toMatchObject({ keyword: "Welcome", expected_status: "100-399" });
    expect(byName.page?.keyword_absent).toBe(false);
    expect(byName.page).not.toHaveProperty("group");
  });
});
