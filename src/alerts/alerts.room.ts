import type { ApiKeyPorts } from "../auth/api-keys.ports.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { AppDeps } from "../deps.ts";
import type { IssuesPorts } from "../issues/issues.ports.ts";
import { type Room, type RoomJob, subscription } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import { secretReferences } from "../shared/secret-template.ts";
import {
  API_KEY_EXPIRING_JOB,
  API_KEY_EXPIRING_PATTERN,
  fireForApiKeyEvent,
  fireForExpiringKeys,
} from "./alerts.api-keys.ts";
import { type FiringDeps, fireForChange, fireForOpenIssues } from "./alerts.firing.ts";
import { createMailer } from "./alerts.mailer.ts";
import type { MonitorChange } from "./alerts.model.ts";
import { createAlertsRepo } from "./alerts.repo.ts";
import { sweepAlertFirings } from "./alerts.retention.ts";
import { alertsRoutes } from "./alerts.routes.ts";
import { alertKindHandlers } from "./alerts.send.ts";
import type { AlertsDeps } from "./alerts.service.ts";
import { fireForMonitorChange } from "./monitor-firing.ts";

/** The firings sweep: hourly at minute 0 like the other retention sweeps, and once at start. */
export const ALERTS_RETENTION_JOB = "alerts.firings-retention";

/** The scheduler's open_for_days check: every 10 minutes (days are the unit), and at start. */
export const OPEN_FOR_DAYS_JOB = "alerts.open-for-days";
const OPEN_FOR_DAYS_PATTERN = "*/10 * * * *";

export type AlertsRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "config" | "outbound" | "secretKey"
>;

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
  rulesUsingSecret(organizationId: string, name: string): { alert_rule_id: string; name: string }[];
}

/** What the alerts room lends. */
export interface AlertsPorts {
  /** A monitor's state change, heard inside the transaction that recorded its check. */
  monitorChanged(tx: TxHandle, change: MonitorChange): void;
}

/**
 * Builds the alerts room (decisions.md §8, §13): `/api/v1/alert-rules`, the listener that fires
 * rules inside the transaction that changed an issue, the open_for_days job, and the outbox's
 * "alert" kind that turns a firing into its channel's request at send time.
 */
export function createAlertsRoom(deps: AlertsRoomDeps, ports: AlertsRoomPorts): Room<AlertsPorts> {
  const repo = createAlertsRepo(deps.db);
  const sealer = createSealer(deps.secretKey, "alert-channel-signing-secret");
  const tx = <T>(fn: (handle: TxHandle) => T): T => deps.db.tx(fn);
  const mailer = createMailer(deps.config.smtp_url, deps.config.smtp_from);
  const service: AlertsDeps = {
    repo,
    tx,
    clock: deps.clock,
    ids: deps.ids,
    sealer,
    checkTarget: (url) => deps.outbound.urlProblem(url),
    smtpConfigured: mailer !== null,
    delivery: ports.delivery,
  };
  const firing: FiringDeps = { repo, delivery: ports.delivery, clock: deps.clock, ids: deps.ids };
  // Links in alerts: base_url when set, else the address the server listens on.
  let linkBase = deps.config.base_url.replace(/\/+$/, "");
  ports.delivery.registerKind(
    "alert",
    alertKindHandlers({
      repo,
      sealer,
      clock: deps.clock,
      resolveSecrets: ports.resolveSecrets,
      telegramApiBase: deps.config.telegram_api_base,
      mailer,
      linkBase: () => linkBase,
    }),
  );
  const { issues } = ports;
  issues.onIssueChange((handle, change) => fireForChange(handle, change, { ...firing, issues }));
  const openForDays: RoomJob = {
    name: OPEN_FOR_DAYS_JOB,
    scope: "cluster",
    pattern: OPEN_FOR_DAYS_PATTERN,
    runNow: true,
    run: () => fireForOpenIssues({ ...firing, issues, tx, logger: deps.logger }),
  };
  const retention: RoomJob = {
    name: ALERTS_RETENTION_JOB,
    scope: "cluster",
    pattern: "0 * * * *",
    runNow: true,
    run: () =>
      sweepAlertFirings({
        repo,
        tx,
        forgetDeliveries: (handle, ids) => ports.delivery.forgetSubjects(handle, "alert", ids),
        issueExists: async (organizationId, issueId) =>
          (await issues.findIssue(organizationId, issueId)) !== null,
        clock: deps.clock,
        plans: deps.config.plans,
        yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
      }),
  };
  const jobs = [openForDays, retention];
  const { apiKeys } = ports;
  if (apiKeys) {
    apiKeys.onApiKeyEvent((handle, event) => fireForApiKeyEvent(handle, event, firing));
    jobs.push({
      name: API_KEY_EXPIRING_JOB,
      scope: "cluster",
      pattern: API_KEY_EXPIRING_PATTERN,
      runNow: true,
      run: () => fireForExpiringKeys({ ...firing, keys: apiKeys, tx, logger: deps.logger }),
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
      rulesUsingSecret: (organizationId, name) =>
        repo
          .allRules(organizationId)
          .filter((rule) => secretReferences(JSON.stringify(rule.channel)).includes(name))
          .map((rule) => ({ alert_rule_id: rule.id, name: rule.name })),
      monitorChanged: (handle, change) => void fireForMonitorChange(handle, change, firing),
    },
  };
}
