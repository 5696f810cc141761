import { createAuthRepo } from "../auth/auth.repo.ts";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { createSystemClock } from "../shared/clock.ts";
import { AppError } from "../shared/errors.ts";
import { createIds } from "../shared/ids.ts";
import {
  configWithFlags,
  type DataDirFlags,
  fail,
  requireDatabase,
  requireSqliteMode,
} from "./cli.common.ts";

/**
 * Opens the data dir for an admin command: no server needed, and safe while one runs (WAL,
 * busy timeout). Pending migrations are applied first, as `weir serve` would.
 */
export async function withAdminData<T>(
  flags: DataDirFlags,
  work: (ctx: AdminContext) => T | Promise<T>,
  options: { mayCreate?: boolean } = {},
): Promise<T> {
  const { config } = configWithFlags({ dataDir: flags.dataDir, database: flags.database });
  requireSqliteMode(config, "weir admin");
  // Only create-user may start a data dir (first user before first start); the rest would
  // otherwise answer "no users yet" from a fresh, wrong database.
  if (!options.mayCreate) requireDatabase(config.data_dir);
  const db = openDatabase(config.data_dir, config.durability);
  try {
    runMigrations(db.sqlite, MIGRATIONS);
    const ctx = {
      db,
      repo: createAuthRepo(db),
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

export type AdminContext = {
  /** The open database, for commands that use another room's repos (monitors import). */
  db: ReturnType<typeof openDatabase>;
  repo: ReturnType<typeof createAuthRepo>;
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
