import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { runCli, spawnCli } from "../test-utils/cli.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-pg-cli-");
const ALL = PG_MIGRATIONS.map((m) => m.name);

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

function masked(url: string): string {
  const parsed = new URL(url);
  parsed.password = "***";
  return parsed.toString();
}

async function appliedRows(url: string): Promise<string[]> {
  const sql = new SQL(url, { max: 1 });
  try {
    const rows: { name: string }[] = await sql`SELECT name FROM _migrations ORDER BY name`;
    return rows.map((row) => row.name);
  } finally {
    await sql.close();
  }
}

describe("weir migrate --database", () => {
  test("applies the PostgreSQL migrations once; a second run applies nothing", async () => {
    const db = await databases.create();
    const first = runCli(["migrate", "--database", db.url]);
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe(
      `applied ${ALL.length} migration(s): ${ALL.join(", ")}; ${ALL.length} known\n`,
    );
    const second = runCli(["migrate", "--json"], { WEIR_DATABASE_URL: db.url });
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ applied: [], total: ALL.length });
    expect(await appliedRows(db.url)).toEqual(ALL);
  });

  test("three nodes migrating one new database at once all succeed, each migration applied once", async () => {
    const db = await databases.create();
    const children = [0, 1, 2].map(() => spawnCli(["migrate", "--json", "--database", db.url]));
    const results = await Promise.all(
      children.map(async (child) => ({
        exitCode: await child.exited,
        stdout: await new Response(child.stdout).text(),
        stderr: await new Response(child.stderr).text(),
      })),
    );
    for (const result of results) {
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
    }
    const applied = results.flatMap((r) => JSON.parse(r.stdout).applied as string[]);
    expect(applied.sort()).toEqual([...ALL].sort());
    expect(await appliedRows(db.url)).toEqual(ALL);
  });

  test("a URL that is not PostgreSQL is one line naming the flag, without echoing it", () => {
    const result = runCli(["migrate", "--database", "mysql://root:hunter22@db/weir"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      "weir: invalid database_url (--database): must be postgres://user:password@host[:port]/database (or postgresql://…), got (redacted)\n",
    );
  });

  test("a wrong password is one line that does not repeat it", async () => {
    const db = await databases.create();
    const result = runCli(["migrate"], { WEIR_DATABASE_URL: withPassword(db.url, "wrong-pw-42") });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `weir: cannot log in to PostgreSQL at ${masked(db.url)}: wrong user name or password\n`,
    );
  });
});

describe("weir doctor --database", () => {
  test("reports the server, pending then applied migrations, and the key nodes must share", async () => {
    const db = await databases.create();
    const dataDir = tempDir();
    const pending = runCli(["doctor", "--json", "--database", db.url, "--data-dir", dataDir]);
    expect(pending.exitCode).toBe(0);
    const before = JSON.parse(pending.stdout);
    expect(before.checks.map((c: { name: string }) => c.name)).toEqual([
      "config",
      "database",
      "migrations",
      "secret_key",
      "outbound",
      "public_url",
    ]);
    expect(before.checks[1]).toMatchObject({ name: "database", status: "ok" });
    expect(before.checks[1].detail).toMatch(
      new RegExp(`^PostgreSQL 1[3-9][.0-9]* .*at ${RegExp.escape(masked(db.url))}$`),
    );
    expect(before.checks[2]).toEqual({
      name: "migrations",
      status: "warn",
      detail: `${ALL.length} pending; run weir migrate or start the server`,
    });
    expect(before.checks[3].status).toBe("warn");
    expect(before.checks[3].detail).toContain("set WEIR_SECRET_KEY on each");
    // Doctor only looks: nothing was applied, and no data dir file was made.
    expect(existsSync(join(dataDir, "weir.db"))).toBe(false);

    expect(runCli(["migrate", "--database", db.url]).exitCode).toBe(0);
    const key = "ab".repeat(32);
    const healthy = runCli(["doctor", "--database", db.url, "--data-dir", dataDir], {
      WEIR_SECRET_KEY: key,
    });
    expect(healthy.exitCode).toBe(0);
    expect(healthy.stdout).toContain(`ok    migrations   ${ALL.length} of ${ALL.length} applied`);
    expect(healthy.stdout).toContain("ok    secret_key   from WEIR_SECRET_KEY");
    expect(healthy.stdout).toContain("healthy: 6 ok, 0 warn, 0 fail");
    expect(healthy.stdout).not.toContain(new URL(db.url).password);
  });

  test("an unreachable or refusing database is a failed check and exit 1", async () => {
    const db = await databases.create();
    const wrong = withPassword(db.url, "wrong-pw-42");
    const result = runCli(["doctor", "--database", wrong, "--data-dir", tempDir()]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      `fail  database     cannot log in to PostgreSQL at ${masked(db.url)}: wrong user name or password`,
    );
    expect(result.stdout).toContain(
      "warn  migrations   not checked: the database cannot be reached",
    );
    expect(result.stdout + result.stderr).not.toContain("wrong-pw-42");
    expect(result.stderr).toBe("weir: doctor found problems: database\n");
  });

  test("a database URL that is not PostgreSQL fails the config check alone", () => {
    const result = runCli(["doctor", "--json"], { WEIR_DATABASE_URL: "mysql://u:hunter22@h/d" });
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.checks).toEqual([
      {
        name: "config",
        status: "fail",
        detail:
          "invalid database_url (WEIR_DATABASE_URL): must be postgres://user:password@host[:port]/database (or postgresql://…), got (redacted)",
      },
    ]);
  });
});

describe("weir backup --database", () => {
  test("copies nothing and prints the pg_dump command without the password", async () => {
    const db = await databases.create();
    const dataDir = tempDir();
    const target = join(tempDir(), "weir.pgdump");
    const result = runCli(["backup", target, "--database", db.url, "--data-dir", dataDir]);
    expect(result.exitCode).toBe(0);
    const bare = new URL(db.url);
    bare.password = "";
    expect(result.stdout).toBe(
      [
        "weir backup copies SQLite data dirs; back up this PostgreSQL database with pg_dump:",
        `  pg_dump --format=custom --file=${target} ${bare}`,
        "(it asks for the password, or reads PGPASSWORD or ~/.pgpass; restore with pg_restore)",
        `keep a copy of ${join(dataDir, "secret.key")} with this backup (it is not inside): a restore without it cannot read stored secrets or logins`,
        "",
      ].join("\n"),
    );
    expect(existsSync(target)).toBe(false);
    const json = runCli(["backup", target, "--json"], {
      WEIR_DATABASE_URL: db.url,
      WEIR_SECRET_KEY: "cd".repeat(32),
    });
    expect(JSON.parse(json.stdout)).toEqual({
      pg_dump: ["pg_dump", "--format=custom", `--file=${target}`, bare.toString()],
      secret_key: "WEIR_SECRET_KEY",
    });
  });
});

describe("weir admin --database", () => {
  test("creates users and keys, changes plans, lists and resets passwords in PostgreSQL", async () => {
    const db = await databases.create();
    const admin = (args: string[]) => {
      const result = runCli(["admin", ...args, "--database", db.url, "--json"]);
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      return JSON.parse(result.stdout);
    };
    const created = admin([
      "create-user",
      "--email",
      "ops@example.com",
      "--password",
      "a-long-password",
      "--org",
      "Acme",
    ]);
    expect(created).toMatchObject({
      email: "ops@example.com",
      organization: "Acme",
      role: "owner",
    });
    expect(admin(["set-plan", "--org", "Acme", "team"])).toMatchObject({ plan: "team" });
    const key = admin(["create-api-key", "--org", "Acme", "--name", "ci"]);
    expect(key.key).toMatch(/^\S+$/);
    expect(admin(["list-orgs"])).toEqual([
      expect.objectContaining({ id: created.organization_id, plan: "team", members: 1 }),
    ]);
    expect(admin(["list-users"])).toEqual([
      expect.objectContaining({ email: "ops@example.com", organizations: [expect.anything()] }),
    ]);
    expect(
      admin(["reset-password", "--email", "ops@example.com", "--password", "another-password"]),
    ).toEqual({ user_id: created.user_id, email: "ops@example.com", password_reset: true });

    // What it wrote is PostgreSQL's, not a data dir's: the rows are there, the key only hashed.
    const sql = new SQL(db.url, { max: 1 });
    try {
      const [org] = await sql`SELECT plan FROM organizations WHERE id = ${created.organization_id}`;
      expect(org.plan).toBe("team");
      const keys = await sql`SELECT key_hash FROM api_keys`;
      expect(keys).toHaveLength(1);
      expect(keys[0].key_hash).not.toContain(key.key);
    } finally {
      await sql.close();
    }
  });

  test("an unknown organization is one line, as on SQLite", async () => {
    const db = await databases.create();
    const result = runCli(["admin", "set-plan", "--org", "Nope", "team", "--database", db.url]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('weir: no organization "Nope"\n');
  });
});

describe("weir monitors import --database", () => {
  test("creates every entry in one transaction, all or none, and a dry run writes nothing", async () => {
    const db = await databases.create();
    const created = runCli([
      "admin",
      "create-user",
      "--database",
      db.url,
      "--email",
      "ops@example.com",
      "--password",
      "a-long-password",
      "--org",
      "Acme",
    ]);
    expect(created.exitCode).toBe(0);
    const dir = tempDir();
    const listOf = (name: string, entries: unknown[]) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(entries));
      return file;
    };
    const good = listOf("good.json", [
      { name: "api", type: "http", url: "https://api.example.com/health" },
      { name: "db", type: "tcp", url: "tcp://db.example.com:5432" },
    ]);
    const bad = listOf("bad.json", [
      { name: "web", type: "http", url: "https://www.example.com/" },
      { name: "bad", type: "http" },
    ]);
    const monitors = async () => {
      const sql = new SQL(db.url, { max: 1 });
      try {
        return (await sql`SELECT name FROM monitors ORDER BY name`).map(
          (row: { name: string }) => row.name,
        );
      } finally {
        await sql.close();
      }
    };
    const importing = (file: string, ...extra: string[]) =>
      runCli(["monitors", "import", file, "--database", db.url, "--json", ...extra]);

    const dry = importing(good, "--dry-run");
    expect(dry.exitCode).toBe(0);
    expect(JSON.parse(dry.stdout).written).toBe(false);
    expect(await monitors()).toEqual([]);

    const failed = importing(bad);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("nothing imported: 1 of 2 entries failed");
    expect(await monitors()).toEqual([]);

    const done = importing(good);
    expect(done.stderr).toBe("");
    expect(done.exitCode).toBe(0);
    const result = JSON.parse(done.stdout);
    expect(result.written).toBe(true);
    expect(result.monitors.map((m: { status: string }) => m.status)).toEqual([
      "created",
      "created",
    ]);
    expect(await monitors()).toEqual(["api", "db"]);
  });
});

describe("weir serve on PostgreSQL", () => {
  test("refuses in one line without a secret key every node shares", () => {
    const result = runCli(["serve", "--port", "0", "--data-dir", tempDir()], {
      WEIR_DATABASE_URL: "postgres://weir:pw@127.0.0.1:1/weir",
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      "weir: with a PostgreSQL database every node needs the same secret key: set WEIR_SECRET_KEY (or secret_key in weir.toml)\n",
    );
  });

  test("names the unreachable database in one line, without its password", () => {
    const result = runCli(["serve", "--port", "0", "--data-dir", tempDir()], {
      WEIR_DATABASE_URL: "postgres://weir:pw-not-shown@127.0.0.1:1/weir",
      WEIR_SECRET_KEY: "cd".repeat(32),
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toStartWith("weir: cannot connect to PostgreSQL at ");
    expect(result.stderr).not.toContain("pw-not-shown");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});
