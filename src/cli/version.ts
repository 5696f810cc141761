import type { Command } from "commander";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { VERSION } from "../shared/version.ts";
import { action, printJson } from "./cli.common.ts";

/** `weir version`. */
export function registerVersion(program: Command): void {
  program
    .command("version")
    .description("print the version")
    .option("--json", "print version details as JSON")
    .action(
      action((flags: { json?: boolean }) => {
        if (!flags.json) return console.log(`weir ${VERSION}`);
        printJson({ version: VERSION, bun: Bun.version, schema: MIGRATIONS.at(-1)?.name ?? null });
      }),
    );
}
