import { pgMigrationStatus } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { reason, StartupError } from "../db/db.open.ts";
import { connectPostgres, postgresServer, requireSupportedServer } from "../db/db.postgres.ts";
import type { LoadedConfig } from "../shared/config.ts";
import { urlWithoutPassword } from "../shared/config.validators.ts";
import {
  type Check,
  check,
  checkOutbound,
  checkPublicUrl,
  checkSecretKey,
  migrationsCheck,
} from "./doctor.checks.ts";

/**
 * The doctor's checks when the state is on PostgreSQL: the server answers and is recent enough,
 * the migrations, the secret key every node must share, and the settings checked as on SQLite.
 * The data dir, its disk and the SQLite-only figures are not the state here, so not checked.
 */
export async function checkPostgres({ config, sources }: LoadedConfig): Promise<Check[]> {
  return [
    ...(await checkDatabaseAndMigrations(config.database_url)),
    sharedSecretKey(checkSecretKey(config.data_dir, config.secret_key, sources.secret_key)),
    checkOutbound(config),
    checkPublicUrl(config),
  ];
}

/** Read-only: looks at `_migrations`, never applies one. */
async function checkDatabaseAndMigrations(url: string): Promise<[Check, Check]> {
  const skipped = check("migrations", "warn", "not checked: the database cannot be reached");
  let sql: ReturnType<typeof connectPostgres>;
  try {
    sql = connectPostgres(url, { poolSize: 1, connectTimeoutSeconds: 5 });
  } catch (error) {
    return [check("database", "fail", reason(error)), skipped];
  }
  try {
    const server = await postgresServer(sql, url);
    const summary = `PostgreSQL ${server.version} at ${urlWithoutPassword(url)}`;
    try {
      requireSupportedServer(server);
    } catch (error) {
      return [check("database", "fail", reason(error)), skipped];
    }
    const status = await pgMigrationStatus(sql, PG_MIGRATIONS);
    return [check("database", "ok", summary), migrationsCheck(status, PG_MIGRATIONS.length)];
  } catch (error) {
    const detail =
      error instanceof StartupError ? error.message : `cannot be read: ${reason(error)}`;
    return [check("database", "fail", detail), skipped];
  } finally {
    await sql.close();
  }
}

/**
 * Nodes sharing one database must sign and decrypt with one key: a `secret.key` created in
 * each node's own data dir would differ, so only a key given in config is fine without a note.
 */
function sharedSecretKey(local: Check): Check {
  if (local.status === "fail" || local.detail.startsWith("from ")) return local;
  return check(
    "secret_key",
    "warn",
    `${local.detail}; every node on this database needs the same key: set WEIR_SECRET_KEY on each`,
  );
}
