import type { Database } from "bun:sqlite";
import { StartupError } from "./db.open.ts";

/** One embedded migration: its file name (without .sql) and SQL text. */
export interface Migration {
  name: string;
  sql: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

const STATEMENT_BREAK = "--> statement-breakpoint";

/** The SHA-256 `_migrations` records of a migration's text, to notice one edited after it ran. */
export const migrationChecksum = (text: string) =>
  new Bun.CryptoHasher("sha256").update(text).digest("hex");

/** How a database's applied migrations compare with the ones this binary embeds. */
export interface MigrationStatus {
  applied: string[];
  /** Applied, but unknown to this binary: the database was written by a newer Weir. */
  unknown: string[];
  /** Applied, but their text has changed since. */
  changed: string[];
  pending: string[];
}

/** Compares without writing anything (a database without `_migrations` has none applied). */
export function migrationStatus(sqlite: Database, migrations: Migration[]): MigrationStatus {
  const hasTable = sqlite
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'")
    .get();
  const rows = hasTable
    ? sqlite
        .query<{ name: string; checksum: string }, []>("SELECT name, checksum FROM _migrations")
        .all()
    : [];
  return statusOf(rows, migrations);
}

/** What the `_migrations` rows of a database (either dialect) say against this binary's list. */
export function statusOf(
  rows: readonly { name: string; checksum: string }[],
  migrations: Migration[],
): MigrationStatus {
  const known = new Map(migrations.map((m) => [m.name, migrationChecksum(m.sql)]));
  const appliedNames = new Set(rows.map((row) => row.name));
  return {
    applied: rows.map((row) => row.name),
    unknown: rows.filter((row) => !known.has(row.name)).map((row) => row.name),
    changed: rows
      .filter((row) => known.has(row.name) && known.get(row.name) !== row.checksum)
      .map((row) => row.name),
    pending: migrations.filter((m) => !appliedNames.has(m.name)).map((m) => m.name),
  };
}

/**
 * Refuses a database holding migrations this binary does not know (it is newer than the binary)
 * and one whose applied migration text has changed.
 */
export function refuseUnusable(status: MigrationStatus): void {
  if (status.unknown.length > 0) {
    throw new StartupError(
      `database has migration ${status.unknown.join(", ")} that this weir does not know: it was written by a newer version; upgrade weir`,
    );
  }
  if (status.changed.length > 0) {
    throw new StartupError(
      `migration ${status.changed.join(", ")} was changed after it was applied (checksum mismatch)`,
    );
  }
}

/**
 * Applies every missing migration in order, each in its own transaction, recording name and
 * checksum in `_migrations`. Refuses a database holding migrations this binary does not know
 * (it is newer than the binary) and one whose applied migration text has changed.
 */
export function runMigrations(sqlite: Database, migrations: Migration[]): MigrationReport {
  sqlite.run(
    "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const status = migrationStatus(sqlite, migrations);
  refuseUnusable(status);
  const report: MigrationReport = { applied: [], alreadyApplied: status.applied.length };
  for (const migration of migrations) {
    if (!status.pending.includes(migration.name)) continue;
    applyOne(sqlite, migration);
    report.applied.push(migration.name);
  }
  return report;
}

/**
 * Foreign keys are switched off around the transaction, because the pragma is a no-op inside
 * one and a table rebuild would otherwise cascade-delete rows; `foreign_key_check` then proves
 * the rebuild left every reference intact before COMMIT.
 */
function applyOne(sqlite: Database, migration: Migration): void {
  const statements = migration.sql
    .split(STATEMENT_BREAK)
    .map((s) => s.trim())
    .filter(Boolean);
  sqlite.run("PRAGMA foreign_keys = OFF");
  try {
    sqlite.run("BEGIN IMMEDIATE");
    try {
      for (const statement of statements) sqlite.run(statement);
      const broken = sqlite.query("PRAGMA foreign_key_check").all();
      if (broken.length > 0) {
        throw new Error(`leaves ${broken.length} broken foreign key reference(s)`);
      }
      sqlite.run("INSERT INTO _migrations (name, checksum, applied_at) VALUES (?, ?, ?)", [
        migration.name,
        migrationChecksum(migration.sql),
        new Date().toISOString(),
      ]);
      sqlite.run("COMMIT");
    } catch (error) {
      sqlite.run("ROLLBACK");
      throw new StartupError(`migration ${migration.name} failed: ${(error as Error).message}`);
    }
  } finally {
    sqlite.run("PRAGMA foreign_keys = ON");
  }
}
