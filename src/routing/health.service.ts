import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type {
  DeliveryAttempt,
  DeliveryKindHandlers,
  DeliveryRecord,
} from "../delivery/delivery.ports.ts";
import type { RoomJob } from "../room.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { DestinationDescription } from "./bridges.repo.ts";
import type { BridgesStore } from "./bridges.store.ts";
import {
  bridgeState,
  clampDays,
  DEGRADED_WINDOW_MS,
  type DeliveryHealth,
  type DestinationSignals,
  dayOf,
  destinationState,
  fillDays,
  firstDay,
  type HealthComponent,
  sweptBefore,
} from "./health.model.ts";
import type { HealthOutcome } from "./health.repo.ts";
import type { HealthStore } from "./health.store.ts";

export interface HealthDeps {
  health: HealthStore;
  bridges: Pick<BridgesStore, "findBridge" | "describeDestination" | "destinationsOf">;
  clock: Clock;
  /** The delivery room's word on a destination's circuit breaker: open or half-open. */
  breakerOpen(destinationId: string): boolean;
}

/** How the event kind's attempts are counted: SQLite in its transaction, PostgreSQL in `tx`. */
export interface HealthCounting {
  sqlite?: {
    record(outcome: HealthOutcome): void;
    describeDestination(id: string): DestinationDescription | null;
  };
  postgres?: {
    store: HealthStore;
    /**
     * Read in the attempt's own transaction: a second connection taken while that transaction
     * holds the breaker's row could wait forever on a pool whose every other connection waits
     * on that row.
     */
    describeDestination(tx: PostgresTx, id: string): Promise<DestinationDescription | null>;
  };
}

/**
 * The event kind's handlers, with every recorded attempt also counted in its destination's day,
 * in the same transaction (one upsert of a narrow row: docs/performance.md, "Delivery health").
 * An attempt held by an open breaker sent nothing and counts nowhere; a delivery that a
 * transformation dropped (`onSkipped`) sent nothing either.
 */
export function withHealthCounts(
  handlers: DeliveryKindHandlers,
  counting: HealthCounting,
  logger: Logger,
): DeliveryKindHandlers {
  // A destination never moves to another bridge: its bridge is read once per process.
  const owners = new Map<string, { organizationId: string; bridgeId: string }>();
  const remember = (destinationId: string, found: DestinationDescription | null) => {
    if (!found) return null;
    const owner = { organizationId: found.organizationId, bridgeId: found.bridgeId };
    owners.set(destinationId, owner);
    return owner;
  };
  const outcomeOf = (
    delivery: DeliveryRecord,
    attempt: DeliveryAttempt,
    owner: { organizationId: string; bridgeId: string },
  ): HealthOutcome => ({
    destinationId: delivery.destinationKey,
    ...owner,
    day: dayOf(delivery.updatedAt),
    ended: delivery.status === "delivered" || delivery.status === "failed",
    delivered: delivery.status === "delivered",
    failedAt: attempt.errorType === null ? null : Date.parse(delivery.updatedAt),
  });
  // A figure is not worth undoing the event's own state for.
  const failed = (delivery: DeliveryRecord, error: unknown) =>
    logger.error("counting a delivery outcome failed", { id: delivery.id, error });
  const { sqlite, postgres } = counting;
  return {
    ...handlers,
    ...(sqlite && {
      onAttempt(tx, delivery, attempt) {
        handlers.onAttempt?.(tx, delivery, attempt);
        if (attempt.errorCode === "circuit_open") return;
        try {
          const key = delivery.destinationKey;
          const owner = owners.get(key) ?? remember(key, sqlite.describeDestination(key));
          if (owner) sqlite.record(outcomeOf(delivery, attempt, owner)); // none: deleted
        } catch (error) {
          failed(delivery, error);
        }
      },
    }),
    ...(postgres && {
      async onAttemptPostgres(tx, delivery, attempt) {
        await handlers.onAttemptPostgres?.(tx, delivery, attempt);
        if (attempt.errorCode === "circuit_open") return;
        try {
          const key = delivery.destinationKey;
          const owner =
            owners.get(key) ?? remember(key, await postgres.describeDestination(tx, key));
          if (owner) await postgres.store.record(tx, outcomeOf(delivery, attempt, owner));
        } catch (error) {
          failed(delivery, error);
        }
      },
    }),
  };
}

/**
 * A bridge's or a destination's health over the last `days` UTC days (today included; kept
 * within 1–400), or null when it is not the organization's (or does not exist).
 */
export async function deliveryHealth(
  organizationId: string,
  component: HealthComponent,
  days: number,
  deps: HealthDeps,
): Promise<DeliveryHealth | null> {
  const now = deps.clock.now();
  const window = clampDays(days);
  const from = firstDay(now, window);
  // Failures of the last hour may be on yesterday's row.
  const recentFrom = dayOf(now - DEGRADED_WINDOW_MS);
  if ("bridge_id" in component) {
    const bridge = await deps.bridges.findBridge(organizationId, component.bridge_id);
    if (!bridge) return null;
    const paused = bridge.status === "paused";
    const failures = await deps.health.lastFailures(bridge.id, recentFrom);
    const signals = (await deps.bridges.destinationsOf([bridge.id])).map(
      (d): DestinationSignals => ({
        paused,
        breakerOpen: deps.breakerOpen(d.id),
        lastFailureAt: failures.get(d.id) ?? null,
      }),
    );
    return {
      name: bridge.name,
      state: bridgeState(paused, signals, now),
      days: fillDays(now, window, await deps.health.bridgeDays(bridge.id, from)),
    };
  }
  const found = await deps.bridges.describeDestination(component.destination_id);
  if (!found || found.organizationId !== organizationId) return null;
  const bridge = await deps.bridges.findBridge(organizationId, found.bridgeId);
  const signals: DestinationSignals = {
    paused: bridge?.status === "paused",
    breakerOpen: deps.breakerOpen(found.destinationId),
    lastFailureAt:
      (await deps.health.lastFailures(found.bridgeId, recentFrom)).get(found.destinationId) ?? null,
  };
  return {
    name: found.destinationName,
    state: destinationState(signals, now),
    days: fillDays(now, window, await deps.health.destinationDays(found.destinationId, from)),
  };
}

/** The sweep of daily counts older than 400 days. */
export const HEALTH_RETENTION_JOB = "routing.health-retention";

/** Once a day (and once at start): a day's rows are few, one statement removes them. */
export function healthRetentionJob(deps: Pick<HealthDeps, "health" | "clock">): RoomJob {
  return {
    name: HEALTH_RETENTION_JOB,
    scope: "cluster",
    pattern: "30 3 * * *",
    runNow: true,
    run: () => deps.health.sweep(sweptBefore(deps.clock.now())),
  };
}
