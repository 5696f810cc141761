import { Database } from "bun:sqlite";
import { accessSync, constants, readFileSync, statfsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type MigrationStatus, migrationStatus } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { DB_FILE, reason } from "../db/db.open.ts";
import { allowsLocalNetworks } from "../http/outbound/outbound.policy.ts";
import type { Config } from "../shared/config.table.ts";
import { ConfigError, type ConfigSource, type LoadedConfig } from "../shared/config.ts";
import { urlWithoutPassword } from "../shared/config.validators.ts";
import { SECRET_KEY_FILE } from "../shared/secret-key.ts";
import { formatBytes } from "./backup.progress.ts";
import { configWithFlags, type DataDirFlags } from "./cli.common.ts";
import { publicUrlAdvice } from "./public-url.advice.ts";

export type CheckStatus = "ok" | "warn" | "fail";

/** One line of the doctor's report. */
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

export const check = (name: string, status: CheckStatus, detail: string): Check => ({
  name,
  status,
  detail,
});

const MiB = 1024 * 1024;
const DISK_FAIL_BELOW = 100 * MiB;
const DISK_WARN_BELOW = 1024 * MiB;

/** Loads the effective config; a bad setting becomes a failed check instead of an exit. */
export function checkConfig(flags: DataDirFlags): { check: Check; loaded?: LoadedConfig } {
  try {
    const loaded = configWithFlags({ dataDir: flags.dataDir, database: flags.database });
    const { data_dir, database_url, port } = loaded.config;
    const storage =
      database_url === "" ? `data dir ${data_dir}` : `database ${urlWithoutPassword(database_url)}`;
    return { check: check("config", "ok", `valid (${storage}, port ${port})`), loaded };
  } catch (error) {
    const detail = error instanceof ConfigError ? error.message : `cannot load: ${reason(error)}`;
    return { check: check("config", "fail", detail) };
  }
}

/** The data dir must exist already: doctor only looks, it never creates anything. */
export function checkDataDir(dir: string): Check {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return check("data_dir", "fail", `${dir} does not exist; \`weir serve\` creates it`);
    }
    return check("data_dir", "fail", `${dir} cannot be inspected: ${reason(error)}`);
  }
  if (!isDirectory) return check("data_dir", "fail", `${dir} is not a directory`);
  try {
    accessSync(dir, constants.R_OK | constants.W_OK);
  } catch {
    return check("data_dir", "fail", `${dir} is not writable by this user`);
  }
  return check("data_dir", "ok", `${resolve(dir)} is a writable directory`);
}

/**
 * Checks weir.db and its migrations through a read-only connection, so a doctor run can never
 * change the database (not even apply a pending migration) while a server uses it.
 */
export function checkDatabase(dir: string): [Check, Check] {
  const path = join(dir, DB_FILE);
  const skipped = check("migrations", "warn", "not checked: the database cannot be read");
  if (!existsFile(path)) {
    return [
      check(
        "database",
        "fail",
        `no ${DB_FILE} in ${dir}; \`weir serve\` or \`weir migrate\` creates it`,
      ),
      skipped,
    ];
  }
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (error) {
    return [check("database", "fail", `${path} cannot be opened: ${reason(error)}`), skipped];
  }
  try {
    db.run("PRAGMA busy_timeout = 5000");
    return [inspectDatabase(db), checkMigrations(db)];
  } catch (error) {
    return [check("database", "fail", `${path} cannot be read: ${reason(error)}`), skipped];
  } finally {
    db.close();
  }
}

function inspectDatabase(db: Database): Check {
  const problems = db
    .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
    .all()
    .map((row) => row.integrity_check);
  if (problems.length !== 1 || problems[0] !== "ok") {
    return check("database", "fail", `integrity check failed: ${problems.slice(0, 3).join("; ")}`);
  }
  const pages = pragmaNumber(db, "page_count");
  const size = formatBytes(pages * pragmaNumber(db, "page_size"));
  const mode =
    db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode ?? "?";
  const summary = `integrity ok, ${pages} pages (${size})`;
  if (mode.toLowerCase() !== "wal") {
    return check(
      "database",
      "warn",
      `${summary}, journal_mode ${mode} (expected wal; \`weir serve\` sets it)`,
    );
  }
  return check("database", "ok", `${summary}, WAL`);
}

// Must hash exactly like db.migrate.ts does when it records a migration.
function checkMigrations(db: Database): Check {
  return migrationsCheck(migrationStatus(db, MIGRATIONS), MIGRATIONS.length);
}

/** The migrations line of the report, the same for both dialects. */
export function migrationsCheck(status: MigrationStatus, known: number): Check {
  if (status.unknown.length > 0) {
    const names = status.unknown.join(", ");
    return check(
      "migrations",
      "fail",
      `database is newer than this weir (unknown: ${names}); upgrade weir`,
    );
  }
  if (status.changed.length > 0) {
    const names = status.changed.join(", ");
    return check("migrations", "fail", `checksum mismatch: ${names} changed after it was applied`);
  }
  if (status.pending.length > 0) {
    const count = status.pending.length;
    return check("migrations", "warn", `${count} pending; run weir migrate or start the server`);
  }
  return check("migrations", "ok", `${status.applied.length} of ${known} applied`);
}

/** `secret.key` must be private to its owner, unless the secret comes from config instead. */
export function checkSecretKey(dir: string, override: string, source: ConfigSource): Check {
  if (override !== "") {
    return check("secret_key", "ok", source === "file" ? "from weir.toml" : "from WEIR_SECRET_KEY");
  }
  const path = join(dir, SECRET_KEY_FILE);
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch (error) {
    if (errorCode(error) === "ENOENT")
      return check("secret_key", "warn", `${path} missing; created on first start`);
    return check("secret_key", "fail", `${path} cannot be inspected: ${reason(error)}`);
  }
  const octal = `0${mode.toString(8)}`;
  if ((mode & 0o077) !== 0) {
    return check(
      "secret_key",
      "fail",
      `${path} has mode ${octal} (readable by others); run: chmod 600 ${path}`,
    );
  }
  try {
    if (!/^[0-9a-f]{64}$/.test(readFileSync(path, "utf8").trim())) {
      return check(
        "secret_key",
        "fail",
        `${path} is not a valid Weir secret key (64 hex characters)`,
      );
    }
  } catch (error) {
    return check("secret_key", "fail", `${path} cannot be read: ${reason(error)}`);
  }
  return check("secret_key", "ok", `${path}, mode ${octal}`);
}

/**
 * Open registration on an instance whose outbound policy lets server-side requests reach loopback
 * or private ranges: any stranger who signs up can make Weir call the LAN (docs/security.md).
 */
export function checkOutbound(config: Config): Check {
  if (!allowsLocalNetworks({ deny: config.outbound_deny, allow: config.outbound_allow })) {
    return check(
      "outbound",
      "ok",
      "loopback and private ranges are denied to server-side requests",
    );
  }
  if (config.registration === "open") {
    return check(
      "outbound",
      "warn",
      "registration is open and server-side requests may reach loopback and private ranges; " +
        "set WEIR_OUTBOUND_DENY (docs/security.md, Outbound requests)",
    );
  }
  return check("outbound", "ok", "loopback and private ranges allowed (registration is closed)");
}

/** Free space where the data dir lives (or would be created, when it is missing). */
export function checkDisk(dir: string): Check {
  const where = nearestExisting(resolve(dir));
  const stats = statfsSync(where);
  const free = stats.bavail * stats.bsize;
  const detail = `${formatBytes(free)} free on the filesystem of ${where}`;
  if (free < DISK_FAIL_BELOW) return check("disk", "fail", `${detail} (below 100 MiB)`);
  if (free < DISK_WARN_BELOW) return check("disk", "warn", `${detail} (below 1 GiB)`);
  return check("disk", "ok", detail);
}

function nearestExisting(path: string): string {
  let current = path;
  while (!existsAny(current) && dirname(current) !== current) current = dirname(current);
  return current;
}

function existsAny(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function existsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function pragmaNumber(db: Database, name: "page_count" | "page_size"): number {
  const row = db.query<Record<string, number>, []>(`PRAGMA ${name}`).get();
  return row?.[name] ?? 0;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** base_url: fine unset (URLs follow each request's Host), a problem when loopback on all interfaces. */
export function checkPublicUrl(settings: { base_url: string; host: string; port: number }): Check {
  const advice = publicUrlAdvice(settings);
  if (advice.problem) return check("public_url", "warn", advice.note ?? "");
  if (settings.base_url !== "") return check("public_url", "ok", `base_url ${settings.base_url}`);
  return check(
    "public_url",
    "ok",
    "base_url not set: URLs handed out follow each request's Host (and a trusted proxy's X-Forwarded-Host/-Proto); set WEIR_BASE_URL to fix one",
  );
}
