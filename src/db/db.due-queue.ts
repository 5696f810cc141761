import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { Scheduler } from "../shared/scheduler.ts";
import { createGroupShares, createOwedClaims } from "./db.due-groups.ts";
import { type Lease, LeaseState } from "./db.due-lease.ts";
import {
  createDueRows,
  type DueRow,
  type DueTable,
  dueColumns,
  type RowId,
} from "./db.due-rows.ts";
import type { DbHandle, UnitOfWork } from "./db.tx.ts";

export type { Lease };

/**
 * Claims and lease extensions do not wait for the disk: a lease lost in a power cut only means
 * the row is claimed again after the restart, which at-least-once allows (a crash of the process
 * alone loses nothing). Every claim was an fsync that held the event loop (~5 ms on our disks).
 */
const LEASE_WRITE = { durable: false } as const;

export interface DueQueueOptions<Row extends DueRow = DueRow> {
  /** The room that owns it: its jobs are `<name>.poll`, `<name>.wake`, `<name>.leases`. */
  name: string;
  /** The database (`deps.db`): claims and lease extensions run in its transactions. */
  db: DbHandle & UnitOfWork;
  table: DueTable;
  clock: Clock;
  scheduler: Scheduler;
  logger: Logger;
  /**
   * Runs one claimed row and writes its outcome itself (done: NULL due time; later: a new due
   * time), clearing the lease in the same UPDATE. A throw keeps the lease, so the row runs again
   * once it expires, exactly as after a crash.
   */
  run(row: Row, lease: Lease): Promise<void> | void;
  /** How long a claim holds a row without being extended; default 60 s. */
  leaseMs?: number;
  /**
   * Rows running at once in this process; default 16. A function is asked at every claim: a
   * limit that moves with the process's load (rows already running finish; none is cut short).
   */
  concurrency?: number | (() => number);
  /** Rows of one key running at once (with `table.key`); default 4. */
  perKey?: number;
  /** Fallback poll, for rows nobody announced (another process, expired leases); default 5 s. */
  pollSeconds?: number;
  /**
   * This process is the only one that claims from the table (one server per data dir, held by
   * its lock file): every lease found at start is a dead process's, so it is let go at once and
   * its rows run now instead of when the lease would have run out. Leave it off where several
   * processes share the table; their leases are what keeps them apart.
   */
  soleWorker?: boolean;
}

/** A queue of due rows; see `createDueQueue`. */
export interface DueQueue {
  /** Registers its jobs and claims what is due. Call from the room's start. */
  start(): void;
  /**
   * Something was committed: claim at the end of this turn instead of at the next poll. With
   * `groups` (the tenants of the new rows), a group owed slots claims even when none is free.
   */
  notify(groups?: Iterable<unknown>): void;
  /**
   * A finished row's outcome was committed with a new due time (a retry, a wait for a breaker):
   * its key is looked at again and the wake-up moved, without a claim over every key.
   */
  rearm(key: unknown, group?: unknown): void;
  /** Stops claiming and extending; resolves once the running rows have settled. */
  stop(): Promise<void>;
  /** Rows running now. */
  running(): number;
}

/**
 * Durable work claimed with leases (Miniflux's jobs, Svix's attempts): rows are claimed by ONE
 * statement (db.due-rows.ts) and run at most `concurrency` at once and `perKey` per key, so a
 * slow key holds only its own slots. With `table.group`, groups (tenants) share the slots fairly
 * (db.due-groups.ts): a group's rows never wait for another group's slow rows. A claim is
 * triggered by `notify()` after a commit, by a one-shot at the next due time, when a running row
 * finishes, and by a poll as the fallback.
 * Leases of running rows are extended every third of their length; a crashed process's rows are
 * claimed again once their leases run out.
 */
export function createDueQueue<Row extends DueRow = DueRow>(
  options: DueQueueOptions<Row>,
): DueQueue {
  const leaseMs = options.leaseMs ?? 60_000;
  const limit = options.concurrency ?? 16;
  const concurrencyNow = typeof limit === "function" ? limit : () => limit;
  const perKey = options.perKey ?? 4;
  const rows = createDueRows(options.db, options.table);
  const { idName, dueName, keyName, groupName } = dueColumns(options.table);
  const shares = groupName === null ? null : createGroupShares();
  const { clock, scheduler } = options;
  const log = options.logger.child({ scope: options.name });
  const jobs = {
    poll: `${options.name}.poll`,
    wake: `${options.name}.wake`,
    leases: `${options.name}.leases`,
  };
  const running = new Map<
    RowId,
    { lease: LeaseState; key: unknown; group: unknown; done: Promise<void> }
  >();
  const perKeyRunning = new Map<unknown, number>();
  /** Rows whose run returned while their finishing write waits for its commit (holdUntilSettled). */
  const settling = new Map<RowId, LeaseState>();
  const forgetSettled = (lease: LeaseState) => {
    if (settling.get(lease.id) === lease) settling.delete(lease.id);
  };
  let started = false;
  let pumpQueued = false;
  /**
   * False once a claim found nothing more it could take: every due row was leased or belonged to
   * a key at its limit. Until something new may be due (notify, the poll, a due time), a freed
   * slot is refilled from its own key alone: the full claim would read every due row of the
   * keys at their limit each time (a backlog of one destination made each claim O(backlog)).
   */
  let fullClaimNeeded = true;
  /** Keys whose rows finished since the last pump (with their group): they may take more. */
  const freedKeys = new Map<unknown, unknown>();
  let wakeAt: number | null = null;

  const saturatedKeys = () => [...perKeyRunning].filter(([, n]) => n >= perKey).map(([k]) => k);
  const keyOf = (row: DueRow) => (keyName === null ? null : row[keyName]);
  const groupOf = (row: DueRow) => (groupName === null ? null : (row[groupName] ?? null));

  const launch = (row: DueRow, until: number) => {
    const id = row[idName] as RowId;
    const key = keyOf(row);
    const group = groupOf(row);
    const lease = new LeaseState(id, until, rows, clock, leaseMs, forgetSettled);
    if (key !== null) perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) + 1);
    shares?.hold(group);
    // Started in this turn (a fake-clock test sees it run as the clock moves); settled later.
    const done = settle(() => options.run(row as Row, lease))
      .catch((error) =>
        log.error("due row failed; it runs again when its lease ends", { id, error }),
      )
      .finally(() => {
        running.delete(id);
        if (lease.awaitingSettle) settling.set(id, lease);
        if (key !== null) {
          const left = (perKeyRunning.get(key) ?? 1) - 1;
          if (left > 0) perKeyRunning.set(key, left);
          else perKeyRunning.delete(key);
        }
        shares?.release(group);
        if (key !== null) freedKeys.set(key, group);
        schedulePump();
      });
    running.set(id, { lease, key, group, done });
  };

  /**
   * Takes the claimed rows within their key's limit and their group's room and gives the others
   * back (in the claim's transaction); returns the rows to run.
   */
  const accept = (claimed: DueRow[], until: number): DueRow[] => {
    // RETURNING has no order: due order (then id) is the fairness within a key.
    claimed.sort((a, b) => compare(a[dueName], b[dueName]) || compare(a[idName], b[idName]));
    const taken = new Map<unknown, number>();
    const takenByGroup = new Map<unknown, number>();
    const concurrency = concurrencyNow();
    const accepted: DueRow[] = [];
    for (const row of claimed) {
      // Still this process's (running, or its outcome not yet committed) although its lease
      // ran out by the clock: the holder keeps it under the new claim's end, never run twice.
      const id = row[idName] as RowId;
      const held = running.get(id)?.lease ?? settling.get(id);
      if (held) {
        held.takeOver(until);
        continue;
      }
      const key = keyOf(row);
      const group = groupOf(row);
      const load = key === null ? 0 : (perKeyRunning.get(key) ?? 0) + (taken.get(key) ?? 0);
      const overKey = key !== null && load >= perKey;
      const busy = running.size + accepted.length;
      if (overKey || (shares && shares.room(group, concurrency, busy, takenByGroup) === 0)) {
        rows.release(row[idName] as RowId, until); // over its key's limit or group's part: later
        continue;
      }
      accepted.push(row);
      if (key !== null) taken.set(key, (taken.get(key) ?? 0) + 1);
      takenByGroup.set(group, (takenByGroup.get(group) ?? 0) + 1);
    }
    return accepted;
  };

  /** Claims `claim`'s rows in one transaction and runs those accepted; returns how many it claimed. */
  const claimWith = (claim: (now: number, until: number) => DueRow[]): number => {
    const now = clock.now();
    const until = now + leaseMs;
    // The claim and the give-back of rows over their key's limit are one transaction.
    const { count, accepted } = options.db.tx(() => {
      const claimed = claim(now, until);
      return { count: claimed.length, accepted: accept(claimed, until) };
    }, LEASE_WRITE);
    // Handlers start after COMMIT: they open transactions of their own.
    for (const row of accepted) launch(row, until);
    return count;
  };

  /** Claims up to `free` rows and runs those within their key's limit; true when no more are due. */
  const claimRound = (free: number): boolean =>
    claimWith((now, until) => rows.claim(now, until, free, saturatedKeys())) < free;

  /**
   * Slots `group` may take now besides `taken` rows not yet running (`takenByGroup` of them per
   * group); the free slots when the queue has no groups.
   */
  const roomOf = (
    group: unknown,
    concurrency: number,
    taken = 0,
    takenByGroup?: ReadonlyMap<unknown, number>,
  ) => {
    if (!shares) return concurrency - running.size - taken;
    return shares.room(group, concurrency, running.size + taken, takenByGroup);
  };

  /**
   * Refills the slots freed since the last pump from their own keys: one transaction. A group
   * owed slots while none is free, whose key ran dry, looks at its other keys (its own rows only).
   */
  const refillFreedKeys = () => {
    const keys = [...freedKeys];
    freedKeys.clear();
    const now = clock.now();
    const until = now + leaseMs;
    const concurrency = concurrencyNow();
    const dry = new Set<unknown>();
    const accepted = options.db.tx(() => {
      const all: DueRow[] = [];
      const byGroup = new Map<unknown, number>();
      for (const [key, group] of keys) {
        const room = Math.min(
          perKey - (perKeyRunning.get(key) ?? 0),
          roomOf(group, concurrency, all.length, byGroup),
        );
        if (room <= 0) continue;
        const claimed = rows.claimKey(key, now, until, room);
        if (claimed.length < room) dry.add(group);
        all.push(...claimed);
        byGroup.set(group, (byGroup.get(group) ?? 0) + claimed.length);
      }
      return all;
    }, LEASE_WRITE);
    for (const row of accepted) launch(row, until);
    if (owed && running.size >= concurrency) for (const group of dry) owed.claimOwed(group);
  };

  const owed = shares
    ? createOwedClaims({
        shares,
        rows,
        claimWith,
        room: (group) => roomOf(group, concurrencyNow()),
        saturatedKeys,
        concurrency: concurrencyNow,
        running: () => running.size,
      })
    : null;

  const armWake = () => {
    const at = rows.nextDueAfter(clock.now());
    if (at === wakeAt) return;
    scheduler.remove(jobs.wake);
    wakeAt = at;
    if (at !== null) {
      scheduler.once(jobs.wake, at, () => {
        wakeAt = null;
        fullClaimNeeded = true;
        pump();
      });
    }
  };

  const fullClaim = () => {
    const concurrency = concurrencyNow();
    // A poll that finds nothing due costs a read, not a write transaction (idle polls are most).
    const anything = running.size < concurrency && rows.anyDue(clock.now());
    if (!anything) fullClaimNeeded = false;
    // Rows released for being over their key's limit make that key skipped by the next round.
    for (
      let free = anything ? concurrency - running.size : 0;
      free > 0;
      free = concurrency - running.size
    ) {
      if (claimRound(free)) {
        fullClaimNeeded = false;
        break;
      }
    }
  };

  const pump = () => {
    pumpQueued = false;
    if (!started) return;
    try {
      if (fullClaimNeeded) {
        freedKeys.clear();
        fullClaim();
        owed?.claimForOwedGroups();
      } else if (freedKeys.size > 0 && running.size < concurrencyNow()) {
        refillFreedKeys();
      }
      armWake();
    } catch (error) {
      log.error("claiming due rows failed", { error });
    }
  };

  function schedulePump(): void {
    if (!started || pumpQueued) return;
    pumpQueued = true;
    setImmediate(pump);
  }

  /** Something new may be due: the next pump claims over every key. */
  function notify(groups?: Iterable<unknown>): void {
    fullClaimNeeded = true;
    if (owed && groups) owed.hint(groups);
    schedulePump();
  }

  const extendLeases = () => {
    if (running.size === 0) return;
    // One transaction for every extension: one fsync however many rows run.
    const lost = options.db.tx(
      () => [...running.values()].filter(({ lease }) => lease.held && !lease.extend()),
      LEASE_WRITE,
    );
    for (const { lease } of lost)
      log.warn("lease lost; another worker owns the row", { id: lease.id });
  };

  const releaseLeftLeases = () => {
    const released = options.db.tx(() => rows.releaseAll(), LEASE_WRITE);
    if (released > 0) log.info("rows leased by a stopped process run again now", { released });
  };

  return {
    start() {
      if (started) return;
      started = true;
      fullClaimNeeded = true;
      if (options.soleWorker) releaseLeftLeases();
      scheduler.interval(jobs.poll, options.pollSeconds ?? 5, () => {
        fullClaimNeeded = true;
        owed?.pollCame();
        pump();
      });
      scheduler.interval(jobs.leases, leaseMs / 3000, extendLeases);
      pump();
    },
    notify,
    rearm(key, group) {
      if (keyName !== null) freedKeys.set(key, group ?? null);
      schedulePump();
    },
    async stop() {
      started = false;
      for (const name of Object.values(jobs)) scheduler.remove(name);
      wakeAt = null;
      await Promise.all([...running.values()].map((r) => r.done));
    },
    running: () => running.size,
  };
}

/** Calls `fn` now; its outcome (a throw included) as a promise. */
function settle(fn: () => unknown): Promise<void> {
  try {
    return Promise.resolve(fn()).then(() => {});
  } catch (error) {
    return Promise.reject(error);
  }
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}
