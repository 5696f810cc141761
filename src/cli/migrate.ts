import type { Command } from "commander";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { action, configWithFlags, DATA_DIR_OPTION, printJson } from "./cli.common.ts";

/** `weir migrate`: applies pending migrations without starting the server. */
export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply pending database migrations and exit")
    .option(...DATA_DIR_OPTION)
    .option("--json", "print the result as JSON")
    .action(
      action((flags: { dataDir?: string; json?: boolean }) => {
        const { config } = configWithFlags(flags);
        const db = openDatabase(config.data_dir, config.durability);
        try {
          const report = runMigrations(db.sqlite, MIGRATIONS);
          if (flags.json) return printJson({ applied: report.applied, total: MIGRATIONS.length });
          const names = report.applied.length > 0 ? `: ${report.applied.join(", ")}` : "";
          console.log(
            `applied ${report.applied.length} migration(s)${names}; ${MIGRATIONS.length} known`,
          );
        } finally {
          db.close();
        }
      }),
    );
}
