import { Database } from "bun:sqlite";
import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { type CommitTurn, createCommitTurn } from "./db.commit-turn.ts";
import { createUnitOfWork, type DbHandle, type UnitOfWork } from "./db.tx.ts";

export type Durability = "full" | "normal";

/**
 * An open database: the raw handle for hot prepared statements, drizzle for everything else,
 * and `tx(fn)` for writes that must commit together (src/db/db.tx.ts).
 */
export interface Db extends DbHandle, UnitOfWork {
  path: string;
  /** The transaction every group commit that joins it shares at the end of a turn. */
  turn: CommitTurn;
  close(): void;
}

/** A start-up failure with a reason fit for one line (the CLI prints it and exits 1). */
export class StartupError extends Error {
  override name = "StartupError";
}

export const DB_FILE = "weir.db";

/** Makes sure the data dir exists and is a writable directory, or says why not. */
export function prepareDataDir(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new StartupError(`data dir ${dir} is not a directory`);
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StartupError(`data dir ${dir} cannot be created: ${reason(error)}`);
  }
  try {
    accessSync(dir, constants.W_OK | constants.R_OK);
  } catch (error) {
    throw new StartupError(`data dir ${dir} is not writable: ${reason(error)}`);
  }
}

/**
 * Opens `<dataDir>/weir.db` in WAL mode. `full` durability makes every commit survive power
 * loss; group commit (capture room) is what keeps that cheap.
 */
export function openDatabase(dataDir: string, durability: Durability = "full"): Db {
  prepareDataDir(dataDir);
  const path = join(dataDir, DB_FILE);
  let sqlite: Database;
  try {
    sqlite = new Database(path, { create: true, strict: true });
    applyPragmas(sqlite, durability);
  } catch (error) {
    throw new StartupError(`database ${path} cannot be opened: ${reason(error)}`);
  }
  const handle = { sqlite, orm: drizzle({ client: sqlite }) };
  const { tx, afterCommit } = createUnitOfWork(handle);
  return {
    ...handle,
    tx,
    afterCommit,
    turn: createCommitTurn(tx),
    path,
    close: () => sqlite.close(),
  };
}

function applyPragmas(sqlite: Database, durability: Durability): void {
  sqlite.run("PRAGMA journal_mode = WAL");
  // Writers wait for each other instead of failing with SQLITE_BUSY (CLI next to a running server).
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run(`PRAGMA synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`);
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA temp_store = MEMORY");
  sqlite.run("PRAGMA cache_size = -16000");
}

/** The message of an unknown thrown value, for one-line reasons. */
export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
