import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { Room, RoomJob } from "../room.ts";
import type { RoutingPorts } from "../routing/routing.room.ts";
import {
  contextOf,
  type GroupingDeps,
  type IssueListener,
  type IssueListenerPostgres,
  observeAttempt,
  observeAttemptPostgres,
} from "./issues.grouping.ts";
import { renderIssueMetrics } from "./issues.metrics.ts";
import type { IssueRecord, IssuesPorts } from "./issues.ports.ts";
import {
  createIssuesPostgresStore,
  groupFailurePostgres,
  recordSuccessPostgres,
  unclosedOfDestinationPostgres,
} from "./issues.postgres.ts";
import { sweepClosedIssues } from "./issues.retention.ts";
import { issuesRoutes } from "./issues.routes.ts";
import type { IssuesDeps } from "./issues.service.ts";
import { createIssuesSqliteStore } from "./issues.sqlite.ts";
import type { IssuesStore } from "./issues.store.ts";

/** The closed-issues sweep: hourly like the other retention sweeps, and once at start. */
export const ISSUES_RETENTION_JOB = "issues.closed-retention";
const RETENTION_PATTERN = "0 * * * *";

export type IssuesRoomDeps = Pick<SharedDeps, "clock" | "ids" | "logger" | "config"> & RoomStorage;

export interface IssuesRoomPorts {
  guard: AuthPorts["guard"];
  /** Every recorded delivery attempt, heard inside its transaction. */
  observeAttempts: DeliveryPorts["observeAttempts"];
  /** The same on PostgreSQL, inside the attempt's `sql.begin` transaction. */
  observeAttemptsPostgres?: DeliveryPorts["observeAttemptsPostgres"];
  /** The routing room's description of a destination (bridge, names, priority). */
  describeDestination: RoutingPorts["describeDestination"];
  /** PostgreSQL: the routing room's twin, read in the attempt's transaction. */
  describeDestinationPostgres?: RoutingPorts["describeDestinationPostgres"];
  /** `describeDestination` awaited, on either store (what an issue's names are read by). */
  findDestination?: RoutingPorts["findDestination"];
}

/** What the issues room lends: the contract of issues.ports.ts, and its /metrics lines. */
export interface IssuesRoomLends extends IssuesPorts {
  /** Issues by status in Prometheus text, read at the scrape (a trigger-kept table of three rows). */
  metricLines(): Promise<string[]>;
}

/** How the room hears attempts and counts issues on the store it runs on. */
interface IssuesStorage {
  store: IssuesStore;
  /** listUnclosedOfDestination as a SQLite listener reads it, inside its transaction. */
  unclosedOfDestinationNow(organizationId: string, destinationId: string): IssueRecord[];
  jobs: RoomJob[];
}

/**
 * Builds the issues room (interface.md "Issue", decisions.md §8): failed event deliveries are
 * grouped into issues in the transaction that records the attempt, and `/api/v1/issues` lets
 * members read them and admins move them through their statuses.
 */
export function createIssuesRoom(
  deps: IssuesRoomDeps,
  ports: IssuesRoomPorts,
): Room<IssuesRoomLends> {
  const listeners: IssueListener[] = [];
  const listenersPostgres: IssueListenerPostgres[] = [];
  const storage = deps.postgres
    ? postgresStorage(deps, deps.postgres, ports, listenersPostgres)
    : sqliteStorage(deps, ports, listeners);
  const { store } = storage;
  const issues: IssuesDeps = {
    store,
    clock: deps.clock,
    describeDestination: ports.findDestination ?? ports.describeDestination,
  };
  const withContext = async <T extends { destinationId: string }>(issue: T) => ({
    issue,
    context: contextOf(await issues.describeDestination(issue.destinationId)),
  });
  return {
    routes: issuesRoutes({ guard: ports.guard, issues }),
    jobs: [
      {
        name: ISSUES_RETENTION_JOB,
        scope: "cluster",
        pattern: RETENTION_PATTERN,
        runNow: true,
        run: () =>
          sweepClosedIssues({
            store,
            clock: deps.clock,
            plans: deps.config.plans,
            yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
          }),
      },
      ...storage.jobs,
    ],
    subscriptions: [],
    stop: () => {},
    ports: {
      metricLines: async () => renderIssueMetrics(await store.countByStatus()),
      onIssueChange: (listener) => void listeners.push(listener),
      onIssueChangePostgres: (listener) => void listenersPostgres.push(listener),
      listUnclosedOpenedBefore: async (organizationId, openedBefore, limit) =>
        Promise.all(
          (await store.listUnclosedOpenedBefore(organizationId, openedBefore, limit)).map(
            withContext,
          ),
        ),
      listUnclosedOfDestination: (organizationId, destinationId) =>
        storage.unclosedOfDestinationNow(organizationId, destinationId),
      listUnclosedOfDestinationPostgres: (tx, organizationId, destinationId) =>
        unclosedOfDestinationPostgres(tx, organizationId, destinationId),
      findIssue: async (organizationId, issueId) => {
        const issue = await store.find(organizationId, issueId);
        return issue ? withContext(issue) : null;
      },
    },
  };
}

/** SQLite: failures grouped through the repo inside the attempt's synchronous transaction. */
function sqliteStorage(
  deps: IssuesRoomDeps,
  ports: IssuesRoomPorts,
  listeners: readonly IssueListener[],
): IssuesStorage {
  const store = createIssuesSqliteStore(sqliteOf(deps));
  const { repo } = store;
  const grouping: GroupingDeps = {
    repo,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    describeDestination: ports.describeDestination,
    listeners,
  };
  ports.observeAttempts((tx, delivery, attempt) => observeAttempt(tx, delivery, attempt, grouping));
  return {
    store,
    unclosedOfDestinationNow: (organizationId, destinationId) =>
      repo.listUnclosedOfDestination(organizationId, destinationId),
    jobs: [],
  };
}

/** PostgreSQL: failures grouped in the attempt's `sql.begin` transaction. */
function postgresStorage(
  deps: IssuesRoomDeps,
  pg: PostgresDb,
  ports: IssuesRoomPorts,
  listeners: readonly IssueListenerPostgres[],
): IssuesStorage {
  const store = createIssuesPostgresStore(pg);
  ports.observeAttemptsPostgres?.((tx, delivery, attempt) =>
    observeAttemptPostgres(tx, delivery, attempt, {
      clock: deps.clock,
      ids: deps.ids,
      logger: deps.logger,
      describeDestination: ports.describeDestination,
      ...(ports.describeDestinationPostgres && {
        describeDestinationPostgres: ports.describeDestinationPostgres,
      }),
      group: groupFailurePostgres,
      recordSuccess: recordSuccessPostgres,
      listeners,
    }),
  );
  return {
    store,
    unclosedOfDestinationNow: () => {
      throw new Error("on PostgreSQL an issue listener reads listUnclosedOfDestinationPostgres");
    },
    jobs: [],
  };
}
