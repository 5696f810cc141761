import { type Cluster, createSingleNodeCluster } from "./cluster/cluster.model.ts";
import { type MigrationReport, runMigrations } from "./db/db.migrate.ts";
import { MIGRATIONS } from "./db/db.migrations.ts";
import { type Db, openDatabase } from "./db/db.open.ts";
import type { AppBus, DomainEvents } from "./events.ts";
import { createPublicBaseUrl, type PublicBaseUrl } from "./http/http.public-url.ts";
import type { OutboundSender } from "./http/outbound/outbound.model.ts";
import { createOutboundPolicy } from "./http/outbound/outbound.policy.ts";
import { createOutboundSender } from "./http/outbound/outbound.sender.ts";
import { createSandbox, type Sandbox } from "./sandbox/sandbox.runner.ts";
import { createBus } from "./shared/bus.ts";
import { createSystemClock, type TimerClock } from "./shared/clock.ts";
import type { Config } from "./shared/config.table.ts";
import { createDiskGuard, type DiskGuard } from "./shared/disk-guard.ts";
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
  bus: AppBus;
  scheduler: Scheduler;
  /** This node among the nodes sharing the database: a single node (always leader) with SQLite. */
  cluster: Cluster;
  /** Free space of the data dir, sampled: every write path (captures, ingest) asks it first. */
  disk: DiskGuard;
  sandbox: Sandbox;
  secretKey: Uint8Array;
  /** The one way to send HTTP elsewhere; the outbound address policy is inside it. */
  outbound: OutboundSender;
  version: string;
  migrations: MigrationReport;
  /** The base of every URL handed out, for one request (base_url, or its Host and scheme). */
  publicBaseUrl: PublicBaseUrl;
}

/** Replacements tests may pass (a fake clock, a silent logger, a manual scheduler...). */
export type DepsOverrides = Partial<
  Pick<AppDeps, "clock" | "ids" | "logger" | "scheduler" | "outbound">
>;

/** Opens the data dir, applies migrations and builds the deps; throws StartupError with a one-line reason. */
export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<AppDeps> {
  const logger =
    overrides.logger ?? createLogger({ level: config.log_level, format: config.log_format });
  const db = openDatabase(config.data_dir, config.durability);
  try {
    const migrations = runMigrations(db.sqlite, MIGRATIONS);
    const secretKey = loadSecretKey(config.data_dir, config.secret_key);
    const sandbox = createSandbox({
      limits: {
        cpuMs: config.sandbox_timeout_ms,
        memoryBytes: config.sandbox_memory_mb * 1024 * 1024,
      },
      workers: config.sandbox_workers,
      queueLimit: config.sandbox_queue_limit,
    });
    const clock = overrides.clock ?? createSystemClock();
    const scheduler = overrides.scheduler ?? createScheduler(logger, clock);
    return {
      config,
      db,
      clock,
      ids: overrides.ids ?? createIds(),
      logger,
      bus: createBus<DomainEvents>(logger),
      scheduler,
      cluster: createSingleNodeCluster(),
      disk: createDiskGuard({ dataDir: config.data_dir, config, logger }),
      sandbox,
      secretKey,
      outbound: overrides.outbound ?? createConfiguredSender(config),
      version: VERSION,
      migrations,
      publicBaseUrl: createPublicBaseUrl(config),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The sender with the operator's outbound address policy, forward timeout and connect caps. */
export function createConfiguredSender(config: Config): OutboundSender {
  const policy = createOutboundPolicy({ deny: config.outbound_deny, allow: config.outbound_allow });
  return createOutboundSender({
    policy,
    timeoutMs: config.forward_timeout_ms,
    connecting: {
      perOrigin: config.outbound_hanging_connects_per_origin,
      total: config.outbound_hanging_connects,
    },
  });
}

/** Releases what createDeps opened, in reverse order. */
export function closeDeps(deps: AppDeps): void {
  deps.scheduler.stop();
  deps.sandbox.close();
  deps.db.close();
}
