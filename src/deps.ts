import { type MigrationReport, runMigrations } from "./db/db.migrate.ts";
import { MIGRATIONS } from "./db/db.migrations.ts";
import { type Db, openDatabase } from "./db/db.open.ts";
import { createSandbox, type Sandbox } from "./sandbox/sandbox.runner.ts";
import { type Bus, createBus } from "./shared/bus.ts";
import { createSystemClock, type TimerClock } from "./shared/clock.ts";
import type { Config } from "./shared/config.table.ts";
import { createIds, type Ids } from "./shared/ids.ts";
import { createLogger, type Logger } from "./shared/logger.ts";
import { createScheduler, type Scheduler } from "./shared/scheduler.ts";
import { loadSecretKey } from "./shared/secret-key.ts";
import { VERSION } from "./shared/version.ts";

/** Everything a Weir app needs, passed in: no room reaches for a module-level singleton. */
export interface AppDeps {
  config: Config;
  db: Db;
  /** The one clock; it also times the scheduler, so a fake clock drives every job. */
  clock: TimerClock;
  ids: Ids;
  logger: Logger;
  bus: Bus;
  scheduler: Scheduler;
  sandbox: Sandbox;
  secretKey: Uint8Array;
  fetch: typeof fetch;
  version: string;
  migrations: MigrationReport;
}

/** Replacements tests may pass (a fake clock, a silent logger, a manual scheduler...). */
export type DepsOverrides = Partial<
  Pick<AppDeps, "clock" | "ids" | "logger" | "scheduler" | "fetch">
>;

/** Opens the data dir, applies migrations and builds the deps; throws StartupError with a one-line reason. */
export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<AppDeps> {
  const logger =
    overrides.logger ?? createLogger({ level: config.log_level, format: config.log_format });
  const db = openDatabase(config.data_dir, config.durability);
  try {
    const migrations = runMigrations(db.sqlite, MIGRATIONS);
    const secretKey = loadSecretKey(config.data_dir, config.secret_key);
    const sandbox = await createSandbox({
      cpuMs: config.sandbox_timeout_ms,
      memoryBytes: config.sandbox_memory_mb * 1024 * 1024,
    });
    const clock = overrides.clock ?? createSystemClock();
    return {
      config,
      db,
      clock,
      ids: overrides.ids ?? createIds(),
      logger,
      bus: createBus(logger),
      scheduler: overrides.scheduler ?? createScheduler(logger, clock),
      sandbox,
      secretKey,
      fetch: overrides.fetch ?? fetch,
      version: VERSION,
      migrations,
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Releases what createDeps opened, in reverse order. */
export function closeDeps(deps: AppDeps): void {
  deps.scheduler.stop();
  deps.sandbox.close();
  deps.db.close();
}
