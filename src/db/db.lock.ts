import { Database } from "bun:sqlite";
import { join } from "node:path";
import { reason, StartupError } from "./db.open.ts";

export const LOCK_FILE = "weir.lock";

/** Held by `weir serve` for its whole life; `release()` lets the next server in. */
export interface DataDirLock {
  release(): void;
}

/** Where the server that holds (or last held) the lock listens, as it was started. */
export interface ServingAddress {
  host: string;
  /** 0 when the port was left to the system (it is known only after listening). */
  port: number;
  /** The configured public base URL, "" when URLs follow each request's Host. */
  baseUrl: string;
}

/** The lock file's record of its latest holder. */
export interface LockHolder extends Partial<ServingAddress> {
  pid: number;
  since: string;
}

/**
 * Makes the data dir one server's. The lock is SQLite's own file lock on `<dataDir>/weir.lock`
 * (a RESERVED lock held by an open write transaction), not a pid file: the kernel drops it when
 * the process dies, even by `kill -9`, so a stale lock never blocks a restart, and a reused pid
 * (every container's server is pid 1) cannot fake one. The holder's pid is committed before the
 * lock is taken, so the server that is refused can name it, and so can CLI commands that look
 * for the running server (with its address). Admin commands never take it.
 */
export function acquireDataDirLock(dataDir: string, serving?: ServingAddress): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  let db: Database;
  try {
    db = new Database(path, { create: true, strict: true });
  } catch (error) {
    throw lockError(path, error);
  }
  try {
    // Not 0: a CLI command reading the holder (readDataDirLock) holds a shared lock for a moment,
    // which must delay this start, not refuse it. A live server's lock still refuses it.
    db.run("PRAGMA busy_timeout = 1000");
    db.run("PRAGMA journal_mode = DELETE");
    db.transaction(() => {
      // Recreated each time: a lock file of an older version has fewer columns.
      db.run("DROP TABLE IF EXISTS holder");
      db.run(`CREATE TABLE holder (pid INTEGER NOT NULL, since TEXT NOT NULL,
        host TEXT, port INTEGER, base_url TEXT)`);
      db.run("INSERT INTO holder (pid, since, host, port, base_url) VALUES (?, ?, ?, ?, ?)", [
        process.pid,
        new Date().toISOString(),
        serving?.host ?? null,
        serving?.port ?? null,
        serving?.baseUrl ?? null,
      ]);
    })();
    db.run("BEGIN IMMEDIATE");
  } catch (error) {
    const holder = readHolder(db);
    db.close();
    if (!isBusy(error)) throw lockError(path, error);
    const who = holder && holder !== process.pid ? `weir (pid ${holder})` : "another weir";
    throw new StartupError(`data dir ${dataDir} is in use by ${who}; stop it first`);
  }
  return {
    release() {
      try {
        db.run("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}

/**
 * The latest holder of a data dir's lock, read without taking it; null when there is no lock file
 * or it cannot be read. The server it names may have stopped since: probe it before trusting it.
 */
export function readDataDirLock(dataDir: string): LockHolder | null {
  let db: Database;
  try {
    db = new Database(join(dataDir, LOCK_FILE), { readonly: true, strict: true });
  } catch {
    return null;
  }
  try {
    db.run("PRAGMA busy_timeout = 1000");
    const row = db.query<Record<string, unknown>, []>("SELECT * FROM holder").get();
    if (!row || typeof row.pid !== "number") return null;
    const text = (value: unknown) => (typeof value === "string" ? value : undefined);
    return {
      pid: row.pid,
      since: text(row.since) ?? "",
      host: text(row.host),
      port: typeof row.port === "number" ? row.port : undefined,
      baseUrl: text(row.base_url),
    };
  } catch {
    return null;
  } finally {
    db.close();
  }
}

function readHolder(db: Database): number | undefined {
  try {
    return db.query<{ pid: number }, []>("SELECT pid FROM holder").get()?.pid;
  } catch {
    return undefined;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? "";
  return code.startsWith("SQLITE_BUSY") || /database is locked/.test(reason(error));
}

function lockError(path: string, error: unknown): StartupError {
  return new StartupError(`lock ${path} cannot be taken: ${reason(error)}`);
}
