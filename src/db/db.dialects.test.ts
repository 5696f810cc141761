import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import {
  catalogDifferences,
  postgresCatalog,
  type SchemaCatalog,
  sqliteCatalog,
} from "../test-utils/schema-catalog.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { runMigrations } from "./db.migrate.ts";
import { MIGRATIONS } from "./db.migrations.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-dialects-");

/** A SQLite file with every migration applied, in a temp dir of its own. */
function migratedSqliteFile(): string {
  const path = join(tempDir(), "weir.db");
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    runMigrations(sqlite, MIGRATIONS);
  } finally {
    sqlite.close();
  }
  return path;
}

function catalogOf(path: string, extraStatements: string[] = []): SchemaCatalog {
  const sqlite = new Database(path, { strict: true });
  try {
    for (const statement of extraStatements) sqlite.run(statement);
    return sqliteCatalog(sqlite);
  } finally {
    sqlite.close();
  }
}

let postgres: Promise<SchemaCatalog> | undefined;
/** The catalog of a fresh PostgreSQL database with every PostgreSQL migration applied. */
function migratedPostgresCatalog(): Promise<SchemaCatalog> {
  postgres ??= (async () => {
    const pg = await openMigratedPgDatabase(databases, { poolSize: 1 });
    try {
      return await postgresCatalog(pg.sql);
    } finally {
      await pg.close();
    }
  })();
  return postgres;
}

describe("the SQLite and PostgreSQL migrations build the same schema", () => {
  test("same tables, columns, keys, indexes, foreign keys and triggers", async () => {
    const sqlite = catalogOf(migratedSqliteFile());
    const pg = await migratedPostgresCatalog();
    expect(catalogDifferences(sqlite, pg)).toEqual([]);
    // The comparison saw the whole schema, not two empty lists.
    expect(sqlite.tables.length).toBeGreaterThan(40);
    expect(sqlite.indexes).toContain(
      "issues index issues_unclosed_pattern_unique (destination_id, error_type, error_code, bridge_id, organization_id) unique partial",
    );
    expect(sqlite.foreignKeys).toContain("monitors (parent_id) → monitors (id) on delete set null");
    expect(pg.triggers).toContain("issues trigger issues_status_counts_update");
    expect(pg.columns).toContain("api_keys.role text not null default 'owner'");
    expect(pg.columns).toContain("destinations.path_forwarding integer not null default 1");
  });

  test("a SQLite migration without its PostgreSQL twin is reported", async () => {
    const copy = join(tempDir(), "weir.db");
    copyFileSync(migratedSqliteFile(), copy);
    const sqlite = catalogOf(copy, [
      "ALTER TABLE `debug_endpoints` ADD `color` text DEFAULT 'blue' NOT NULL",
      "CREATE INDEX `debug_endpoints_color_idx` ON `debug_endpoints` (`color`, `created_at`)",
      "CREATE TABLE `labels` (`id` text PRIMARY KEY NOT NULL, `endpoint_id` text REFERENCES debug_endpoints(id) ON DELETE CASCADE)",
    ]);
    const differences = catalogDifferences(sqlite, await migratedPostgresCatalog());
    expect(differences).toEqual([
      "sqlite only: labels",
      "sqlite only: debug_endpoints.color text not null default 'blue'",
      "sqlite only: labels.endpoint_id text null",
      "sqlite only: labels.id text not null",
      "sqlite only: labels primary key (id)",
      "sqlite only: debug_endpoints index debug_endpoints_color_idx (color, created_at)",
      "sqlite only: labels (endpoint_id) → debug_endpoints (id) on delete cascade",
    ]);
  });
});
