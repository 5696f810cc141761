import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { ConfigError, describeConfig, loadConfig } from "./config.ts";

const tempDir = useTempDirs();

describe("config precedence: flag > env > weir.toml > default", () => {
  test("defaults when nothing is given", () => {
    const { config, sources } = loadConfig({ env: {} });
    expect(config.port).toBe(8080);
    expect(config.data_dir).toBe("./weir-data");
    expect(config.base_url).toBe(""); // URLs then follow each request's Host
    expect(config.durability).toBe("full");
    expect(sources.port).toBe("default");
  });

  test("each layer overrides the one below", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "weir.toml"),
      'port = 7000\nlog_level = "warn"\nmax_body_bytes = 2048\n',
    );
    const env = { WEIR_DATA_DIR: dir, WEIR_PORT: "7100", WEIR_LOG_LEVEL: "debug" };
    const { config, sources } = loadConfig({ env, flags: { port: "7200" } });
    expect(config.port).toBe(7200);
    expect(sources.port).toBe("flag");
    expect(config.log_level).toBe("debug");
    expect(sources.log_level).toBe("env");
    expect(config.max_body_bytes).toBe(2048);
    expect(sources.max_body_bytes).toBe("file");
  });

  test("the data dir comes from flags or env, never from the file inside it", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "weir.toml"), 'data_dir = "/elsewhere"\n');
    expect(loadConfig({ env: { WEIR_DATA_DIR: dir } }).config.data_dir).toBe(dir);
  });
});

describe("invalid values fail naming the key", () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ["port not a number", { WEIR_PORT: "abc" }, /invalid port \(WEIR_PORT\).*whole number/],
    ["port out of range", { WEIR_PORT: "70000" }, /invalid port \(WEIR_PORT\)/],
    [
      "unknown durability",
      { WEIR_DURABILITY: "sometimes" },
      /invalid durability \(WEIR_DURABILITY\).*full, normal/,
    ],
    ["bad base url", { WEIR_BASE_URL: "ftp://x" }, /invalid base_url/],
    [
      "bad cidr",
      { WEIR_TRUSTED_PROXIES: "10.0.0.0/8,not-an-ip" },
      /invalid trusted_proxies.*not-an-ip/,
    ],
    ["bad duration", { WEIR_JWT_TTL: "soon" }, /invalid jwt_ttl/],
    ["bad log level", { WEIR_LOG_LEVEL: "loud" }, /invalid log_level/],
  ];
  for (const [name, env, message] of cases) {
    test(name, () => {
      expect(() => loadConfig({ env })).toThrow(message);
    });
  }

  test("a bad value in weir.toml names the file", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "weir.toml"), 'port = "x"\n');
    expect(() => loadConfig({ env: { WEIR_DATA_DIR: dir } })).toThrow(/port in weir.toml/);
  });

  test("an unknown key in weir.toml is refused (typos must not be silently ignored)", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "weir.toml"), "prot = 1\n");
    expect(() => loadConfig({ env: { WEIR_DATA_DIR: dir } })).toThrow(/unknown setting "prot"/);
  });

  test("the system file (WEIR_CONFIG) may set the data dir; the data dir's weir.toml wins over it", () => {
    const dir = tempDir();
    const system = join(tempDir(), "system.toml");
    writeFileSync(system, `data_dir = "${dir}"\nport = 9001\nlog_level = "warn"\n`);
    writeFileSync(join(dir, "weir.toml"), "port = 9002\n");
    const { config, sources } = loadConfig({ env: { WEIR_CONFIG: system } });
    expect(config.data_dir).toBe(dir);
    expect([config.port, config.log_level]).toEqual([9002, "warn"]);
    expect(sources.data_dir).toBe("file");
    expect(loadConfig({ env: { WEIR_CONFIG: system, WEIR_DATA_DIR: "/x" } }).config.data_dir).toBe(
      "/x",
    );
    writeFileSync(system, "datadir = 1\n");
    expect(() => loadConfig({ env: { WEIR_CONFIG: system } })).toThrow(
      `${system}: unknown setting "datadir"`,
    );
  });

  test("broken TOML is a ConfigError", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "weir.toml"), "port = = 1\n");
    expect(() => loadConfig({ env: { WEIR_DATA_DIR: dir } })).toThrow(ConfigError);
  });

  test("secrets are redacted when config is shown", () => {
    const rows = describeConfig(
      loadConfig({ env: { WEIR_SECRET_KEY: `hunter2${"0".repeat(57)}` } }),
    );
    const secret = rows.find((row) => row.key === "secret_key");
    expect(secret?.value).toBe("(redacted)");
    expect(JSON.stringify(rows)).not.toContain("hunter2");
  });
});

describe("WEIR_DATABASE_URL: empty for SQLite, or a PostgreSQL URL", () => {
  const load = (url: string) => loadConfig({ env: { WEIR_DATABASE_URL: url } }).config;

  test("empty by default: SQLite in the data dir", () => {
    expect(loadConfig({ env: {} }).config.database_url).toBe("");
    expect(loadConfig({ env: {} }).config.database_pool_size).toBe(20);
  });

  test.each([
    "postgres://weir:pw@db.example:5432/weir",
    "postgresql://weir@10.0.0.5/weir?sslmode=require",
  ])("accepted: %s", (url) => {
    expect(load(url).database_url).toBe(url);
  });

  test.each(["mysql://weir:hunter22@db/weir", "db.example:5432", "postgres:///weir"])(
    "refused without echoing it: %s",
    (url) => {
      expect(() => load(url)).toThrow(
        "invalid database_url (WEIR_DATABASE_URL): must be postgres://user:password@host[:port]/database (or postgresql://…), got (redacted)",
      );
    },
  );

  test("shown without its password", () => {
    const rows = describeConfig(
      loadConfig({ env: { WEIR_DATABASE_URL: "postgres://weir:hunter22@db.example/weir" } }),
    );
    expect(rows.find((row) => row.key === "database_url")?.value).toBe(
      "postgres://weir:***@db.example/weir",
    );
    expect(JSON.stringify(rows)).not.toContain("hunter22");
  });
});

describe("WEIR_SECRET_KEY carries at least 32 bytes, as hex or base64", () => {
  const load = (key: string) => loadConfig({ env: { WEIR_SECRET_KEY: key } }).config.secret_key;
  const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1));

  test.each([
    ["hex", bytes.toString("hex")],
    ["hex, upper case", bytes.toString("hex").toUpperCase()],
    ["base64 (openssl rand -base64 32)", bytes.toString("base64")],
    ["base64url", bytes.toString("base64url")],
    ["empty: the key file is used", ""],
  ])("accepted: %s", (_, key) => {
    expect(load(key)).toBe(key);
  });

  test.each([
    ["a word", "x"],
    ["a passphrase", "correct horse battery staple correct horse"],
    ["31 bytes of hex", bytes.subarray(1).toString("hex")],
    ["31 bytes of base64", bytes.subarray(1).toString("base64")],
  ])("refused with one readable line, the value never shown: %s", (_, key) => {
    let message = "";
    try {
      load(key);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^invalid secret_key \(WEIR_SECRET_KEY\): must carry at least 32 bytes/,
    );
    expect(message).not.toContain("\n");
    if (key.length > 3) expect(message).not.toContain(key);
  });
});

test("trusted proxies accept IPv4, IPv6 and bare addresses", () => {
  const env = { WEIR_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.7, ::1, fd00::/8" };
  expect(loadConfig({ env }).config.trusted_proxies).toEqual([
    "10.0.0.0/8",
    "192.168.1.7",
    "::1",
    "fd00::/8",
  ]);
});

test("durations accept units", () => {
  expect(loadConfig({ env: { WEIR_JWT_TTL: "90s" } }).config.jwt_ttl).toBe(90_000);
  expect(loadConfig({ env: { WEIR_JWT_TTL: "2d" } }).config.jwt_ttl).toBe(172_800_000);
});
