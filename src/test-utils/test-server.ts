import { createApp, type PortOverrides, type WeirApp } from "../app.ts";
import { LEADERSHIP_JOB } from "../cluster/cluster.leadership.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import {
  type AnyAppDeps,
  type AppDeps,
  closeDeps,
  createDeps,
  createPostgresDeps,
  type DepsOverrides,
} from "../deps.ts";
import type { Config } from "../shared/config.table.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import type { ManualScheduler } from "./manual-scheduler.ts";
import { pollUntil } from "./poll.ts";
import { createTestPgDatabase, type TestPgDatabase } from "./postgres.ts";
import { makeTempDir } from "./temp-dir.ts";
import { onPostgres, TEST_SECRET_KEY, type TestStore } from "./test-store.ts";

export interface TestServer {
  url: string;
  port: number;
  /**
   * The app's deps. Typed as on SQLite for the many tests that read its database; on
   * PostgreSQL (`WEIR_TEST_STORE=postgres`) `deps.db` is absent, and a test that reads SQLite
   * skips there (`store` says which).
   */
  deps: AppDeps;
  store: TestStore;
  /** The PostgreSQL database the app runs on, or null on SQLite. */
  postgres: PostgresDb | null;
  /** The URL of that PostgreSQL database, or null on SQLite. */
  databaseUrl: string | null;
  weir: WeirApp;
  dataDir: string;
  /** Log lines written so far (the logger is captured, not printed). */
  logs: string[];
  /** `fetch` relative to the server's URL. */
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export interface TestServerOptions extends DepsOverrides {
  config?: Partial<Config>;
  /** Ports lent in place of the rooms' own (see createApp). */
  ports?: PortOverrides;
}

/**
 * A real Weir app on 127.0.0.1, port 0, with a temp data dir and real migrations; with
 * `WEIR_TEST_STORE=postgres`, on a fresh PostgreSQL database of its own, dropped at stop.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = makeTempDir("weir-server-");
  const logs: string[] = [];
  const base = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  const config: Config = {
    ...base,
    host: "127.0.0.1",
    port: 0,
    durability: "normal",
    ...options.config,
  };
  const logger =
    options.logger ?? createLogger({ level: "debug", write: (line) => logs.push(line) });
  // A database the caller gave is the caller's; one made here is dropped at stop.
  const pg: TestPgDatabase | null =
    onPostgres && config.database_url === "" ? await createTestPgDatabase() : null;
  const databaseUrl = pg?.url ?? config.database_url;
  const deps: AnyAppDeps = databaseUrl
    ? await createPostgresDeps(
        {
          ...config,
          database_url: databaseUrl,
          secret_key: config.secret_key || TEST_SECRET_KEY,
          // Files start many servers; PostgreSQL allows 100 connections in all.
          database_pool_size: options.config?.database_pool_size ?? 4,
        },
        { ...options, logger },
      )
    : await createDeps(config, { ...options, logger });
  const weir = createApp(deps, options.ports);
  const port = weir.start({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${port}`;
  // Alone on its fresh database the server leads at once: its cluster-wide jobs (retention,
  // scans) then run when a test asks, as on SQLite, rather than depending on who won a race.
  if (pg) {
    // A manual scheduler runs the leadership try only when told to.
    const scheduler = deps.scheduler as Partial<ManualScheduler>;
    await pollUntil(
      async () => deps.cluster.isLeader() || void (await scheduler.run?.(LEADERSHIP_JOB)),
      { what: "the test server to lead" },
    );
  }
  return {
    url,
    port,
    // Only a test on SQLite reaches `db` (see TestServer.deps).
    deps: deps as AppDeps,
    store: deps.postgres ? "postgres" : "sqlite",
    postgres: deps.postgres ?? null,
    databaseUrl: databaseUrl || null,
    weir,
    dataDir: dir.path,
    logs,
    request: (path, init) => fetch(`${url}${path}`, init),
    async stop() {
      await weir.stop();
      await closeDeps(deps);
      await pg?.drop();
      dir.remove();
    },
  };
}
