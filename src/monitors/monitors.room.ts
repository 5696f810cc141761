import type { MonitorChange } from "../alerts/alerts.model.ts";
import type { AlertsPorts } from "../alerts/alerts.room.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresSql as SQL } from "../db/db.postgres-handle.ts";
import type { RoomStorage, SharedDeps } from "../deps.ts";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { type Room, subscription } from "../room.ts";
import type { SecretsPorts } from "../secrets/secrets.room.ts";
import { secretReferences } from "../shared/secret-template.ts";
import type { ChecksDeps } from "./checks.service.ts";
import { renderMonitorMetrics } from "./monitors.metrics.ts";
import { bucketsOf, type Monitor, shownStatus, TIME } from "./monitors.model.ts";
import { probe } from "./monitors.probes.ts";
import { sweepMonitorHistory } from "./monitors.retention.ts";
import { monitorsRoomRoutes } from "./monitors.routes.ts";
import type { MonitorsDeps } from "./monitors.service.ts";
import { monitorsStorage } from "./monitors.storage.ts";
import type { DailyBucket } from "./monitors.store.ts";

export type MonitorsRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "config" | "scheduler" | "outbound" | "publicBaseUrl"
> &
  RoomStorage;

export interface MonitorsRoomPorts {
  guard: AuthPorts["guard"];
  resolveSecrets: SecretsPorts["resolveSecrets"];
  monitorChanged: AlertsPorts["monitorChanged"];
  /** The same on PostgreSQL, told inside the check's transaction (alerts' is still to come). */
  monitorChangedPostgres?(tx: SQL, change: MonitorChange): Promise<void>;
  /** Whether a maintenance window covers the monitor at `at` (none when not given). */
  inMaintenance?(monitorId: string, at: Date): boolean;
}

/** What the monitors room lends: its /metrics lines, and reads for status pages. */
export interface MonitorsPorts {
  metricLines(): Promise<string[]>;
  /** Whether the organization has this monitor (one indexed read, no figures). */
  monitorExists(organizationId: string, id: string): Promise<boolean>;
  /** The organization's monitor in brief (no figures, one indexed read): status pages. */
  monitorSummary(
    organizationId: string,
    id: string,
  ): Promise<{ id: string; name: string; status: string } | null>;
  /**
   * The last `days` UTC days of a monitor's daily buckets, oldest first (days without checks
   * absent). `checks` leaves maintenance checks out (they are in `maintenance`), so
   * (up + degraded) ÷ checks is the day's uptime as the API shows it.
   */
  dailyBuckets(monitorId: string, days: number): Promise<DailyBucket[]>;
  /** State changes of these monitors since an ISO time, newest first (status page feeds). */
  stateChanges(
    monitorIds: string[],
    since: string,
  ): Promise<{ monitor_id: string; from: string; to: string; at: string; reason: string | null }[]>;
  /** The organization's monitors whose URL or headers say `{{name}}`: such a secret stays. */
  monitorsUsingSecret(
    organizationId: string,
    name: string,
  ): Promise<{ monitor_id: string; name: string }[]>;
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
  const policy = createOutboundPolicy({
    deny: deps.config.outbound_deny,
    allow: deps.config.outbound_allow,
  });
  const inMaintenance = ports.inMaintenance ?? (() => false);
  const probeMonitor = (monitor: Monitor) =>
    probe(monitor, {
      outbound: deps.outbound,
      checkAddress: (address) => policy.checkAddress(address),
      resolveSecrets: ports.resolveSecrets,
      dnsResolver: deps.config.dns_resolver,
      now: () => performance.now(),
      clockNow: () => deps.clock.now(),
    });
  const storage = monitorsStorage(deps, {
    probe: probeMonitor,
    monitorChanged: ports.monitorChanged,
    monitorChangedPostgres: ports.monitorChangedPostgres,
    inMaintenance,
  });
  const { store } = storage;
  const checks: ChecksDeps = {
    store,
    clock: deps.clock,
    probe: probeMonitor,
    record: storage.record,
  };
  const monitors: MonitorsDeps = {
    store,
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    urlProblem: (url) => deps.outbound.urlProblem(url),
    wake: () => storage.wake(),
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
        scope: "cluster",
        pattern: "0 * * * *",
        runNow: true,
        run: () =>
          sweepMonitorHistory({
            checks: store,
            clock: deps.clock,
            plans: deps.config.plans,
            yieldTurn: () => new Promise((resolve) => setImmediate(resolve)),
          }),
      },
      ...storage.jobs,
    ],
    subscriptions: [
      // Slots missed while the server was down go back on each monitor's phase first, so a
      // restart resumes the spread instead of checking every monitor at once.
      subscription("server.started", async () => {
        await store.resumeOverdue(deps.clock.now(), RESUME_SLACK_MS);
        storage.start();
      }),
    ],
    stop: () => storage.stop(),
    ports: {
      metricLines: async () =>
        renderMonitorMetrics(await store.figures(), (id) =>
          inMaintenance(id, new Date(deps.clock.now())),
        ),
      monitorExists: async (organizationId, id) => (await store.find(organizationId, id)) !== null,
      monitorsUsingSecret: async (organizationId, name) =>
        (await store.page(organizationId, Number.MAX_SAFE_INTEGER, 0))
          .filter((monitor) => secretReferences(JSON.stringify(monitor.settings)).includes(name))
          .map((monitor) => ({ monitor_id: monitor.id, name: monitor.name })),
      async monitorSummary(organizationId, id) {
        const monitor = await store.find(organizationId, id);
        return monitor ? { id, name: monitor.name, status: shownStatus(monitor) } : null;
      },
      async stateChanges(monitorIds, since) {
        const changes = [];
        for (const id of monitorIds) {
          for (const event of await store.events(id)) {
            if (event.at >= since) changes.push({ monitor_id: id, ...event });
          }
        }
        return changes.sort((a, b) => b.at.localeCompare(a.at));
      },
      async dailyBuckets(monitorId, days) {
        const { day } = bucketsOf(deps.clock.now());
        return (await store.dailyBuckets(monitorId, day - (days - 1) * TIME.DAY_MS)).map(
          (bucket) => ({ ...bucket, checks: bucket.checks - bucket.maintenance }),
        );
      },
    },
  };
}
