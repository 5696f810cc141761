import type { MonitorChange } from "../alerts/alerts.model.ts";
import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type ChecksRepo, createChecksRepo } from "./checks.repo.ts";
import { createDependenciesRepo, type DependenciesRepo } from "./dependencies.repo.ts";
import { createMonitorsRepo, type MonitorsRepo } from "./monitors.repo.ts";
import type { CheckInput, MonitorsStore } from "./monitors.store.ts";

export interface MonitorsSqliteOptions {
  /** The alerts room's listener, told inside the check's transaction. */
  monitorChanged?: (tx: TxHandle, change: MonitorChange) => void;
}

/** The synchronous repos under the store: the check path and the due queue use them directly. */
export interface MonitorsSqliteRepos {
  repo: MonitorsRepo;
  checks: ChecksRepo;
  dependencies: DependenciesRepo;
}

/**
 * The monitors room's store over SQLite: the repos' synchronous statements and transactions,
 * each method answered as a promise. The scheduled check path keeps its own synchronous
 * transaction (checks.service.ts recordOutcome); `recordCheck` is the same unit for callers
 * that await.
 */
export function createMonitorsSqliteStore(
  db: Db,
  options: MonitorsSqliteOptions = {},
): MonitorsStore & MonitorsSqliteRepos {
  const repo = createMonitorsRepo(db);
  const checks = createChecksRepo(db);
  const dependencies = createDependenciesRepo(db);

  const recordCheck = (input: CheckInput, tx: TxHandle) => {
    const fresh = checks.stateOf(input.monitorId);
    const own = dependencies.stateOf(input.monitorId);
    if (!fresh || !own) return null;
    const parentId = repo.findById(input.monitorId)?.parentId ?? null;
    const decision = input.decide({
      ...fresh,
      heldAlertId: own.heldAlertId,
      parentState: parentId ? (dependencies.stateOf(parentId)?.state ?? null) : null,
      lastDownAt: checks.lastDownAt(input.monitorId),
    });
    const record = { ...decision.record, organizationId: input.organizationId };
    if (!checks.record(record, input.lease)) return null;
    if (decision.hold) {
      dependencies.hold(input.monitorId, decision.hold.changeId, decision.hold.parentId);
    }
    if (decision.releaseOwn) dependencies.release(input.monitorId);
    const released = decision.releaseChildren ? dependencies.heldChildren(input.monitorId) : [];
    for (const child of released) dependencies.release(child.monitorId);
    for (const alert of [...decision.alerts, ...input.releasedAlerts(released)]) {
      options.monitorChanged?.(tx, alert);
    }
    return decision;
  };

  return {
    repo,
    checks,
    dependencies,
    insertWithinLimit: async (monitor, limit) =>
      db.tx(() => {
        if (limit !== null && repo.count(monitor.organizationId) >= limit) return "limit_reached";
        repo.insert(monitor);
        return "inserted";
      }),
    find: async (organizationId, id) => repo.find(organizationId, id),
    findById: async (id) => repo.findById(id),
    findByPushToken: async (token) => repo.findByPushToken(token),
    page: async (organizationId, limit, offset) => repo.page(organizationId, limit, offset),
    count: async (organizationId) => repo.count(organizationId),
    update: async (organizationId, id, columns) => repo.update(organizationId, id, columns),
    remove: async (organizationId, id) => repo.remove(organizationId, id),
    figures: async () => repo.figures(),
    resumeOverdue: async (now, slackMs) => repo.resumeOverdue(now, slackMs),
    parentOf: async (organizationId, id) => dependencies.parentOf(organizationId, id),
    claimDue: async (now, slackMs, limit) => db.tx(() => repo.claimDue(now, slackMs, limit)),
    recordCheck: async (input) => db.tx((tx) => recordCheck(input, tx)),
    checksPage: async (monitorId, limit, offset) => checks.checksPage(monitorId, limit, offset),
    checksCount: async (monitorId) => checks.checksCount(monitorId),
    events: async (monitorId) => checks.events(monitorId),
    sums: async (monitorId, period, from) => checks.sums(monitorId, period, from),
    hourlyHistogram: async (monitorId, from) => checks.hourlyHistogram(monitorId, from),
    dailyBuckets: async (monitorId, from) => checks.dailyBuckets(monitorId, from),
    dailyRange: async (monitorId, from, to) => checks.dailyRange(monitorId, from, to),
    buckets: async (monitorId, period, from) => checks.buckets(monitorId, period, from),
    tenants: async () => checks.tenants(),
    deleteChecksBefore: async (organizationId, before, limit) =>
      checks.deleteChecksBefore(organizationId, before, limit),
    deleteBucketsBefore: async (period, before) => checks.deleteBucketsBefore(period, before),
  };
}
