import type { CommittedCapture } from "../capture/capture.writer.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import { type RoomStorage, sqliteOf } from "../deps.ts";
import type { RoomJob } from "../room.ts";
import type { Plan } from "../shared/plans.ts";
import { createActionsPostgresStore } from "./actions.postgres.ts";
import { createRunRecorder, type RecorderHooks, type RunRecorder } from "./actions.recorder.ts";
import type { OwedRuns } from "./actions.recovery.ts";
import { type ActionsRepo, createActionsRepo } from "./actions.repo.ts";
import { createActionsSqliteStore } from "./actions.sqlite.ts";
import type { ActionsStore } from "./actions.store.ts";
import {
  claimOwedRunsPostgres,
  OWED_LEASE_MS,
  oweActionRunsPostgres,
  renewOwedRunsPostgres,
  settleOwedRunPostgres,
} from "./actions-owed.postgres.ts";
import { createRunRecorderPostgres } from "./actions-recorder.postgres.ts";

/** A lease is renewed three times before it would lapse: a slow tick does not lose it. */
const LEASE_RENEW_SECONDS = OWED_LEASE_MS / 3000;

/** What the actions room runs on, whichever database holds it. */
export interface ActionsStorage {
  store: ActionsStore;
  /** SQLite only: the repo's synchronous reads and writes for capture's transaction. */
  repo?: ActionsRepo;
  recorder(hooks: RecorderHooks): RunRecorder;
  owed: OwedRuns;
  /** Jobs of this node's own: on PostgreSQL, renewing the leases of the runs it is making. */
  jobs(inFlight: () => readonly string[]): RoomJob[];
  /** PostgreSQL only: notes the owed runs in capture's PostgreSQL transaction. */
  oweRunsPostgres?(tx: PostgresTx, captures: readonly CommittedCapture[]): Promise<void>;
}

/**
 * SQLite: the repo's statements, runs recorded by group commit in its synchronous transactions.
 * PostgreSQL: the store, runs recorded in batches by recordRunsPostgres, owed runs claimed with
 * SKIP LOCKED.
 */
export function actionsStorage(deps: RoomStorage): ActionsStorage {
  const pg = deps.postgres;
  if (pg) {
    const store = createActionsPostgresStore(pg);
    /** Runs recovery claimed and has not yet made: their leases are renewed like running ones. */
    const claimed = new Set<string>();
    return {
      store,
      recorder: (hooks) => createRunRecorderPostgres({ ...hooks, pg, store }),
      owed: {
        async list(beforeIso, limit) {
          const runs = await claimOwedRunsPostgres(pg.sql, beforeIso, limit);
          for (const run of runs) claimed.add(run.requestId);
          return runs.map((due) => ({ ...due, plan: due.plan as Plan }));
        },
        done: (requestId) => void claimed.delete(requestId),
        settle: (requestId) => settleOwedRunPostgres(pg.sql, requestId),
        leased: true,
      },
      jobs: (inFlight) => [
        {
          name: "actions.leases",
          scope: "node",
          intervalSeconds: LEASE_RENEW_SECONDS,
          run: () => renewOwedRunsPostgres(pg.sql, [...inFlight(), ...claimed]),
        },
      ],
      oweRunsPostgres: oweActionRunsPostgres,
    };
  }
  const db = sqliteOf(deps);
  const repo = createActionsRepo(db);
  return {
    store: createActionsSqliteStore(db),
    repo,
    recorder: (hooks) =>
      createRunRecorder({
        ...hooks,
        repo,
        // An fsync per batch of runs would cost captures with actions a second one per turn; a
        // record lost in a power cut leaves its owed row, so recovery makes the run again.
        tx: (fn) => db.tx(fn, { durable: false }),
      }),
    owed: {
      list: async (beforeIso, limit) => repo.listDue(beforeIso, limit),
      settle: async (requestId) => repo.settleDue(requestId),
      done: () => {},
      leased: false,
    },
    jobs: () => [],
  };
}
