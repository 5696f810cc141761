import type { AuthPorts } from "../auth/auth.room.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import type { RoutingPorts } from "../routing/routing.room.ts";
import {
  contextOf,
  type GroupingDeps,
  type IssueListener,
  observeAttempt,
} from "./issues.grouping.ts";
import { renderIssueMetrics } from "./issues.metrics.ts";
import type { IssuesPorts } from "./issues.ports.ts";
import { createIssuesRepo } from "./issues.repo.ts";
import { sweepClosedIssues } from "./issues.retention.ts";
import { issuesRoutes } from "./issues.routes.ts";
import type { IssuesDeps } from "./issues.service.ts";

/** The closed-issues sweep: hourly like the other retention sweeps, and once at start. */
export const ISSUES_RETENTION_JOB = "issues.closed-retention";
const RETENTION_PATTERN = "0 * * * *";

export type IssuesRoomDeps = Pick<AppDeps, "db" | "clock" | "ids" | "logger" | "config">;

export interface IssuesRoomPorts {
  guard: AuthPorts["guard"];
  /** Every recorded delivery attempt, heard inside its transaction. */
  observeAttempts: DeliveryPorts["observeAttempts"];
  /** The routing room's description of a destination (bridge, names, priority). */
  describeDestination: RoutingPorts["describeDestination"];
}

/** What the issues room lends: the contract of issues.ports.ts, and its /metrics lines. */
export interface IssuesRoomLends extends IssuesPorts {
  /** Issues by status in Prometheus text. */
  metricLines(): string[];
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
  const repo = createIssuesRepo(deps.db);
  const listeners: IssueListener[] = [];
  const grouping: GroupingDeps = {
    repo,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    describeDestination: ports.describeDestination,
    listeners,
  };
  ports.observeAttempts((tx, delivery, attempt) => observeAttempt(tx, delivery, attempt, grouping));
  const issues: IssuesDeps = {
    repo,
    clock: deps.clock,
    tx: (fn) => deps.db.tx(() => fn()),
    describeDestination: ports.describeDestination,
  };
  const withContext = <T extends { destinationId: string }>(issue: T) => ({
    issue,
    context: contextOf(ports.describeDestination(issue.destinationId)),
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
            repo,
            clock: deps.clock,
            plans: deps.config.plans,
            yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
          }),
      },
    ],
    subscriptions: [],
    stop: () => {},
    ports: {
      metricLines: () => renderIssueMetrics(repo.countByStatus()),
      onIssueChange: (listener) => void listeners.push(listener),
      listUnclosedOpenedBefore: (organizationId, openedBefore, limit) =>
        repo.listUnclosedOpenedBefore(organizationId, openedBefore, limit).map(withContext),
      listUnclosedOfDestination: (organizationId, destinationId) =>
        repo.listUnclosedOfDestination(organizationId, destinationId),
      findIssue: (organizationId, issueId) => {
        const issue = repo.find(organizationId, issueId);
        return issue ? withContext(issue) : null;
      },
    },
  };
}
