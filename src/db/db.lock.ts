import { Database } from "bun:sqlite";
import { join } from "node:path";
import { reason, StartupError } from "./db.open.ts";

export const LOCK_FILE = "weir.lock";

/** Held by `weir serve` for its whole life; `release()` lets the next server in. */
export interface DataDirLock {
  release(): void;
}

/**
 * Makes the data dir one server's. The lock is SQLite's own file lock on `<dataDir>/weir.lock`
 * (a RESERVED lock held by an open write transaction), not a pid file: the kernel drops it when
 * the process dies, even by `kill -9`, so a stale lock never blocks a restart, and a reused pid
 * (every container's server is pid 1) cannot fake one. The holder's pid is committed before the
 * lock is taken, so the server that is refused can name it. Admin commands never take it.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  let db: Database;
  try {
    db = new Database(path, { create: true, strict: true });
  } catch (error) {
    throw lockError(path, error);
  }
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.run("PRAGMA journal_mode = DELETE");
    db.run("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)");
    db.transaction(() => {
      db.run("DELETE FROM holder");
      db.run("INSERT INTO holder (pid, since) VALUES (?, ?)", [
        process.pid,
        new Date().toISOString(),
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
