import { createAuthPostgresStore } from "../auth/auth.postgres.ts";
import { createAuthSqliteStore } from "../auth/auth.sqlite.ts";
import type { AuthStore } from "../auth/auth.store.ts";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { runMigrations } from "../db/db.migrate.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { type Db, openDatabase } from "../db/db.open.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createSystemClock } from "../shared/clock.ts";
import { AppError } from "../shared/errors.ts";
import { createIds } from "../shared/ids.ts";
import { configWithFlags, type DataDirFlags, fail, requireDatabase } from "./cli.common.ts";

/**
 * Opens the data for an admin command: the data dir's SQLite database, or the PostgreSQL
 * database given by `--database`/WEIR_DATABASE_URL. No server needed, and safe while servers run
 * (SQLite: WAL and a busy timeout; PostgreSQL: its own transactions). Pending migrations are
 * applied first, as `weir serve` would.
 */
export async function withAdminData<T>(
  flags: DataDirFlags,
  work: (ctx: AdminContext) => T | Promise<T>,
  options: { mayCreate?: boolean } = {},
): Promise<T> {
  const { config } = configWithFlags({ dataDir: flags.dataDir, database: flags.database });
  if (config.database_url !== "") return withPostgresData(config, work);
  // Only create-user may start a data dir (first user before first start); the rest would
  // otherwise answer "no users yet" from a fresh, wrong database.
  if (!options.mayCreate) requireDatabase(config.data_dir);
  const db = openDatabase(config.data_dir, config.durability);
  try {
    runMigrations(db.sqlite, MIGRATIONS);
    const ctx = {
      db,
      postgres: null,
      store: createAuthSqliteStore(db),
      clock: createSystemClock(),
      ids: createIds(),
      config,
    };
    return await work(ctx);
  } catch (error) {
    if (error instanceof AppError) fail(describeAppError(error));
    throw error;
  } finally {
    db.close();
  }
}

async function withPostgresData<T>(
  config: AdminContext["config"],
  work: (ctx: AdminContext) => T | Promise<T>,
): Promise<T> {
  const postgres = await openPostgres(config.database_url, { poolSize: 2 });
  try {
    await runPgMigrations(postgres.sql, PG_MIGRATIONS);
    const ctx = {
      db: null,
      postgres,
      store: createAuthPostgresStore(postgres),
      clock: createSystemClock(),
      ids: createIds(),
      config,
    };
    return await work(ctx);
  } catch (error) {
    if (error instanceof AppError) fail(describeAppError(error));
    throw error;
  } finally {
    await postgres.close();
  }
}

export type AdminContext = {
  /**
   * The open SQLite database, for commands that use another room's storage (monitors import);
   * null on PostgreSQL.
   */
  db: Db | null;
  /** The open PostgreSQL database with `--database`, else null. */
  postgres: PostgresDb | null;
  /** The auth room's storage: the operator's commands take the same paths as the API. */
  store: AuthStore;
  clock: ReturnType<typeof createSystemClock>;
  ids: ReturnType<typeof createIds>;
  config: ReturnType<typeof configWithFlags>["config"];
};

/** An API error as one line: `email: must be an email address` rather than a JSON body. */
function describeAppError(error: AppError): string {
  const errors = error.details.errors as Record<string, string[]> | undefined;
  if (!errors) return error.code.replaceAll("_", " ");
  return Object.entries(errors)
    .map(([field, messages]) => `${field} ${messages.join(", ")}`)
    .join("; ");
}

/** Reads a password from `--password` or, with `--password-stdin`, the first line of stdin. */
export async function passwordFrom(flags: {
  password?: string;
  passwordStdin?: boolean;
}): Promise<string> {
  if (flags.passwordStdin) {
    const text = await Bun.stdin.text();
    return text.split(/\r?\n/)[0] ?? "";
  }
  if (flags.password === undefined) fail("give --password or --password-stdin");
  return flags.password;
}
