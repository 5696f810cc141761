import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { createSourcesRepo } from "./sources.repo.ts";

const MIGRATION = "0027_source_names_unique_per_organization";
const databaseBefore = useDatabasesBefore(MIGRATION);

test("duplicate names of older versions are renamed in creation order before the index", () => {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  seedOrganization(db.sqlite, "other");
  const insert = db.sqlite.prepare(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES (?, ?, ?, 'webhook', ?, ?, 't')`,
  );
  const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
  insert.run("s-third", "org", "Stripe", "in-3", at(3));
  insert.run("s-first", "org", "Stripe", "in-1", at(1));
  insert.run("s-second", "org", "Stripe", "in-2", at(2));
  // "Stripe (2)" is taken already, so the second Stripe cannot take it.
  insert.run("s-taken", "org", "Stripe (2)", "in-4", at(0));
  insert.run("s-elsewhere", "other", "Stripe", "in-5", at(4));

  runMigrations(db.sqlite, MIGRATIONS);

  const names = db.sqlite
    .query("SELECT id, organization_id, name FROM sources ORDER BY id")
    .all() as { id: string; name: string }[];
  expect(Object.fromEntries(names.map((row) => [row.id, row.name]))).toEqual({
    "s-elsewhere": "Stripe",
    "s-first": "Stripe",
    "s-second": "Stripe (s-second)",
    "s-taken": "Stripe (2)",
    "s-third": "Stripe (3)",
  });

  // And from now on the index refuses a second source of a name.
  const repo = createSourcesRepo(db);
  const first = repo.find("org", "s-first");
  if (!first) throw new Error("the first Stripe is gone");
  expect(repo.insert({ ...first, id: "s-new", slug: "in-new" })).toBe(false);
});
