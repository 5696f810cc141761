import { type Cluster, createSingleNodeCluster } from "./cluster/cluster.model.ts";
import { createCluster } from "./cluster/cluster.node.ts";
import { runPgMigrations } from "./db/db.migrate.pg.ts";
import { type MigrationReport, runMigrations } from "./db/db.migrate.ts";
import { PG_MIGRATIONS } from "./db/db.migrations.pg.ts";
import { MIGRATIONS } from "./db/db.migrations.ts";
import { type Db, openDatabase, StartupError } from "./db/db.open.ts";
import { openPostgres } from "./db/db.postgres.ts";
import type { PostgresDb } from "./db/db.postgres-handle.ts";
import type { AppBus, DomainEvents } from "./events.ts";
import { createPublicBaseUrl, type PublicBaseUrl } from "./http/http.public-url.ts";
import type { OutboundSender } from "./http/outbound/outbound.model.ts";
import { createOutboundPolicy } from "./http/outbound/outbound.policy.ts";
import { createOutboundSender } from "./http/outbound/outbound.sender.ts";
import { createSandbox, type Sandbox } from "./sandbox/sandbox.runner.ts";
import { createBus } from "./shared/bus.ts";
import { createSystemClock, type TimerClock } from "./shared/clock.ts";
import type { Config } from "./shared/config.table.ts";
import {
  createDatabaseServerDiskGuard,
  createDiskGuard,
  type DiskGuard,
} from "./shared/disk-guard.ts";
import { createIds, type Ids } from "./shared/ids.ts";
import { createLogger, type Logger } from "./shared/logger.ts";
import { createScheduler, type Scheduler } from "./shared/scheduler.ts";
import { loadSecretKey } from "./shared/secret-key.ts";
import { VERSION } from "./shared/version.ts";

/**
 * Everything a Weir app on SQLite needs, passed in: no room reaches for a module-level
 * singleton. A room that has no PostgreSQL store yet takes these (its `db` is always there).
 */
export interface AppDeps extends SharedDeps {
  db: Db;
  postgres?: undefined;
}

/** The deps of a node on PostgreSQL (`database_url`): no SQLite database is open for data. */
export interface PostgresAppDeps extends SharedDeps {
  db?: undefined;
  postgres: PostgresDb;
}

/** The deps of either store; `postgres` (or `db`) tells which one holds the data. */
export type AnyAppDeps = AppDeps | PostgresAppDeps;

/**
 * Where a room that runs on either store keeps its data: PostgreSQL when `postgres` is given
 * (a test may still hold a SQLite `db` beside it), else the SQLite `db`, which is then there.
 */
export type RoomStorage =
  | { db: Db; postgres?: PostgresDb }
  | { db?: undefined; postgres: PostgresDb };

/** The SQLite database of a room given no PostgreSQL one (the type says it is then there). */
export function sqliteOf(storage: RoomStorage): Db {
  if (storage.db === undefined) throw new Error("a room on PostgreSQL reached for SQLite");
  return storage.db;
}

/** What the deps hold whichever database the data is in. */
export interface SharedDeps {
  config: Config;
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

/**
 * The deps of `weir serve`: on PostgreSQL when `database_url` is set, else on the data dir's
 * SQLite database; throws StartupError with a one-line reason.
 */
export function openDeps(config: Config, overrides: DepsOverrides = {}): Promise<AnyAppDeps> {
  return config.database_url !== ""
    ? createPostgresDeps(config, overrides)
    : createDeps(config, overrides);
}

/** Opens the data dir's SQLite database, applies migrations and builds the deps. */
export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<AppDeps> {
  const logger = loggerFor(config, overrides);
  const db = openDatabase(config.data_dir, config.durability);
  try {
    const migrations = runMigrations(db.sqlite, MIGRATIONS);
    const shared = sharedDeps(config, overrides, logger, migrations);
    const disk = createDiskGuard({ dataDir: config.data_dir, config, logger });
    return { ...shared, db, disk, cluster: createSingleNodeCluster() };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A node on PostgreSQL. Every node must seal and sign with the same key, so the key comes from
 * the settings, never from a file one node would make for itself.
 */
export async function createPostgresDeps(
  config: Config,
  overrides: DepsOverrides,
): Promise<PostgresAppDeps> {
  if (config.secret_key === "") {
    throw new StartupError(
      "with a PostgreSQL database every node needs the same secret key: set WEIR_SECRET_KEY (or secret_key in weir.toml)",
    );
  }
  const logger = loggerFor(config, overrides);
  const postgres = await openPostgres(config.database_url, {
    poolSize: config.database_pool_size,
  });
  try {
    const migrations = await runPgMigrations(postgres.sql, PG_MIGRATIONS);
    const shared = sharedDeps(config, overrides, logger, migrations);
    const cluster = createCluster({
      sql: postgres.sql,
      bus: shared.bus,
      scheduler: shared.scheduler,
      logger,
    });
    return { ...shared, postgres, cluster, disk: createDatabaseServerDiskGuard() };
  } catch (error) {
    await postgres.close();
    throw error;
  }
}

function loggerFor(config: Config, overrides: DepsOverrides): Logger {
  return overrides.logger ?? createLogger({ level: config.log_level, format: config.log_format });
}

function sharedDeps(
  config: Config,
  overrides: DepsOverrides,
  logger: Logger,
  migrations: MigrationReport,
): Omit<SharedDeps, "cluster" | "disk"> {
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
    clock,
    ids: overrides.ids ?? createIds(),
    logger,
    bus: createBus<DomainEvents>(logger),
    scheduler,
    sandbox,
    secretKey,
    outbound: overrides.outbound ?? createConfiguredSender(config),
    version: VERSION,
    migrations,
    publicBaseUrl: createPublicBaseUrl(config),
  };
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
export async function closeDeps(deps: AnyAppDeps): Promise<void> {
  deps.scheduler.stop();
  deps.sandbox.close();
  if (deps.postgres) await deps.postgres.close();
  else deps.db.close();
}
