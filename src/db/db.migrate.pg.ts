import type { SQL } from "bun";
import {
  type Migration,
  type MigrationReport,
  type MigrationStatus,
  migrationChecksum,
  refuseUnusable,
  statusOf,
} from "./db.migrate.ts";
import { reason, StartupError } from "./db.open.ts";

/**
 * The key of the session advisory lock every node takes before it looks at `_migrations`, so
 * nodes starting at once apply each migration once: the others wait, then find nothing pending.
 * ('weir' in ASCII; any constant no other program on the database uses would do.)
 */
export const MIGRATION_LOCK_KEY = 0x77656972;

/** Compares without writing anything (a database without `_migrations` has none applied). */
export async function pgMigrationStatus(
  sql: SQL,
  migrations: Migration[],
): Promise<MigrationStatus> {
  const [{ present }] = await sql`SELECT to_regclass('_migrations') IS NOT NULL AS present`;
  const rows: { name: string; checksum: string }[] = present
    ? await sql`SELECT name, checksum FROM _migrations ORDER BY name`
    : [];
  return statusOf(rows, migrations);
}

/**
 * Applies every missing PostgreSQL migration in order, each in its own transaction with its
 * `_migrations` row, while holding the migration lock on one reserved connection (a session
 * lock, not a transaction one, so it spans all of them). Refuses, as on SQLite, a database
 * holding migrations this binary does not know and one whose applied migration text changed.
 */
export async function runPgMigrations(sql: SQL, migrations: Migration[]): Promise<MigrationReport> {
  const session = await sql.reserve();
  try {
    await session`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      return await applyPending(session, migrations);
    } finally {
      // A session that broke took its lock with it; its error, not this one, is the story.
      await session`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    }
  } finally {
    session.release();
  }
}

async function applyPending(session: SQL, migrations: Migration[]): Promise<MigrationReport> {
  await session`CREATE TABLE IF NOT EXISTS _migrations (
    name text COLLATE "C" PRIMARY KEY, checksum text NOT NULL, applied_at text NOT NULL)`;
  const status = await pgMigrationStatus(session, migrations);
  refuseUnusable(status);
  const report: MigrationReport = { applied: [], alreadyApplied: status.applied.length };
  for (const migration of migrations) {
    if (!status.pending.includes(migration.name)) continue;
    try {
      await session.begin(async (tx) => {
        await tx.unsafe(migration.sql);
        await tx`INSERT INTO _migrations (name, checksum, applied_at)
          VALUES (${migration.name}, ${migrationChecksum(migration.sql)}, ${new Date().toISOString()})`;
      });
    } catch (error) {
      throw new StartupError(`migration ${migration.name} failed: ${reason(error)}`);
    }
    report.applied.push(migration.name);
  }
  return report;
}
