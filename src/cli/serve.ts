import type { Command } from "commander";
import { createApp } from "../app.ts";
import { acquireDataDirLock } from "../db/db.lock.ts";
import { prepareDataDir, StartupError } from "../db/db.open.ts";
import { type AnyAppDeps, closeDeps, openDeps } from "../deps.ts";
import { action, configWithFlags, DATA_DIR_OPTION, DATABASE_OPTION } from "./cli.common.ts";
import { publicUrlAdvice } from "./public-url.advice.ts";

/** `weir serve`: the default command. */
export function registerServe(program: Command): void {
  program
    .command("serve", { isDefault: true })
    .description("run the server (the default command)")
    .option("-p, --port <port>", "HTTP port (env WEIR_PORT, default 8080)")
    .option("--host <host>", "address to listen on (env WEIR_HOST, default 0.0.0.0)")
    .option(...DATA_DIR_OPTION)
    .option(...DATABASE_OPTION)
    .option(
      "--base-url <url>",
      "public base URL for the URLs Weir hands out (env WEIR_BASE_URL; default: each request's own Host)",
    )
    .action(action(serve));
}

async function serve(flags: Record<string, string | undefined>): Promise<void> {
  const { config } = configWithFlags(flags);
  prepareDataDir(config.data_dir);
  const lock = acquireDataDirLock(config.data_dir, {
    host: config.host,
    port: config.port,
    baseUrl: config.base_url,
  });
  let deps: AnyAppDeps;
  try {
    deps = await openDeps(config);
  } catch (error) {
    lock.release();
    throw error;
  }
  const weir = createApp(deps);
  let port: number;
  try {
    port = weir.start({ port: config.port, hostname: config.host });
  } catch (error) {
    await closeDeps(deps);
    lock.release();
    throw new StartupError(
      `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
    );
  }
  deps.logger.info("weir started", {
    version: deps.version,
    url: `http://${config.host}:${port}`,
    base_url: config.base_url || null,
    data_dir: config.data_dir,
    database: deps.postgres ? "postgresql" : "sqlite",
    node: deps.cluster.nodeId,
    migrations_applied: deps.migrations.applied,
  });
  // One line for the person who just started it: where to click, and what to set if needed.
  const advice = publicUrlAdvice({ ...config, port });
  const line = advice.note
    ? `web UI at ${advice.uiUrl}; ${advice.note}`
    : `web UI at ${advice.uiUrl}`;
  if (advice.problem) deps.logger.warn(line);
  else deps.logger.info(line);
  const shutdown = async (signal: string) => {
    deps.logger.info("weir stopping", { signal });
    await weir.stop();
    await closeDeps(deps);
    lock.release();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}
