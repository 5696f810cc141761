import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { DB_FILE, reason } from "../db/db.open.ts";
import { CONFIG_TABLE } from "../shared/config.table.ts";
import { action, DATA_DIR_OPTION, DATABASE_OPTION, fail, printJson } from "./cli.common.ts";
import {
  type Check,
  checkConfig,
  checkDatabase,
  checkDataDir,
  checkDisk,
  checkOutbound,
  checkPublicUrl,
  checkSecretKey,
} from "./doctor.checks.ts";
import { checkDeliveryBacklog } from "./doctor.deliveries.ts";
import { checkPostgres } from "./doctor.postgres.ts";
import { checkServer } from "./doctor.server.ts";
import { findLocalServer } from "./local-server.ts";

interface DoctorFlags {
  dataDir?: string;
  database?: string;
  json?: boolean;
}

/** `weir doctor`: read-only health checks of config, data dir, database, secret key and disk. */
export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description(
      "check config, data dir, database, migrations, secret key, disk space and outbound policy",
    )
    .option(...DATA_DIR_OPTION)
    .option(...DATABASE_OPTION)
    .option("--json", "print the report as JSON")
    .action(action(doctor));
}

async function doctor(flags: DoctorFlags): Promise<void> {
  const checks = await runChecks(flags);
  const ok = checks.every((c) => c.status !== "fail");
  if (flags.json) printJson({ ok, checks });
  else printReport(checks);
  if (!ok) {
    const failed = checks.filter((c) => c.status === "fail").map((c) => c.name);
    fail(`doctor found problems: ${failed.join(", ")}`);
  }
}

/**
 * Runs every check; later checks still run (on a best guess of the data dir) when config fails.
 * A place without a database is no installation to check: one line says so.
 */
async function runChecks(flags: DoctorFlags): Promise<Check[]> {
  const { check: config, loaded } = checkConfig(flags);
  const postgresUrl = loaded
    ? loaded.config.database_url
    : flags.database || process.env[CONFIG_TABLE.database_url.env] || "";
  if (postgresUrl !== "") return loaded ? [config, ...(await checkPostgres(loaded))] : [config];
  const dataDir = loaded?.config.data_dir ?? fallbackDataDir(flags);
  if (!existsSync(join(dataDir, DB_FILE))) {
    fail(`no database in ${resolve(dataDir)} (run weir serve or weir migrate first)`);
  }
  const secret = loaded?.config.secret_key ?? process.env[CONFIG_TABLE.secret_key.env] ?? "";
  const secretSource = loaded?.sources.secret_key ?? "env";
  const server = loaded ? findLocalServer(loaded.config) : null;
  const serverCheck = server && (await checkServer(server));
  // A running server's own settings (flags included, from its lock file) are what senders see;
  // without one, config is what the next start uses.
  const live = server?.from === "lock" && serverCheck?.status === "ok";
  const served = live ? { base_url: server.baseUrl, host: server.host, port: server.port } : null;
  return [
    config,
    ...guarded(["data_dir"], () => [checkDataDir(dataDir)]),
    ...guarded(["database", "migrations"], () => checkDatabase(dataDir)),
    ...guarded(["deliveries"], () => [checkDeliveryBacklog(dataDir)]),
    ...guarded(["secret_key"], () => [checkSecretKey(dataDir, secret, secretSource)]),
    ...guarded(["disk"], () => [checkDisk(dataDir)]),
    ...(loaded ? guarded(["outbound"], () => [checkOutbound(loaded.config)]) : []),
    ...(loaded ? guarded(["public_url"], () => [checkPublicUrl(served ?? loaded.config)]) : []),
    ...(serverCheck ? [serverCheck] : []),
  ];
}

/** The data dir as config would resolve it; used only when config itself failed to load. */
function fallbackDataDir(flags: DoctorFlags): string {
  const spec = CONFIG_TABLE.data_dir;
  return flags.dataDir || process.env[spec.env] || spec.default;
}

// An unexpected error in one check must become that check's failure, not abort the report.
function guarded(names: string[], run: () => Check[]): Check[] {
  try {
    return run();
  } catch (error) {
    const detail = `check crashed: ${reason(error)}`;
    return names.map((name) => ({ name, status: "fail", detail }));
  }
}

function printReport(checks: Check[]): void {
  for (const c of checks) console.log(`${c.status.padEnd(6)}${c.name.padEnd(13)}${c.detail}`);
  const count = (status: Check["status"]) => checks.filter((c) => c.status === status).length;
  const [ok, warn, fail] = [count("ok"), count("warn"), count("fail")];
  const verdict = fail > 0 ? "problems found" : warn > 0 ? "healthy, with warnings" : "healthy";
  console.log(`\n${verdict}: ${ok} ok, ${warn} warn, ${fail} fail`);
}
