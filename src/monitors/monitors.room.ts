import type { AlertsPorts } from "../alerts/alerts.room.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { createDueQueue } from "../db/db.due-queue.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { type Room, subscription } from "../room.ts";
import type { SecretsPorts } from "../secrets/secrets.room.ts";
import { secretReferences } from "../shared/secret-template.ts";
import { createChecksRepo, type DailyBucket } from "./checks.repo.ts";
import { type ChecksDeps, recordOutcome } from "./checks.service.ts";
import { createDependenciesRepo } from "./dependencies.repo.ts";
import { renderMonitorMetrics } from "./monitors.metrics.ts";
import { bucketsOf, shownStatus, TIME } from "./monitors.model.ts";
import { probe } from "./monitors.probes.ts";
import { createMonitorsRepo, monitorOfRow } from "./monitors.repo.ts";
import { sweepMonitorHistory } from "./monitors.retention.ts";
import { monitorsRoomRoutes } from "./monitors.routes.ts";
import type { MonitorsDeps } from "./monitors.service.ts";

export type MonitorsRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "config" | "scheduler" | "outbound" | "publicBaseUrl"
>;

export interface MonitorsRoomPorts {
  guard: AuthPorts["guard"];
  resolveSecrets: SecretsPorts["resolveSecrets"];
  monitorChanged: AlertsPorts["monitorChanged"];
  /** Whether a maintenance window covers the monitor at `at` (none when not given). */
  inMaintenance?(monitorId: string, at: Date): boolean;
}

/** What the monitors room lends: its /metrics lines, and reads for status pages. */
export interface MonitorsPorts {
  metricLines(): string[];
  /** Whether the organization has this monitor (one indexed read, no figures). */
  monitorExists(organizationId: string, id: string): Promise<boolean>;
  /** The organization's monitor in brief (no figures, one indexed read): status pages. */
  monitorSummary(
    organizationId: string,
    id: string,
  ): { id: string; name: string; status: string } | null;
  /**
   * The last `days` UTC days of a monitor's daily buckets, oldest first (days without checks
   * absent). `checks` leaves maintenance checks out (they are in `maintenance`), so
   * (up + degraded) ÷ checks is the day's uptime as the API shows it.
   */
  dailyBuckets(monitorId: string, days: number): DailyBucket[];
  /** State changes of these monitors since an ISO time, newest first (status page feeds). */
  stateChanges(
    monitorIds: string[],
    since: string,
  ): { monitor_id: string; from: string; to: string; at: string; reason: string | null }[];
  /** The organization's monitors whose URL or headers say `{{name}}`: such a secret stays. */
  monitorsUsingSecret(organizationId: string, name: string): { monitor_id: string; name: string }[];
}

export const MONITORS_RETENTION_JOB = "monitors.retention";
/** A slot missed by less than this (a short restart) is still checked at once. */
const RESUME_SLACK_MS = 5_000;

/**
 * Builds the monitors room (decisions.md §9, §13, §15): the CRUD, push URLs, and ONE due-queue
 * over the monitors table that the scheduler drives. Rows are keyed by organization, so when the
 * probe slots are contended each organization gets its share; a slow target holds only its own
 * slot until its timeout.
 */
export function createMonitorsRoom(
  deps: MonitorsRoomDeps,
  ports: MonitorsRoomPorts,
): Room<MonitorsPorts> {
  const repo = createMonitorsRepo(deps.db);
  const checksRepo = createChecksRepo(deps.db);
  const policy = createOutboundPolicy({
    deny: deps.config.outbound_deny,
    allow: deps.config.outbound_allow,
  });
  const tx = <T>(fn: (handle: TxHandle) => T): T => deps.db.tx(fn);
  const inMaintenance = ports.inMaintenance ?? (() => false);
  const dependencies = createDependenciesRepo(deps.db);
  const checks: ChecksDeps = {
    checks: checksRepo,
    dependencies,
    tx,
    monitorChanged: ports.monitorChanged,
    inMaintenance,
    clock: deps.clock,
    ids: deps.ids,
    probe: (monitor) =>
      probe(monitor, {
        outbound: deps.outbound,
        checkAddress: (address) => policy.checkAddress(address),
        resolveSecrets: ports.resolveSecrets,
        dnsResolver: deps.config.dns_resolver,
        now: () => performance.now(),
        clockNow: () => deps.clock.now(),
      }),
  };
  const queue = createDueQueue({
    name: "monitors",
    db: deps.db,
    table: { table: "monitors", due: "next_check_at", key: "organization_id", where: "paused = 0" },
    clock: deps.clock,
    scheduler: deps.scheduler,
    logger: deps.logger,
    concurrency: deps.config.monitor_concurrency,
    perKey: deps.config.monitor_per_organization,
    async run(row, lease) {
      const monitor = monitorOfRow(row);
      const result = await checks.probe(monitor);
      recordOutcome(monitor, result, { kind: "slot", lease: lease.until }, checks);
    },
  });
  const monitors: MonitorsDeps = {
    repo,
    dependencies,
    checks: checksRepo,
    tx,
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    urlProblem: (url) => deps.outbound.urlProblem(url),
    wake: () => queue.notify(),
    inMaintenance,
  };
  const routes = monitorsRoomRoutes({
    guard: ports.guard,
    monitors,
    checks,
    publicBaseUrl: deps.publicBaseUrl,
  });
  return {
    routes,
    jobs: [
      {
        name: MONITORS_RETENTION_JOB,
        pattern: "0 * * * *",
        runNow: true,
        run: () =>
          sweepMonitorHistory({
            checks: checksRepo,
            clock: deps.clock,
            plans: deps.config.plans,
            yieldTurn: () => new Promise((resolve) => setImmediate(resolve)),
          }),
      },
    ],
    subscriptions: [
      // Slots missed while the server was down go back on each monitor's phase first, so a
      // restart resumes the spread instead of checking every monitor at once.
      subscription("server.started", () => {
        repo.resumeOverdue(deps.clock.now(), RESUME_SLACK_MS);
        queue.start();
      }),
    ],
    stop: () => queue.stop(),
    ports: {
      metricLines: () =>
        renderMonitorMetrics(repo.figures(), (id) => inMaintenance(id, new Date(deps.clock.now()))),
      monitorExists: async (organizationId, id) => repo.find(organizationId, id) !== null,
      monitorsUsingSecret: (organizationId, name) =>
        repo
          .page(organizationId, Number.MAX_SAFE_INTEGER, 0)
          .filter((monitor) => secretReferences(JSON.stringify(monitor.settings)).includes(name))
          .map((monitor) => ({ monitor_id: monitor.id, name: monitor.name })),
      monitorSummary(organizationId, id) {
        const monitor = repo.find(organizationId, id);
        return monitor ? { id, name: monitor.name, status: shownStatus(monitor) } : null;
      },
      stateChanges: (monitorIds, since) =>
        monitorIds
          .flatMap((id) =>
            checksRepo
              .events(id)
              .filter((event) => event.at >= since)
              .map((event) => ({ monitor_id: id, ...event })),
          )
          .sort((a, b) => b.at.localeCompare(a.at)),
      dailyBuckets(monitorId, days) {
        const { day } = bucketsOf(deps.clock.now());
        return checksRepo
          .dailyBuckets(monitorId, day - (days - 1) * TIME.DAY_MS)
          .map((bucket) => ({ ...bucket, checks: bucket.checks - bucket.maintenance }));
      },
    },
  };
}
