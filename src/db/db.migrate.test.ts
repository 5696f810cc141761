import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Migration, runMigrations } from "./db.migrate.ts";
import { MIGRATIONS } from "./db.migrations.ts";
import { StartupError } from "./db.open.ts";

const MIGRATIONS_DIR = join(import.meta.dir, "../../migrations");
const open: Database[] = [];
const memoryDb = () => {
  const db = new Database(":memory:", { strict: true });
  db.run("PRAGMA foreign_keys = ON");
  open.push(db);
  return db;
};
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe("the migration registry", () => {
  test("registers every file of migrations/, in order, with its exact text", () => {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    expect(MIGRATIONS.map((m) => `${m.name}.sql`)).toEqual(files);
    for (const migration of MIGRATIONS) {
      expect(migration.sql).toBe(
        readFileSync(join(MIGRATIONS_DIR, `${migration.name}.sql`), "utf8"),
      );
    }
  });

  test("matches drizzle-kit's journal", () => {
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8"));
    expect(MIGRATIONS.map((m) => m.name)).toEqual(
      journal.entries.map((e: { tag: string }) => e.tag),
    );
  });

  test("all apply from empty, then applying again is a no-op", () => {
    const db = memoryDb();
    const first = runMigrations(db, MIGRATIONS);
    expect(first.applied).toEqual(MIGRATIONS.map((m) => m.name));
    const schema = db.query("SELECT sql FROM sqlite_master ORDER BY name").all();
    const second = runMigrations(db, MIGRATIONS);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toBe(MIGRATIONS.length);
    expect(db.query("SELECT sql FROM sqlite_master ORDER BY name").all()).toEqual(schema);
  });
});

const parent: Migration = {
  name: "0001_parent",
  sql: "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT);\n--> statement-breakpoint\nCREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent(id) ON DELETE CASCADE);",
};

describe("the runner", () => {
  test("applies only the missing ones, in order, and records name and checksum", () => {
    const db = memoryDb();
    runMigrations(db, [parent]);
    const second: Migration = {
      name: "0002_more",
      sql: "ALTER TABLE parent ADD COLUMN extra TEXT;",
    };
    expect(runMigrations(db, [parent, second]).applied).toEqual(["0002_more"]);
    const rows = db
      .query<{ name: string; checksum: string }, []>(
        "SELECT name, checksum FROM _migrations ORDER BY name",
      )
      .all();
    expect(rows.map((r) => r.name)).toEqual(["0001_parent", "0002_more"]);
    expect(rows[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  test("refuses a database holding a migration it does not know (newer than the binary)", () => {
    const db = memoryDb();
    runMigrations(db, [parent]);
    expect(() => runMigrations(db, [])).toThrow(StartupError);
    expect(() => runMigrations(db, [])).toThrow(/0001_parent.*newer version/);
  });

  test("a changed migration text is a checksum error", () => {
    const db = memoryDb();
    runMigrations(db, [parent]);
    const edited = { ...parent, sql: `${parent.sql}\n-- edited` };
    expect(() => runMigrations(db, [edited])).toThrow(/checksum mismatch/);
  });

  test("a failing migration rolls back whole and is not recorded", () => {
    const db = memoryDb();
    const broken: Migration = {
      name: "0001_broken",
      sql: "CREATE TABLE a (id INTEGER);\n--> statement-breakpoint\nNOT SQL;",
    };
    expect(() => runMigrations(db, [broken])).toThrow(/0001_broken failed/);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'a'").all()).toEqual([]);
    expect(db.query("SELECT count(*) AS n FROM _migrations").get()).toEqual({ n: 0 });
  });

  test("a table rebuild does not cascade-delete referencing rows", () => {
    const db = memoryDb();
    runMigrations(db, [parent]);
    db.run("INSERT INTO parent (id, name) VALUES (1, 'p')");
    db.run("INSERT INTO child (id, parent_id) VALUES (10, 1)");
    // The drizzle-kit shape of a rebuild: new table, copy, drop old, rename.
    const rebuild: Migration = {
      name: "0002_rebuild",
      sql: [
        "PRAGMA foreign_keys=OFF;",
        "CREATE TABLE __new_parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');",
        "INSERT INTO __new_parent (id, name) SELECT id, name FROM parent;",
        "DROP TABLE parent;",
        "ALTER TABLE __new_parent RENAME TO parent;",
        "PRAGMA foreign_keys=ON;",
      ].join("\n--> statement-breakpoint\n"),
    };
    runMigrations(db, [parent, rebuild]);
    expect(db.query("SELECT id, parent_id FROM child").all()).toEqual([{ id: 10, parent_id: 1 }]);
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  });

  test("a migration that leaves broken references is refused", () => {
    const db = memoryDb();
    runMigrations(db, [parent]);
    db.run("INSERT INTO parent (id, name) VALUES (1, 'p')");
    db.run("INSERT INTO child (id, parent_id) VALUES (10, 1)");
    const dropParent: Migration = { name: "0002_drop", sql: "DELETE FROM parent;" };
    expect(() => runMigrations(db, [parent, dropParent])).toThrow(/broken foreign key/);
    expect(db.query("SELECT count(*) AS n FROM parent").get()).toEqual({ n: 1 });
  });
});
