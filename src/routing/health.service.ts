import type {
  DeliveryAttempt,
  DeliveryKindHandlers,
  DeliveryRecord,
} from "../delivery/delivery.ports.ts";
import type { RoomJob } from "../room.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { BridgesRepo } from "./bridges.repo.ts";
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
import type { HealthRepo } from "./health.repo.ts";

export interface HealthDeps {
  health: HealthRepo;
  bridges: Pick<BridgesRepo, "findBridge" | "describeDestination" | "destinationsOf">;
  clock: Clock;
  /** The delivery room's word on a destination's circuit breaker: open or half-open. */
  breakerOpen(destinationId: string): boolean;
}

/**
 * The event kind's handlers, with every recorded attempt also counted in its destination's day,
 * in the same transaction (one upsert of a narrow row: docs/performance.md, "Delivery health").
 * An attempt held by an open breaker sent nothing and counts nowhere; a delivery that a
 * transformation dropped (`onSkipped`) sent nothing either.
 */
export function withHealthCounts(
  handlers: DeliveryKindHandlers,
  deps: Pick<HealthDeps, "health" | "bridges">,
  logger: Logger,
): DeliveryKindHandlers {
  // A destination never moves to another bridge: its bridge is read once per process.
  const owners = new Map<string, { organizationId: string; bridgeId: string }>();
  const ownerOf = (destinationId: string) => {
    const known = owners.get(destinationId);
    if (known) return known;
    const found = deps.bridges.describeDestination(destinationId);
    if (!found) return null;
    const owner = { organizationId: found.organizationId, bridgeId: found.bridgeId };
    owners.set(destinationId, owner);
    return owner;
  };
  const count = (delivery: DeliveryRecord, attempt: DeliveryAttempt) => {
    if (attempt.errorCode === "circuit_open") return;
    const owner = ownerOf(delivery.destinationKey);
    if (!owner) return; // deleted: no component left to show it
    const ended = delivery.status === "delivered" || delivery.status === "failed";
    deps.health.record({
      destinationId: delivery.destinationKey,
      ...owner,
      day: dayOf(delivery.updatedAt),
      ended,
      delivered: delivery.status === "delivered",
      failedAt: attempt.errorType === null ? null : Date.parse(delivery.updatedAt),
    });
  };
  return {
    ...handlers,
    onAttempt(tx, delivery, attempt) {
      handlers.onAttempt?.(tx, delivery, attempt);
      try {
        count(delivery, attempt);
      } catch (error) {
        // A figure is not worth undoing the event's own state for.
        logger.error("counting a delivery outcome failed", { id: delivery.id, error });
      }
    },
  };
}

/**
 * A bridge's or a destination's health over the last `days` UTC days (today included; kept
 * within 1–400), or null when it is not the organization's (or does not exist).
 */
export function deliveryHealth(
  organizationId: string,
  component: HealthComponent,
  days: number,
  deps: HealthDeps,
): DeliveryHealth | null {
  const now = deps.clock.now();
  const window = clampDays(days);
  const from = firstDay(now, window);
  // Failures of the last hour may be on yesterday's row.
  const recentFrom = dayOf(now - DEGRADED_WINDOW_MS);
  if ("bridge_id" in component) {
    const bridge = deps.bridges.findBridge(organizationId, component.bridge_id);
    if (!bridge) return null;
    const paused = bridge.status === "paused";
    const failures = deps.health.lastFailures(bridge.id, recentFrom);
    const signals = deps.bridges.destinationsOf([bridge.id]).map(
      (d): DestinationSignals => ({
        paused,
        breakerOpen: deps.breakerOpen(d.id),
        lastFailureAt: failures.get(d.id) ?? null,
      }),
    );
    return {
      name: bridge.name,
      state: bridgeState(paused, signals, now),
      days: fillDays(now, window, deps.health.bridgeDays(bridge.id, from)),
    };
  }
  const found = deps.bridges.describeDestination(component.destination_id);
  if (!found || found.organizationId !== organizationId) return null;
  const bridge = deps.bridges.findBridge(organizationId, found.bridgeId);
  const signals: DestinationSignals = {
    paused: bridge?.status === "paused",
    breakerOpen: deps.breakerOpen(found.destinationId),
    lastFailureAt:
      deps.health.lastFailures(found.bridgeId, recentFrom).get(found.destinationId) ?? null,
  };
  return {
    name: found.destinationName,
    state: destinationState(signals, now),
    days: fillDays(now, window, deps.health.destinationDays(found.destinationId, from)),
  };
}

/** The sweep of daily counts older than 400 days. */
export const HEALTH_RETENTION_JOB = "routing.health-retention";

/** Once a day (and once at start): a day's rows are few, one statement removes them. */
export function healthRetentionJob(
  deps: Pick<HealthDeps, "health" | "clock">,
  tx: <T>(fn: () => T) => T,
): RoomJob {
  return {
    name: HEALTH_RETENTION_JOB,
    scope: "cluster",
    pattern: "30 3 * * *",
    runNow: true,
    run: () => tx(() => deps.health.sweep(sweptBefore(deps.clock.now()))),
  };
}
