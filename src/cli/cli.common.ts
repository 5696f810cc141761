import { reason, StartupError } from "../db/db.open.ts";
import { ConfigError, type LoadedConfig, loadConfig } from "../shared/config.ts";

/** Flags shared by commands that work on a data dir. */
export interface DataDirFlags {
  dataDir?: string;
}

/** Prints `weir: <reason>` on stderr and exits 1: the one way a command fails. */
export function fail(message: string): never {
  process.stderr.write(`weir: ${message}\n`);
  process.exit(1);
}

/**
 * Wraps a command action so expected failures (bad config, unusable data dir, newer database)
 * end in one readable line and exit 1, never in a stack trace.
 */
export function action<A extends unknown[]>(run: (...args: A) => unknown) {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      if (error instanceof StartupError || error instanceof ConfigError) fail(error.message);
      if (process.env.WEIR_LOG_LEVEL === "debug") console.error(error);
      fail(`unexpected error: ${reason(error)}`);
    }
  };
}

/** Loads config with the command's flags on top (flags > env > weir.toml > defaults). */
export function configWithFlags(flags: DataDirFlags & Record<string, unknown>): LoadedConfig {
  return loadConfig({
    flags: {
      data_dir: flags.dataDir,
      port: flags.port,
      host: flags.host,
      base_url: flags.baseUrl,
    },
  });
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export const DATA_DIR_OPTION = [
  "--data-dir <dir>",
  "data directory (env WEIR_DATA_DIR, default ./weir-data)",
] as const;
