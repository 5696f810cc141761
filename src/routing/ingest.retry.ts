import type { PostgresSql } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type {
  DeliveryPorts,
  DeliveryRecord,
  NewDelivery,
  RetriedDelivery,
} from "../delivery/delivery.ports.ts";
import type { RequestView } from "../shared/field-path.ts";
import type { Destination } from "./destinations.model.ts";
import type { EventsRepo, StoredEvent } from "./events.repo.ts";
import type { EventsStore } from "./events.store.ts";
import { type RoutePlan, type Routing, requestView } from "./ingest.model.ts";

/** What `POST /events/{id}/retry` did to each of the event's deliveries. */
export type RetryAction = RetriedDelivery["action"] | "created";

export interface EventRetry {
  /** Deliveries made due now: requeued, pulled forward, or created by routing the event again. */
  requeued: number;
  actions: Map<string, RetryAction>;
}

export interface EventRetryDeps {
  events: Pick<EventsRepo, "reopen" | "replaceBridges">;
  delivery: Pick<DeliveryPorts, "retryNow" | "wake"> | null;
  tx<T>(fn: (tx: TxHandle) => T): T;
  /** The source's cached route plan (null: the source is gone). */
  planOf(sourceId: string): RoutePlan | null;
  /** Routes a request through a plan on a fresh filter budget (the ingest path's own). */
  route(plan: RoutePlan, view: RequestView): Routing;
  /** Writes the event's deliveries to these destinations in `tx`. */
  enqueue(tx: TxHandle, event: StoredEvent, destinations: readonly Destination[]): DeliveryRecord[];
}

/** Events with no deliveries yet: a retry routes them again. */
const REROUTED = new Set<string>(["paused", "filtered", "unrouted"]);

/**
 * Retries an event now (decisions.md §15): its failed deliveries are requeued and those waiting
 * for a retry are pulled forward; a paused, filtered or unrouted event (no deliveries yet) is
 * routed again through its source's bridges as they are now, all taken as active.
 */
export function retryEvent(event: StoredEvent, deps: EventRetryDeps): EventRetry {
  const actions = new Map<string, RetryAction>();
  const requeued = deps.tx((tx) => {
    if (!REROUTED.has(event.status)) {
      const done = deps.delivery?.retryNow(tx, "event", [event.id]) ?? [];
      for (const d of done) actions.set(d.id, d.action);
      const reopened = done.filter((d) => d.action === "requeued").length;
      if (reopened > 0) deps.events.reopen(event.id, reopened);
      return done.filter((d) => d.action !== "unchanged").length;
    }
    const made = reroute(tx, event, deps);
    for (const d of made) actions.set(d.id, "created");
    return made.length;
  });
  if (requeued > 0) deps.delivery?.wake();
  return { requeued, actions };
}

/** The outbox rows of an event's deliveries to these destinations. */
export function eventDeliveries(
  event: StoredEvent,
  destinations: readonly Destination[],
): NewDelivery[] {
  return destinations.map((d) => ({
    kind: "event" as const,
    organizationId: event.organizationId,
    subjectId: event.id,
    destinationKey: d.id,
    maxRetries: d.maxRetries,
  }));
}

/** A plan with every bridge taken as active: a retry routes a paused event as if it were not. */
function allActive(plan: RoutePlan): RoutePlan {
  return {
    ...plan,
    bridges: plan.bridges.map((b) => ({
      ...b,
      bridge: { ...b.bridge, status: "active" as const },
    })),
  };
}

/** The deliveries of an event routed again with every bridge of its source taken as active. */
function reroute(tx: TxHandle, event: StoredEvent, deps: EventRetryDeps): DeliveryRecord[] {
  const plan = deps.planOf(event.sourceId);
  if (!plan || !deps.delivery) return [];
  const routing = deps.route(allActive(plan), requestView(event));
  if (routing.destinations.length === 0) return [];
  const made = deps.enqueue(tx, event, routing.destinations);
  deps.events.replaceBridges(event.id, routing.bridgeIds);
  deps.events.reopen(event.id, routing.destinations.length);
  return made;
}

export interface EventRetryPostgresDeps {
  sql: Pick<PostgresSql, "begin">;
  events: Pick<EventsStore, "reopen" | "replaceBridges">;
  delivery: Pick<DeliveryPorts, "retryNowPostgres" | "enqueuePostgres" | "wake"> | null;
  planOf(sourceId: string): Promise<RoutePlan | null>;
  route(plan: RoutePlan, view: RequestView): Routing;
}

/** `retryEvent` on PostgreSQL: the same decisions, written in one `sql.begin` transaction. */
export async function retryEventPostgres(
  event: StoredEvent,
  deps: EventRetryPostgresDeps,
): Promise<EventRetry> {
  const actions = new Map<string, RetryAction>();
  const rerouted = REROUTED.has(event.status);
  // Read before the transaction: a plan is a cached read, not part of what is written.
  const plan = rerouted ? await deps.planOf(event.sourceId) : null;
  const requeued = await deps.sql.begin(async (tx) => {
    if (!rerouted) {
      const done = (await deps.delivery?.retryNowPostgres?.(tx, "event", [event.id])) ?? [];
      for (const d of done) actions.set(d.id, d.action);
      const reopened = done.filter((d) => d.action === "requeued").length;
      if (reopened > 0) await deps.events.reopen(tx, event.id, reopened);
      return done.filter((d) => d.action !== "unchanged").length;
    }
    const enqueue = deps.delivery?.enqueuePostgres;
    if (!plan || !enqueue) return 0;
    const routing = deps.route(allActive(plan), requestView(event));
    if (routing.destinations.length === 0) return 0;
    const made = await enqueue(tx, eventDeliveries(event, routing.destinations));
    await deps.events.replaceBridges(tx, event.id, routing.bridgeIds);
    await deps.events.reopen(tx, event.id, routing.destinations.length);
    for (const d of made) actions.set(d.id, "created");
    return made.length;
  });
  if (requeued > 0) deps.delivery?.wake();
  return { requeued, actions };
}
