import type { ApiKeyPorts } from "../auth/api-keys.ports.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { RoomStorage, SharedDeps } from "../deps.ts";
import type { IssuesPorts } from "../issues/issues.ports.ts";
import { type Room, type RoomJob, subscription } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import { secretReferences } from "../shared/secret-template.ts";
import {
  API_KEY_EXPIRING_JOB,
  API_KEY_EXPIRING_PATTERN,
  fireForExpiringKeys,
} from "./alerts.api-keys.ts";
import { fireForOpenIssues, issueSubject, type ScheduledFiringDeps } from "./alerts.firing.ts";
import { createMailer } from "./alerts.mailer.ts";
import type { MonitorChange } from "./alerts.model.ts";
import { sweepAlertFirings } from "./alerts.retention.ts";
import { alertsRoutes } from "./alerts.routes.ts";
import { alertKindHandlers } from "./alerts.send.ts";
import type { AlertsDeps } from "./alerts.service.ts";
import { alertsStorage } from "./alerts.storage.ts";

/** The firings sweep: hourly at minute 0 like the other retention sweeps, and once at start. */
export const ALERTS_RETENTION_JOB = "alerts.firings-retention";

/** The scheduler's open_for_days check: every 10 minutes (days are the unit), and at start. */
export const OPEN_FOR_DAYS_JOB = "alerts.open-for-days";
const OPEN_FOR_DAYS_PATTERN = "*/10 * * * *";

export type AlertsRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "config" | "outbound" | "secretKey"
> &
  RoomStorage;

export interface AlertsRoomPorts {
  guard: AuthPorts["guard"];
  /** Alerts are rows of the delivery outbox, kind "alert". */
  delivery: DeliveryPorts;
  /** The issues room: rules hear its changes and read its open issues. */
  issues: IssuesPorts;
  /** The secrets room's lookup, for `{{NAME}}` in channel settings at send time. */
  resolveSecrets?(organizationId: string): Promise<(name: string) => string | undefined>;
  /** The auth room's key events and expiring keys (api_key_* conditions); absent: never met. */
  apiKeys?: ApiKeyPorts;
}

/** What the alerts room lends. */
export interface AlertsPorts {
  /** The organization's rules whose channel says `{{name}}`: a secret's users. */
  rulesUsingSecret(
    organizationId: string,
    name: string,
  ): Promise<{ alert_rule_id: string; name: string }[]>;
  /** A monitor's state change, heard inside the transaction that recorded its check. */
  monitorChanged(tx: TxHandle, change: MonitorChange): void;
  /** `monitorChanged` on PostgreSQL, in the check's `sql.begin` transaction. */
  monitorChangedPostgres?(tx: PostgresTx, change: MonitorChange): Promise<void>;
}

/**
 * Builds the alerts room (decisions.md §8, §13): `/api/v1/alert-rules`, the listener that fires
 * rules inside the transaction that changed an issue, the open_for_days job, and the outbox's
 * "alert" kind that turns a firing into its channel's request at send time.
 */
export function createAlertsRoom(deps: AlertsRoomDeps, ports: AlertsRoomPorts): Room<AlertsPorts> {
  const { delivery, issues, apiKeys } = ports;
  const storage = alertsStorage(deps, { delivery, issues, apiKeys });
  const { store, writeAlerts } = storage;
  const sealer = createSealer(deps.secretKey, "alert-channel-signing-secret");
  const mailer = createMailer(deps.config.smtp_url, deps.config.smtp_from);
  const wake = () => delivery.wake();
  const service: AlertsDeps = {
    store,
    writeTestAlert: async (rule, snapshot) =>
      (await writeAlerts([{ rule, subject: issueSubject(rule, null, snapshot) }]))[0] ?? null,
    clock: deps.clock,
    ids: deps.ids,
    sealer,
    checkTarget: (url) => deps.outbound.urlProblem(url),
    smtpConfigured: mailer !== null,
    delivery,
  };
  const scheduled: ScheduledFiringDeps = {
    store,
    writeAlerts,
    wake,
    clock: deps.clock,
    logger: deps.logger,
  };
  // Links in alerts: base_url when set, else the address the server listens on.
  let linkBase = deps.config.base_url.replace(/\/+$/, "");
  delivery.registerKind(
    "alert",
    alertKindHandlers({
      store,
      sealer,
      clock: deps.clock,
      resolveSecrets: ports.resolveSecrets,
      telegramApiBase: deps.config.telegram_api_base,
      mailer,
      linkBase: () => linkBase,
      takeMail: storage.takeMail,
    }),
  );
  const openForDays: RoomJob = {
    name: OPEN_FOR_DAYS_JOB,
    scope: "cluster",
    pattern: OPEN_FOR_DAYS_PATTERN,
    runNow: true,
    run: () => fireForOpenIssues({ ...scheduled, issues }),
  };
  const retention: RoomJob = {
    name: ALERTS_RETENTION_JOB,
    scope: "cluster",
    pattern: "0 * * * *",
    runNow: true,
    run: () =>
      sweepAlertFirings({
        store,
        removeFirings: storage.removeFirings,
        issueExists: async (organizationId, issueId) =>
          (await issues.findIssue(organizationId, issueId)) !== null,
        clock: deps.clock,
        plans: deps.config.plans,
        yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
      }),
  };
  const jobs = [openForDays, retention];
  if (apiKeys) {
    jobs.push({
      name: API_KEY_EXPIRING_JOB,
      scope: "cluster",
      pattern: API_KEY_EXPIRING_PATTERN,
      runNow: true,
      run: () => fireForExpiringKeys({ ...scheduled, keys: apiKeys }),
    });
  }
  return {
    routes: alertsRoutes(service, ports.guard),
    jobs,
    subscriptions: [
      subscription("server.started", ({ baseUrl, port }) => {
        linkBase = baseUrl ? baseUrl.replace(/\/+$/, "") : `http://localhost:${port}`;
      }),
    ],
    stop: () => {},
    ports: {
      rulesUsingSecret: async (organizationId, name) =>
        (await store.allRules(organizationId))
          .filter((rule) => secretReferences(JSON.stringify(rule.channel)).includes(name))
          .map((rule) => ({ alert_rule_id: rule.id, name: rule.name })),
      monitorChanged: storage.monitorChanged,
      ...(storage.monitorChangedPostgres && {
        monitorChangedPostgres: storage.monitorChangedPostgres,
      }),
    },
  };
}
