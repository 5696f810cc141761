import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../test-utils/cli.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { durationSeconds, importEntries } from "./monitors.import.model.ts";

const tempDir = useTempDirs("weir-monitors-import-");

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
        skipped: "url icmp://10.0.0.1 is not http(s):// or tcp://, nor a dns check",
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
    const json = join(dir, "monitors.json");
    writeFileSync(
      json,
      JSON.stringify([
        { name: "api", type: "http", url: "https://api.example.org/" },
        { name: "bad", type: "http" },
      ]),
    );
    const run = (file: string) =>
      runCli(["monitors", "import", file, "--org", "Ops", "--data-dir", dir, "--json"]);
    const fromGatus = run(gatus);
    expect(fromGatus.stderr).toBe("");
    const imported = JSON.parse(fromGatus.stdout).monitors;
    expect(imported.map((m: { status: string }) => m.status)).toEqual([
      "created",
      "created",
      "created",
      "skipped",
    ]);
    const fromJson = JSON.parse(run(json).stdout).monitors;
    expect(fromJson[0]).toMatchObject({ name: "api", status: "created" });
    expect(fromJson[1]).toMatchObject({ name: "bad", status: "failed" });
    expect(fromJson[1].reason).toContain("url");

    const plain = runCli(["monitors", "import", gatus, "--org", "Nowhere", "--data-dir", dir]);
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toMatch(/no organization "Nowhere"/);
  });
});
