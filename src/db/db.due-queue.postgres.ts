import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { Scheduler } from "../shared/scheduler.ts";
import { createGroupShares } from "./db.due-groups.ts";
import type { DueStore } from "./db.due-rows.store.ts";
import { type DueRow, type DueTable, dueColumns, type RowId } from "./db.due-rows.ts";

/**
 * A node's hold on one claimed row of a shared due table. Its end, `until`, is the token of the
 * finishing write (`… WHERE id = $1 AND locked_until = $2`); extensions move it, so the finishing
 * write takes it from `settle`, which waits for an extension in flight and ends them.
 */
export class PostgresLease {
  held = true;
  /** Its outcome is being written: extensions stop, so `until` stays the write's token. */
  private settled = false;
  private chain: Promise<unknown> = Promise.resolve();
  constructor(
    readonly id: RowId,
    public until: number,
    private readonly store: DueStore,
  ) {}

  /** Pushes the end out (on the server's clock); false once the row was lost to another node. */
  extend(): Promise<boolean> {
    return this.exclusive(async () => {
      if (!this.held) return false;
      if (this.settled) return true;
      const next = await this.store.extend(this.id, this.until);
      if (next === null) this.held = false;
      else this.until = next;
      return this.held;
    });
  }

  /**
   * Ends the extensions, after any in flight, and gives the lease's end: for an outcome written
   * later in a shared transaction, which must not wait on an extension (an extension waits for a
   * connection, or for a row that transaction holds).
   */
  settle(): Promise<number> {
    return this.exclusive(async () => {
      this.settled = true;
      return this.until;
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => {});
    return next;
  }
}

export interface PostgresDueQueueOptions<Row extends DueRow = DueRow> {
  /** The room that owns it: its jobs are `<name>.poll`, `<name>.leases`. */
  name: string;
  /** The shared claims (db.due-rows.postgres.ts). */
  store: DueStore;
  /** Names the id, key and group columns of the claimed rows. */
  table: DueTable;
  scheduler: Scheduler;
  logger: Logger;
  /** Runs one claimed row and writes its outcome with `lease.settle()`'s end. A throw keeps the lease. */
  run(row: Row, lease: PostgresLease): Promise<void>;
  /** How long a claim holds a row without being extended (the store's lease). */
  leaseMs: number;
  /** Rows running at once on this node; asked at every claim. */
  concurrency: () => number;
  /** Rows of one key running at once on this node (with `table.key`); default 4. */
  perKey?: number;
  /** The poll that finds rows other nodes wrote; default 1 s. */
  pollSeconds?: number;
  /**
   * Tells the other nodes that rows were committed here (their queues then claim at once rather
   * than at their poll). Sent at most once per `windowMs` (default 50): a burst of commits costs
   * one message at its start and one at the end of the window.
   */
  announce?: { send(): void; clock: Clock; windowMs?: number };
}

/** The queue of one node over a due table shared by several nodes on PostgreSQL. */
export interface PostgresDueQueue {
  start(): void;
  /** Something was committed on this node: claim now rather than at the next poll. */
  notify(): void;
  /** Rows any node may run were committed here: claim now and tell the other nodes. */
  notifyAll(): void;
  /** Stops claiming, waits for the running rows, and gives back the leases still held. */
  stop(): Promise<void>;
  running(): number;
}

/**
 * The PostgreSQL twin of db.due-queue.ts, as plain as a shared table allows: every claim is one
 * `FOR UPDATE SKIP LOCKED` statement of the store, so nodes never take one row twice, and a dead
 * node's rows come back when their leases lapse on the server's clock. On this node rows run at
 * most `concurrency` at once and `perKey` per key, and with `table.group` the groups (tenants)
 * share the slots as on SQLite: a claim first skips the groups that hold their fair part, and
 * only free slots left after that go to anyone. Claims run one at a time (a pump), on `notify`,
 * when a row ends, and on the poll.
 */
export function createPostgresDueQueue<Row extends DueRow = DueRow>(
  options: PostgresDueQueueOptions<Row>,
): PostgresDueQueue {
  const { store, scheduler } = options;
  const { idName, keyName, groupName, leaseName } = dueColumns(options.table);
  const perKey = options.perKey ?? 4;
  const shares = groupName === null ? null : createGroupShares();
  const log = options.logger.child({ scope: options.name });
  const jobs = {
    poll: `${options.name}.poll`,
    leases: `${options.name}.leases`,
    announce: `${options.name}.announce`,
  };
  const running = new Map<RowId, { lease: PostgresLease; done: Promise<void> }>();
  const perKeyRunning = new Map<unknown, number>();
  let started = false;
  let pumping = false;
  let again = false;

  const keyOf = (row: DueRow) => (keyName === null ? null : row[keyName]);
  const groupOf = (row: DueRow) => (groupName === null ? null : (row[groupName] ?? null));
  const saturatedKeys = () => [...perKeyRunning].filter(([, n]) => n >= perKey).map(([k]) => k);

  const launch = (row: DueRow) => {
    const id = row[idName] as RowId;
    const key = keyOf(row);
    const group = groupOf(row);
    const lease = new PostgresLease(id, Number(row[leaseName]), store);
    if (key !== null) perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) + 1);
    shares?.hold(group);
    const done = options
      .run(row as Row, lease)
      .catch((error) =>
        log.error("due row failed; it runs again when its lease ends", { id, error }),
      )
      .finally(() => {
        running.delete(id);
        if (key !== null) {
          const left = (perKeyRunning.get(key) ?? 1) - 1;
          if (left > 0) perKeyRunning.set(key, left);
          else perKeyRunning.delete(key);
        }
        shares?.release(group);
        notify();
      });
    running.set(id, { lease, done });
  };

  /** Runs the rows within their key's limit and their group's room; gives the others back. */
  const accept = async (claimed: DueRow[]) => {
    const concurrency = options.concurrency();
    for (const row of claimed) {
      const key = keyOf(row);
      const group = groupOf(row);
      const overKey = key !== null && (perKeyRunning.get(key) ?? 0) >= perKey;
      const noRoom = shares !== null && shares.room(group, concurrency, running.size) === 0;
      if (overKey || noRoom) {
        await store.release(row[idName] as RowId, Number(row[leaseName]));
        continue;
      }
      launch(row);
    }
  };

  /** Claims until the slots are full or nothing more is due. */
  const claimRound = async (): Promise<void> => {
    for (;;) {
      const free = options.concurrency() - running.size;
      if (free <= 0 || !started) return;
      // Groups holding their part first; the slots they leave go to anyone, as on SQLite.
      const full = shares ? shares.full(options.concurrency()) : [];
      let claimed = await store.claim(free, saturatedKeys(), full);
      if (claimed.length < free && full.length > 0) {
        claimed = claimed.concat(await store.claim(free - claimed.length, saturatedKeys()));
      }
      await accept(claimed);
      if (claimed.length < free) return;
    }
  };

  const pump = async () => {
    if (!started) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        await claimRound();
      } while (again && started);
    } catch (error) {
      log.error("claiming due rows failed", { error });
    } finally {
      pumping = false;
    }
  };

  function notify(): void {
    if (started) void pump();
  }

  const announce = options.announce;
  const windowMs = announce?.windowMs ?? 50;
  let announcedAt = Number.NEGATIVE_INFINITY;
  const sendAnnouncement = () => {
    if (!announce || !started) return;
    announcedAt = announce.clock.now();
    announce.send();
  };
  /** The first commit of a quiet spell goes out at once, the rest of its window in one more. */
  const announceSoon = () => {
    if (!announce || !started || scheduler.has(jobs.announce)) return;
    const at = announcedAt + windowMs;
    if (at <= announce.clock.now()) sendAnnouncement();
    else scheduler.once(jobs.announce, at, sendAnnouncement);
  };

  const extendLeases = async () => {
    const leases = [...running.values()].map((r) => r.lease);
    const kept = await Promise.all(leases.map((lease) => lease.extend().catch(() => true)));
    leases.forEach((lease, i) => {
      if (!kept[i]) log.warn("lease lost; another node owns the row", { id: lease.id });
    });
  };

  return {
    start() {
      if (started) return;
      started = true;
      scheduler.interval(jobs.poll, options.pollSeconds ?? 1, () => void pump());
      scheduler.interval(jobs.leases, options.leaseMs / 3000, () => void extendLeases());
      void pump();
    },
    notify,
    notifyAll() {
      notify();
      announceSoon();
    },
    async stop() {
      started = false;
      for (const name of Object.values(jobs)) scheduler.remove(name);
      await Promise.all([...running.values()].map((r) => r.done));
    },
    running: () => running.size,
  };
}
