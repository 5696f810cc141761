import type { AuthPorts } from "../auth/auth.room.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { AppDeps } from "../deps.ts";
import type { IssuesPorts } from "../issues/issues.ports.ts";
import { type Room, type RoomJob, subscription } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import { type FiringDeps, fireForChange, fireForOpenIssues } from "./alerts.firing.ts";
import type { MonitorChange } from "./alerts.model.ts";
import { createAlertsRepo } from "./alerts.repo.ts";
import { alertsRoutes } from "./alerts.routes.ts";
import { alertKindHandlers } from "./alerts.send.ts";
import type { AlertsDeps } from "./alerts.service.ts";
import { fireForMonitorChange } from "./monitor-firing.ts";

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
  resolveSecrets?(organizationId: string): (name: string) => string | undefined;
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
  const service: AlertsDeps = {
    repo,
    tx,
    clock: deps.clock,
    ids: deps.ids,
    sealer,
    checkTarget: (url) => deps.outbound.urlProblem(url),
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
      linkBase: () => linkBase,
    }),
  );
  const { issues } = ports;
  issues.onIssueChange((handle, change) => fireForChange(handle, change, { ...firing, issues }));
  const openForDays: RoomJob = {
    name: OPEN_FOR_DAYS_JOB,
    pattern: OPEN_FOR_DAYS_PATTERN,
    runNow: true,
    run: () => fireForOpenIssues({ ...firing, issues, tx, logger: deps.logger }),
  };
  return {
    routes: alertsRoutes(service, ports.guard),
    jobs: [openForDays],
    subscriptions: [
      subscription("server.started", ({ baseUrl, port }) => {
        linkBase = baseUrl ? baseUrl.replace(/\/+$/, "") : `http://localhost:${port}`;
      }),
    ],
    stop: () => {},
    ports: {
      monitorChanged: (handle, change) => void fireForMonitorChange(handle, change, firing),
    },
  };
}
