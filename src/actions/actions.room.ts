import type { AuthPorts } from "../auth/auth.room.ts";
import type { CapturePorts } from "../capture/capture.room.ts";
import type { CommittedCapture } from "../capture/capture.writer.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { RoomStorage, SharedDeps } from "../deps.ts";
import type { EndpointsPorts } from "../endpoints/endpoints.room.ts";
import type { Room } from "../room.ts";
import type { SecretsPorts } from "../secrets/secrets.room.ts";
import { secretReferences } from "../shared/secret-template.ts";
import type { ActionResult } from "./actions.model.ts";
import { type RecoveryDeps, recoverOwedRuns } from "./actions.recovery.ts";
import { actionsRoutes } from "./actions.routes.ts";
import { createActionRuns } from "./actions.runs.ts";
import type { ActionsDeps } from "./actions.service.ts";
import { actionsStorage } from "./actions.storage.ts";
import type { TryoutDeps } from "./actions.tryout.ts";

export type ActionsRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "bus" | "config" | "outbound" | "sandbox"
> &
  RoomStorage;

export interface ActionsRoomPorts {
  guard: AuthPorts["guard"];
  requireEndpoint: EndpointsPorts["requireEndpoint"];
  findRequest: CapturePorts["findRequest"];
  setResponseOverride: CapturePorts["setResponseOverride"];
  resolveSecrets: SecretsPorts["resolveSecrets"];
}

/** What the actions room lends capture. */
export interface ActionsPorts {
  /** In the capture batch's SQLite transaction: notes the runs the stored captures are owed. */
  oweRuns(tx: TxHandle, captures: readonly CommittedCapture[]): void;
  /** The PostgreSQL twin of `oweRuns`, in capture's PostgreSQL transaction. */
  oweRunsPostgres(tx: PostgresTx, captures: readonly CommittedCapture[]): Promise<void>;
  /** The latest run's results of each of these requests that has one (realtime catch-up). */
  lastRunResults(requestIds: readonly string[]): Promise<Map<string, ActionResult[]>>;
  /** The organization's actions whose config says `{{name}}`: such a secret is not deleted. */
  actionsUsingSecret(
    organizationId: string,
    name: string,
  ): Promise<{ endpoint_id: string; action_id: string; name: string }[]>;
}

/** Every minute, and at start: runs owed from before a crash or restart. */
const RECOVERY_PATTERN = "0 * * * * *";

/**
 * Builds the actions room: the chain of each endpoint (`/api/v1/endpoints/{id}/actions`), its run
 * on every committed capture (capture's answer hook), run records and their realtime push.
 */
export function createActionsRoom(
  deps: ActionsRoomDeps,
  ports: ActionsRoomPorts,
): Room<ActionsPorts> {
  const startedAt = deps.clock.now();
  const storage = actionsStorage(deps);
  const { store } = storage;
  const checkUrl = (url: string) => deps.outbound.urlProblem(url);
  const runs = createActionRuns({
    store,
    repo: storage.repo,
    recorder: storage.recorder,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger.child({ scope: "actions" }),
    plans: deps.config.plans,
    budgetMs: deps.config.actions_budget_ms,
    outbound: deps.outbound,
    sandbox: deps.sandbox,
    scriptCpuMs: deps.config.sandbox_timeout_ms,
    resolveSecrets: ports.resolveSecrets,
    completed: (endpointId, requestId, results) =>
      deps.bus.publish("actions.completed", { endpointId, requestId, results }),
  });
  const actions: ActionsDeps = {
    store,
    requireEndpoint: ports.requireEndpoint,
    plans: deps.config.plans,
    clock: deps.clock,
    ids: deps.ids,
    checkUrl,
    changed: runs.forget,
  };
  const tryout: TryoutDeps = {
    runs,
    requireEndpoint: ports.requireEndpoint,
    findRequest: ports.findRequest,
    plans: deps.config.plans,
    checkUrl,
    clock: deps.clock,
  };
  // Capture calls this after each commit; the chain decides whether the answer waits for it.
  ports.setResponseOverride((context) => runs.onCapture(context));
  const recovery: RecoveryDeps = {
    owed: storage.owed,
    runs,
    findRequest: ports.findRequest,
    plans: deps.config.plans,
    clock: deps.clock,
    logger: deps.logger.child({ scope: "actions" }),
    startedAt,
  };
  return {
    routes: actionsRoutes({ actions, tryout }, ports.guard),
    jobs: [
      ...storage.jobs(runs.inFlightIds),
      {
        name: "actions.recover",
        scope: "cluster",
        pattern: RECOVERY_PATTERN,
        runNow: true,
        run: () => recoverOwedRuns(recovery),
      },
    ],
    subscriptions: [],
    stop: async () => {
      ports.setResponseOverride(null);
      await runs.close();
    },
    ports: {
      oweRuns: (_tx, captures) => runs.owe(captures),
      oweRunsPostgres: async (tx, captures) => {
        if (!storage.oweRunsPostgres) throw new Error("oweRunsPostgres runs on PostgreSQL only");
        await storage.oweRunsPostgres(tx, captures);
      },
      lastRunResults: (requestIds) => store.lastRuns(requestIds),
      actionsUsingSecret: async (organizationId, name) =>
        (await store.ofOrganization(organizationId))
          .filter((action) => secretReferences(JSON.stringify(action.config)).includes(name))
          .map((action) => ({
            endpoint_id: action.endpointId,
            action_id: action.id,
            name: action.name,
          })),
    },
  };
}
