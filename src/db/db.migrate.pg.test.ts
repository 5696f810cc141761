import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { pgMigrationStatus, runPgMigrations } from "./db.migrate.pg.ts";
import { PG_MIGRATIONS } from "./db.migrations.pg.ts";
import { StartupError } from "./db.open.ts";

const databases = usePgDatabases();

async function withClient<T>(url: string, fn: (sql: SQL) => Promise<T>): Promise<T> {
  const sql = new SQL(url, { max: 2 });
  try {
    return await fn(sql);
  } finally {
    await sql.close();
  }
}

const PG_MIGRATIONS_DIR = join(import.meta.dir, "../../migrations/postgres");

describe("PostgreSQL migrations", () => {
  test("registers every file of migrations/postgres/, in order, with its exact text", () => {
    const files = readdirSync(PG_MIGRATIONS_DIR)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    expect(PG_MIGRATIONS.map((m) => `${m.name}.sql`)).toEqual(files);
    for (const migration of PG_MIGRATIONS) {
      expect(migration.sql).toBe(
        readFileSync(join(PG_MIGRATIONS_DIR, `${migration.name}.sql`), "utf8"),
      );
    }
  });

  test("a fresh database gets every migration once; a second run applies nothing", async () => {
    const db = await databases.create();
    await withClient(db.url, async (sql) => {
      const first = await runPgMigrations(sql, PG_MIGRATIONS);
      expect(first.applied).toEqual(PG_MIGRATIONS.map((m) => m.name));
      expect(first.alreadyApplied).toBe(0);
      const second = await runPgMigrations(sql, PG_MIGRATIONS);
      expect(second).toEqual({ applied: [], alreadyApplied: PG_MIGRATIONS.length });
      const [{ count }] = await sql`SELECT count(*)::int AS count FROM debug_endpoints`;
      expect(count).toBe(0);
    });
  });

  test("several clients migrating one new database at once apply each migration once", async () => {
    const db = await databases.create();
    const reports = await Promise.all(
      [0, 1, 2].map(() => withClient(db.url, (sql) => runPgMigrations(sql, PG_MIGRATIONS))),
    );
    const applied = reports.flatMap((report) => report.applied).sort();
    expect(applied).toEqual(PG_MIGRATIONS.map((m) => m.name).sort());
    await withClient(db.url, async (sql) => {
      const rows = await sql`SELECT name FROM _migrations`;
      expect(rows.length).toBe(PG_MIGRATIONS.length);
    });
  });

  test("a failing migration leaves nothing behind and says which one failed", async () => {
    const db = await databases.create();
    const broken = [
      { name: "0001_half", sql: "CREATE TABLE half_done (id text); SELECT no_such_function();" },
    ];
    await withClient(db.url, async (sql) => {
      const error = await runPgMigrations(sql, broken).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StartupError);
      expect((error as Error).message).toStartWith("migration 0001_half failed:");
      const [{ present }] = await sql`SELECT to_regclass('half_done') IS NOT NULL AS present`;
      expect(present).toBe(false);
      expect((await pgMigrationStatus(sql, broken)).pending).toEqual(["0001_half"]);
    });
  });

  test("refuses a database written by a newer weir, and an applied migration that changed", async () => {
    const db = await databases.create();
    await withClient(db.url, async (sql) => {
      const older = [{ name: "0001_a", sql: "CREATE TABLE a (id text)" }];
      const newer = [...older, { name: "0002_b", sql: "CREATE TABLE b (id text)" }];
      await runPgMigrations(sql, newer);
      await expect(runPgMigrations(sql, older)).rejects.toThrow(
        "database has migration 0002_b that this weir does not know",
      );
      const edited = [
        { name: "0001_a", sql: "CREATE TABLE a (id text, x int)" },
        ...newer.slice(1),
      ];
      await expect(runPgMigrations(sql, edited)).rejects.toThrow(
        "migration 0001_a was changed after it was applied (checksum mismatch)",
      );
    });
  });
});
