import type { Command } from "commander";
import { describeConfig } from "../shared/config.ts";
import {
  action,
  configWithFlags,
  DATA_DIR_OPTION,
  DATABASE_OPTION,
  printJson,
} from "./cli.common.ts";

/** `weir config print`: the effective configuration, secrets redacted. */
export function registerConfig(program: Command): void {
  const config = program.command("config").description("inspect the configuration");
  config
    .command("print")
    .description(
      "print the effective configuration with where each value came from (secrets redacted)",
    )
    .option(...DATA_DIR_OPTION)
    .option(...DATABASE_OPTION)
    .option("--json", "print as JSON")
    .action(
      action((flags: { dataDir?: string; database?: string; json?: boolean }) => {
        const rows = describeConfig(configWithFlags(flags));
        if (flags.json)
          return printJson(
            Object.fromEntries(
              rows.map((r) => [r.key, { value: r.value, source: r.source, env: r.env }]),
            ),
          );
        const width = Math.max(...rows.map((r) => r.key.length));
        for (const row of rows) {
          console.log(
            `${row.key.padEnd(width)}  ${JSON.stringify(row.value)}  (${row.source}, ${row.env})`,
          );
        }
      }),
    );
}
