import type { Command } from "commander";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import type { MigrationReport } from "../db/db.migrate.ts";
import { runMigrations } from "../db/db.migrate.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { Config } from "../shared/config.table.ts";
import {
  action,
  configWithFlags,
  DATA_DIR_OPTION,
  DATABASE_OPTION,
  printJson,
} from "./cli.common.ts";

/** `weir migrate`: applies pending migrations without starting the server. */
export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply pending database migrations and exit")
    .option(...DATA_DIR_OPTION)
    .option(...DATABASE_OPTION)
    .option("--json", "print the result as JSON")
    .action(
      action(async (flags: { dataDir?: string; database?: string; json?: boolean }) => {
        const { config } = configWithFlags(flags);
        const [report, known] =
          config.database_url === ""
            ? [migrateSqlite(config), MIGRATIONS.length]
            : [await migratePostgres(config), PG_MIGRATIONS.length];
        if (flags.json) return printJson({ applied: report.applied, total: known });
        const names = report.applied.length > 0 ? `: ${report.applied.join(", ")}` : "";
        console.log(`applied ${report.applied.length} migration(s)${names}; ${known} known`);
      }),
    );
}

function migrateSqlite(config: Config): MigrationReport {
  const db = openDatabase(config.data_dir, config.durability);
  try {
    return runMigrations(db.sqlite, MIGRATIONS);
  } finally {
    db.close();
  }
}

/** Several nodes may run this at once: the runner's advisory lock makes them take turns. */
async function migratePostgres(config: Config): Promise<MigrationReport> {
  const pg = await openPostgres(config.database_url, { poolSize: 1 });
  try {
    return await runPgMigrations(pg.sql, PG_MIGRATIONS);
  } finally {
    await pg.close();
  }
}
