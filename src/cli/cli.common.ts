import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { DB_FILE, reason, StartupError } from "../db/db.open.ts";
import { ConfigError, type LoadedConfig, loadConfig } from "../shared/config.ts";

/** Flags shared by commands that work on a data dir (or, with --database, on PostgreSQL). */
export interface DataDirFlags {
  dataDir?: string;
  database?: string;
}

/** An expected failure of a command; `action` turns it into one line on stderr and exit 1. */
export class CommandFailure extends Error {
  override name = "CommandFailure";
}

/** Ends the command with `weir: <message>` and exit code 1: the one way a command fails. */
export function fail(message: string): never {
  throw new CommandFailure(message);
}

const EXPECTED = [CommandFailure, StartupError, ConfigError];

/**
 * Wraps a command action so expected failures (bad config, unusable data dir, newer database)
 * end in one readable line and exit 1, never in a stack trace.
 */
export function action<A extends unknown[]>(run: (...args: A) => unknown) {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      const expected = EXPECTED.some((type) => error instanceof type);
      if (!expected && process.env.WEIR_LOG_LEVEL === "debug") console.error(error);
      const message = expected ? (error as Error).message : `unexpected error: ${reason(error)}`;
      process.stderr.write(`weir: ${message}\n`);
      // exitCode rather than process.exit(): exiting at once drops output still buffered for a
      // pipe (measured: 1.2 of 5 MB of a report reached `| wc -c`).
      process.exitCode = 1;
    }
  };
}

/** Loads config with the command's flags on top (flags > env > weir.toml > defaults). */
export function configWithFlags(flags: DataDirFlags & Record<string, unknown>): LoadedConfig {
  return loadConfig({
    flags: {
      data_dir: flags.dataDir,
      database_url: flags.database,
      port: flags.port,
      host: flags.host,
      base_url: flags.baseUrl,
    },
  });
}

/**
 * The database of a data dir that must already hold one. Commands that only read or manage an
 * existing installation refuse an empty place rather than create a second, empty Weir there.
 */
export function requireDatabase(dataDir: string): string {
  const path = resolve(join(dataDir, DB_FILE));
  if (!existsSync(path)) {
    fail(
      `no Weir database at ${path}: point --data-dir or WEIR_DATA_DIR at the server's data dir (weir serve creates it)`,
    );
  }
  return path;
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export const DATABASE_OPTION = [
  "--database <url>",
  "PostgreSQL database, postgres://user:password@host/db (env WEIR_DATABASE_URL; default: SQLite in the data dir)",
] as const;

export const DATA_DIR_OPTION = [
  "--data-dir <dir>",
  "data directory (env WEIR_DATA_DIR or data_dir in /etc/weir/weir.toml; default ./weir-data)",
] as const;
