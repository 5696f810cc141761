import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { type ImportEntry, importEntries } from "../monitors/monitors.import.model.ts";
import { isSqliteFile, readKumaFile } from "../monitors/monitors.import-kuma.repo.ts";
import { kumaEntries } from "../monitors/monitors.import-kuma.ts";
import { action, DATA_DIR_OPTION, DATABASE_OPTION, fail } from "./cli.common.ts";
import { importMonitors } from "./monitors.import.ts";

/** `weir monitors import FILE` (decisions.md §13): works on the data dir or the database, no server needed. */
export function registerMonitors(program: Command): void {
  program
    .command("monitors")
    .description("manage uptime monitors (data dir or --database)")
    .command("import")
    .description(
      "create monitors from an Uptime Kuma data file (kuma.db), a Gatus file (endpoints:) or a JSON list (API bodies), all or none",
    )
    .argument("<file>", "kuma.db, or a .json, .yaml or .yml file")
    .option("--org <id-or-name>", "the organization they belong to (needed with several)")
    .option("--dry-run", "show what each entry would become and write nothing")
    .option(...DATA_DIR_OPTION)
    .option(...DATABASE_OPTION)
    .option("--json", "print the result as JSON")
    .action(action((file: string, flags) => importMonitors(entriesOf(file), flags)));
}

/** The entries of any file the import reads; a Kuma data file is told by its SQLite header. */
function entriesOf(file: string): ImportEntry[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return fail(`cannot read ${file}`);
  }
  try {
    if (isSqliteFile(bytes)) {
      const { rows, dockerHosts } = readKumaFile(file);
      return kumaEntries(rows, dockerHosts);
    }
    return importEntries(parseText(file, bytes.toString("utf8")));
  } catch (error) {
    return fail((error as Error).message);
  }
}

function parseText(file: string, text: string): unknown {
  const yaml = /\.ya?ml$/i.test(file);
  try {
    return yaml ? Bun.YAML.parse(text) : JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid ${yaml ? "YAML" : "JSON"}: ${(error as Error).message}`);
  }
}
