import type { Db } from "../db/db.open.ts";
import { groupFailure } from "./issues.grouping.ts";
import { createIssuesRepo, type IssuesRepo } from "./issues.repo.ts";
import type { IssuesStore } from "./issues.store.ts";

/**
 * The issues' store over SQLite: the repo's synchronous statements, each unit in one
 * transaction. `repo` stays reachable for the observer, which groups failures inside the
 * delivery room's own transaction without a promise.
 */
export function createIssuesSqliteStore(db: Db): IssuesStore & { repo: IssuesRepo } {
  const repo = createIssuesRepo(db);
  return {
    repo,
    recordFailure: async (failure, fresh) => db.tx(() => groupFailure(repo, failure, fresh)),
    recordSuccess: async (destinationId, at, now) => repo.recordSuccess(destinationId, at, now),
    find: async (organizationId, id) => repo.find(organizationId, id),
    list: async (organizationId, query, page) => repo.list(organizationId, query, page),
    samples: async (issueId, limit) => repo.samples(issueId, limit),
    changeStatus: async (organizationId, issueId, decide) =>
      db.tx(() => {
        const issue = repo.find(organizationId, issueId);
        if (!issue) return { outcome: "not_found" } as const;
        const changed = decide(issue);
        if (changed === issue) return { outcome: "unchanged", issue } as const;
        if (issue.status === "closed") {
          const other = repo.findUnclosed(issue);
          if (other && other.id !== issue.id) return { outcome: "already_open" } as const;
        }
        repo.update(changed);
        return { outcome: "changed", issue: changed } as const;
      }),
    listUnclosedOfDestination: async (organizationId, destinationId) =>
      repo.listUnclosedOfDestination(organizationId, destinationId),
    listUnclosedOpenedBefore: async (organizationId, openedBefore, limit) =>
      repo.listUnclosedOpenedBefore(organizationId, openedBefore, limit),
    countByStatus: async () => repo.countByStatus(),
    tenantsWithClosedIssues: async () => repo.tenantsWithClosedIssues(),
    deleteClosedBefore: async (organizationId, before, limit) =>
      repo.deleteClosedBefore(organizationId, before, limit),
  };
}
