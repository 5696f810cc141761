import type { Database, Statement } from "bun:sqlite";
import type { drizzle } from "drizzle-orm/bun-sqlite";

/**
 * What a repo is built over: the database itself, or the handle of an open transaction. On
 * SQLite both are the one connection, so a repo prepared once over the database runs inside the
 * transaction when it is called inside `tx(fn)`; a dialect with a connection pool hands `fn` the
 * transaction's own connection, which is why use cases pass the handle on instead of the db.
 */
export interface DbHandle {
  sqlite: Database;
  orm: ReturnType<typeof drizzle>;
}

/** The handle inside `tx(fn)`. */
export interface TxHandle extends DbHandle {
  /**
   * Nested unit inside the transaction (a SAVEPOINT): its writes are undone alone when `fn`
   * throws, and the error goes on to the caller, which may catch it and carry on.
   */
  savepoint<T>(fn: (tx: TxHandle) => T): T;
}

/** Writes that span rooms commit together or not at all. */
export interface UnitOfWork {
  /**
   * Runs `fn` in ONE transaction (BEGIN IMMEDIATE: the write lock is taken up front, so two
   * writers never deadlock upgrading a read lock) and commits when it returns; throws, rolled
   * back, when `fn` throws. `fn` is synchronous: an `await` inside would let other work run on
   * the same connection in the middle of the transaction, so a returned Promise is refused.
   * Calling `tx` inside `fn` is refused too: say `savepoint` when a nested unit is meant.
   */
  tx<T>(fn: (tx: TxHandle) => T, options?: TxOptions): T;
  /**
   * Runs `fn` once the open transaction commits, and never if it rolls back (or if the savepoint
   * open now is undone): for in-memory state that must follow what was committed, such as a
   * gauge. Outside a transaction (a write in autocommit) it runs at once. `fn` must not throw.
   */
  afterCommit(fn: () => void): void;
}

export interface TxOptions {
  /**
   * false: the COMMIT does not wait for the disk (synchronous=NORMAL for this transaction alone).
   * Only for writes whose loss in a power cut is harmless, such as a due-queue lease (the row is
   * claimed again, as after a crash). A process crash loses nothing either way, and the next
   * durable commit makes these writes durable too (it syncs the whole log).
   */
  durable?: boolean;
}

/** A unit of work over one bun:sqlite connection. */
export function createUnitOfWork(handle: DbHandle): UnitOfWork {
  const { sqlite } = handle;
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");
  // 2 = FULL: the only level where a relaxed commit has anything to relax.
  const full =
    sqlite.query<{ synchronous: number }, []>("PRAGMA synchronous").get()?.synchronous === 2;
  // Run as text each time: SQLite applies this pragma while compiling it, not when a prepared
  // statement is run again.
  const relax = () => sqlite.run("PRAGMA synchronous = NORMAL");
  const restore = () => sqlite.run("PRAGMA synchronous = FULL");
  let depth = 0;
  /** afterCommit callbacks by nesting level: a released savepoint hands its own to its parent. */
  const pending: (() => void)[][] = [[]];
  const pendingAt = (n: number) => {
    pending[n] ??= [];
    return pending[n];
  };
  // Prepared once per nesting level: a savepoint per delivery attempt is on a hot path.
  const levels: { open: Statement; release: Statement; undo: Statement }[] = [];
  const level = (n: number) => {
    levels[n] ??= {
      open: sqlite.prepare(`SAVEPOINT weir_sp_${n}`),
      release: sqlite.prepare(`RELEASE weir_sp_${n}`),
      undo: sqlite.prepare(`ROLLBACK TO weir_sp_${n}`),
    };
    return levels[n];
  };
  const savepoint = <T>(fn: (tx: TxHandle) => T): T => {
    if (!sqlite.inTransaction) throw new Error("savepoint() outside tx(): the handle has expired");
    const sp = level(++depth);
    sp.open.run();
    try {
      const result = refusePromise(fn(txHandle));
      sp.release.run();
      const mine = pendingAt(depth);
      if (mine.length > 0) pendingAt(depth - 1).push(...mine.splice(0));
      return result;
    } catch (error) {
      pendingAt(depth).length = 0;
      sp.undo.run();
      sp.release.run();
      throw error;
    } finally {
      depth -= 1;
    }
  };
  const txHandle: TxHandle = { sqlite, orm: handle.orm, savepoint };
  return {
    tx(fn, options) {
      if (sqlite.inTransaction) {
        throw new Error("tx() inside an open transaction: use the handle's savepoint()");
      }
      const relaxed = full && options?.durable === false;
      if (relaxed) relax();
      begin.run();
      const committed = pendingAt(0);
      committed.length = 0;
      try {
        const result = refusePromise(fn(txHandle));
        commit.run();
        for (const callback of committed.splice(0)) callback();
        return result;
      } catch (error) {
        committed.length = 0;
        if (sqlite.inTransaction) rollback.run();
        throw error;
      } finally {
        if (relaxed) restore();
      }
    },
    afterCommit(fn) {
      if (sqlite.inTransaction) pendingAt(depth).push(fn);
      else fn();
    },
  };
}

function refusePromise<T>(result: T): T {
  if (result instanceof Promise) {
    // The transaction must not stay open across turns; the promise's own failure is moot now.
    result.catch(() => {});
    throw new Error("a unit of work is synchronous: do the async part before or after tx()");
  }
  return result;
}
