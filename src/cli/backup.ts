import { Database } from "bun:sqlite";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { reason, StartupError } from "../db/db.open.ts";
import type { Config } from "../shared/config.table.ts";
import { SECRET_KEY_FILE } from "../shared/secret-key.ts";
import { VACUUM_COMMAND, vacuumInChild, vacuumInto } from "./backup.copy.ts";
import { startProgress } from "./backup.progress.ts";
import {
  action,
  configWithFlags,
  DATA_DIR_OPTION,
  DATABASE_OPTION,
  printJson,
  requireDatabase,
} from "./cli.common.ts";

type BackupFlags = {
  dataDir?: string;
  database?: string;
  json?: boolean;
  force?: boolean;
};

/** `weir backup FILE`: a consistent online copy of weir.db, safe while the server writes. */
export function registerBackup(program: Command): void {
  program
    .command("backup")
    .description("write a consistent copy of the database to FILE (safe while the server runs)")
    .argument("<file>", "where to write the copy")
    .option(...DATA_DIR_OPTION)
    .option(...DATABASE_OPTION)
    .option("--json", "print the result as JSON")
    .option("--force", "replace FILE if it exists")
    .action(action(backup));
  program
    .command(VACUUM_COMMAND, { hidden: true })
    .argument("<source>")
    .argument("<target>")
    .action(action(vacuumInto));
}

async function backup(file: string, flags: BackupFlags): Promise<void> {
  const started = performance.now();
  const { config } = configWithFlags(flags);
  if (config.database_url !== "") return postgresAdvice(file, config, flags.json === true);
  const source = requireDatabase(config.data_dir);
  const target = resolve(file);
  checkPaths(source, target, flags.force === true);
  // Same directory as FILE, so the final rename is atomic and FILE is never a half copy.
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const migrations = await copyVerified(source, temp);
  // Password hashes and payloads: only the owner may read the copy (the child's umask made it
  // so from its first byte; this covers a filesystem that ignored it).
  chmodSync(temp, 0o600);
  renameSync(temp, target);
  syncDirectory(dirname(target));
  const bytes = statSync(target).size;
  const duration_ms = Math.round(performance.now() - started);
  const key = secretKeyNote(config.data_dir, config.secret_key !== "");
  if (flags.json)
    return printJson({ file: target, bytes, duration_ms, migrations, secret_key: key.source });
  console.log(`backed up ${source} to ${target} (${bytes} bytes, ${duration_ms} ms)`);
  console.log(key.note);
}

/**
 * A PostgreSQL database is backed up by PostgreSQL's own tool, which knows its server version
 * and can copy it consistently while nodes write: Weir prints the command (custom format, for
 * pg_restore) with the URL minus its password, which pg_dump asks for or reads from PGPASSWORD
 * or ~/.pgpass, so it never lands in a shell history.
 */
function postgresAdvice(file: string, config: Config, json: boolean): void {
  const url = new URL(config.database_url);
  url.password = "";
  const command = ["pg_dump", "--format=custom", `--file=${resolve(file)}`, url.toString()];
  const key = secretKeyNote(config.data_dir, config.secret_key !== "");
  if (json) {
    printJson({ pg_dump: command, secret_key: key.source });
    return;
  }
  console.log(
    "weir backup copies SQLite data dirs; back up this PostgreSQL database with pg_dump:",
  );
  console.log(`  ${command.map(shellQuoted).join(" ")}`);
  console.log(
    "(it asks for the password, or reads PGPASSWORD or ~/.pgpass; restore with pg_restore)",
  );
  console.log(key.note);
}

function shellQuoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The backup holds no key: it signs logins and decrypts stored secrets, so a restore needs the
 * same one. Kept apart on purpose (a backup shipped off-site should not carry its own key);
 * the operator is told once, on every backup, where it is.
 */
function secretKeyNote(dataDir: string, fromEnv: boolean): { source: string; note: string } {
  if (fromEnv) {
    return {
      source: "WEIR_SECRET_KEY",
      note: "keep WEIR_SECRET_KEY with this backup: a restore without it cannot read stored secrets or logins",
    };
  }
  const path = resolve(join(dataDir, SECRET_KEY_FILE));
  return {
    source: path,
    note: `keep a copy of ${path} with this backup (it is not inside): a restore without it cannot read stored secrets or logins`,
  };
}

function checkPaths(source: string, target: string, force: boolean): void {
  const live = resolve(source);
  if ([live, `${live}-wal`, `${live}-shm`, `${live}-journal`].includes(target)) {
    throw new StartupError(
      `${target} is the live database (or one of its files); choose another FILE`,
    );
  }
  const dir = dirname(target);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new StartupError(`directory ${dir} does not exist`);
  }
  if (!existsSync(target)) return;
  if (statSync(target).isDirectory()) throw new StartupError(`${target} is a directory`);
  if (!force) throw new StartupError(`${target} already exists; pass --force to replace it`);
}

/**
 * Copies the database into `temp` in a child process, then proves the copy opens and passes
 * integrity_check. Any failure (or Ctrl-C) removes `temp`. Returns the copy's migration count.
 */
async function copyVerified(source: string, temp: string): Promise<number> {
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    removeTemp(temp); // VACUUM INTO refuses a non-empty target
    const progress = startProgress(temp, estimateSize(source));
    try {
      await vacuumInChild(source, temp, abort.signal);
    } finally {
      progress.stop(!abort.signal.aborted && existsSync(temp));
    }
    const migrations = verifyCopy(temp);
    syncFile(temp);
    return migrations;
  } catch (error) {
    removeTemp(temp);
    throw error;
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

// A copy killed mid-way also leaves the rollback journal SQLite keeps for the target.
function removeTemp(temp: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"])
    rmSync(`${temp}${suffix}`, { force: true });
}

/** The source's page_count * page_size: what the progress percentage is measured against. */
function estimateSize(source: string): number {
  return withReadOnly(source, "database", (db) => {
    const row = db
      .query<{ pages: number; size: number }, []>(
        "SELECT page_count AS pages, page_size AS size FROM pragma_page_count, pragma_page_size",
      )
      .get();
    return (row?.pages ?? 0) * (row?.size ?? 0);
  });
}

function verifyCopy(path: string): number {
  return withReadOnly(path, "backup copy", (db) => {
    const result = db
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((row) => row.integrity_check);
    if (result.length !== 1 || result[0] !== "ok") {
      throw new StartupError(
        `the copy failed its integrity check: ${result.slice(0, 3).join("; ")}`,
      );
    }
    const table = db
      .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'")
      .get();
    if (!table) return 0;
    return db.query<{ n: number }, []>("SELECT count(*) AS n FROM _migrations").get()?.n ?? 0;
  });
}

function withReadOnly<T>(path: string, what: string, use: (db: Database) => T): T {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    db.run("PRAGMA busy_timeout = 5000");
    return use(db);
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`${what} ${path} cannot be read: ${reason(error)}`);
  } finally {
    db?.close();
  }
}

// The copy must be on disk before the rename makes it the backup, and the rename itself too.
function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDirectory(dir: string): void {
  try {
    syncFile(dir);
  } catch {
    // Some platforms cannot fsync a directory; the copy itself is already synced.
  }
}
