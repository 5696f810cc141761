import type { CommitTurn } from "../db/db.commit-turn.ts";
import { createGroupCommit } from "../db/db.group-commit.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DedupBatch, DedupTicket } from "../dedup/dedup.room.ts";
import type { DeliveryKindHandlers, DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { RequestView } from "../shared/field-path.ts";
import type { Ids } from "../shared/ids.ts";
import type { TransformationOutcome } from "../transformations/transformations.model.ts";
import type { BridgesRepo, SealedSecrets } from "./bridges.repo.ts";
import type { BridgesStore } from "./bridges.store.ts";
import { createDestinationCache } from "./destinations.cache.ts";
import type { Destination } from "./destinations.model.ts";
import { createEventKindHandlers } from "./event-kind.service.ts";
import type { EventsRepo, StoredEvent } from "./events.repo.ts";
import type { EventsStore } from "./events.store.ts";
import { type IngestRequest, type RoutePlan, type Routing, requestView } from "./ingest.model.ts";
import { createRoutePlans, type FilterCost, type RouteReadsAsync } from "./ingest.plans.ts";
import { type EventRetry, eventDeliveries, retryEvent } from "./ingest.retry.ts";
import type { IngestWriter } from "./ingest.store.ts";
import type { Source } from "./sources.model.ts";
import type { SourcesRepo } from "./sources.repo.ts";
import type { SourcesStore } from "./sources.store.ts";

export interface IngestDeps {
  /** SQLite: plans and destinations read without waiting. Absent with `routeStores`. */
  sources?: SourcesRepo;
  bridges?: BridgesRepo;
  /** SQLite: events written and read in the ingest's and the attempts' transactions. */
  events?: EventsRepo;
  /** PostgreSQL: the same, through the store and the caller's transaction. Absent on SQLite. */
  eventsStore?: Pick<EventsStore, "findById" | "deliveryEnded">;
  /** The outbox; null only while the app is built without one (events are then stored only). */
  delivery: DeliveryPorts | null;
  /** One synchronous transaction (`deps.db.tx`). */
  tx<T>(fn: (tx: TxHandle) => T): T;
  /** The process's shared turn transaction (`deps.db.turn`): ingest batches commit in it. */
  turn?: CommitTurn;
  /**
   * On PostgreSQL: each event's writes (dedup key, event, deliveries) as one transaction there,
   * instead of SQLite's group commit. Absent on SQLite.
   */
  writer?: IngestWriter;
  /**
   * On PostgreSQL: route plans and destinations are read through these stores (the
   * `awaitPlanBy…` lookups and `fetch`), not through the SQLite repos. Absent on SQLite.
   */
  routeStores?: {
    sources: Pick<SourcesStore, "findById" | "findBySlug">;
    bridges: RouteReadsAsync & Pick<BridgesStore, "findDestinationWithSecrets">;
  };
  clock: Clock;
  ids: Ids;
  /** The signing secrets of an http destination now (current first), from its sealed ones. */
  signingSecrets(destinationId: string, sealed: SealedSecrets): string[];
  /** Element comparisons one event's filters may make, all destinations together (`filter_budget`). */
  filterBudget?: number;
  /** The same budget's wall-clock ceiling, in ms (`filter_budget_ms`). */
  filterBudgetMs?: number;
  /** Grows whenever sources, bridges or destinations change. */
  routesVersion(): number;
  /** `WEIR_TELEGRAM_API_BASE`, for payloads a transformation built for Telegram. */
  telegramApiBase?: string;
  /** The organization's secrets by name, for `{{NAME}}` at send time (secrets room). */
  resolveSecrets?(organizationId: string): Promise<(name: string) => string | undefined>;
  /** The same lookup without waiting, its rows read on first use (SQLite only). */
  resolveSecretsNow?(organizationId: string): (name: string) => string | undefined;
  /** Every secret of the organization (a transformation's `context.env`), to conceal its output. */
  secretEnvironment?(organizationId: string): Promise<Record<string, string>>;
  /** Runs a destination's transformation on an event (transformations room). */
  runTransformation?(
    organizationId: string,
    transformationId: string,
    request: unknown,
  ): Promise<TransformationOutcome>;
}

/** Receive → deduplicate → filters → transformation → deliveries (interface.md, order of processing). */
export interface IngestHooks {
  /** Dedup, before the transaction: the request's key under the source's config (null: no check). */
  prepareDedup(source: Source, view: RequestView, request: IngestRequest): DedupTicket | null;
  /**
   * Dedup, inside the batch's transaction: `check` claims each key before its event is written
   * (one statement, so two identical requests in one batch yield one event; true: a duplicate,
   * answered 200 with no event and no delivery) and counts it; `finish` writes the counts.
   */
  beginDedup(tx: TxHandle): DedupBatch;
  /** Transformation hook: runs at send time in `prepare`; nothing to do at ingest yet. */
}

/** `sourceGone`: the source was deleted while the request was read (a 404, nothing stored). */
export type IngestOutcome = { eventId: string } | { duplicate: true } | { sourceGone: true };

interface PendingEvent {
  event: StoredEvent;
  routing: Routing;
  dedup: DedupTicket | null;
  /** The request as filters read it, to route it again should its plan be stale. */
  view: RequestView;
}

/** What became of one request of a batch; `failed` fails that request alone. */
type Stored = "stored" | "duplicate" | "source_gone" | { failed: unknown };

/**
 * The ingest path and the `event` delivery kind. Routes per source are cached and rebuilt when
 * anything changed (filters compile once per destination version); each event and its
 * deliveries are written in one group-committed transaction.
 */
export function createIngestService(deps: IngestDeps, hooks: IngestHooks) {
  const { routeStores } = deps;
  // The SQLite repos serve only the synchronous paths, which do not run beside `routeStores`.
  const noRepos = (): never => {
    throw new Error("on PostgreSQL route plans are read with awaitPlanBy…");
  };
  const sourcesRepo = (): SourcesRepo => deps.sources ?? noRepos();
  const bridgesRepo = (): BridgesRepo => deps.bridges ?? noRepos();
  const destinations = createDestinationCache({
    ...(routeStores
      ? { findAsync: (id) => routeStores.bridges.findDestinationWithSecrets(id) }
      : { find: (id) => bridgesRepo().findDestinationWithSecrets(id) }),
    open: (id, sealed) => deps.signingSecrets(id, sealed),
    version: () => deps.routesVersion(),
    now: () => deps.clock.now(),
  });
  const plans = createRoutePlans({
    routesVersion: () => deps.routesVersion(),
    filterBudget: deps.filterBudget,
    filterBudgetMs: deps.filterBudgetMs,
  });
  const { eventsStore } = deps;
  const eventsRepo = () => {
    if (!deps.events) throw new Error("on PostgreSQL events are written through eventsStore");
    return deps.events;
  };
  const { route } = plans;
  const buildPlan = (source: Source) => plans.build(source, bridgesRepo());
  const planFor = (key: string, find: () => Source | null) => {
    return plans.planFor(key, find, bridgesRepo());
  };
  /** The plan of a source by id, through the stores when there are stores. */
  const awaitPlanById = (id: string) =>
    routeStores
      ? plans.planForAsync(`id:${id}`, () => routeStores.sources.findById(id), routeStores.bridges)
      : Promise.resolve(planFor(`id:${id}`, () => sourcesRepo().findById(id)));

  /** The dedup work of the batch being committed, told how its transaction ended. */
  let openDedup: DedupBatch | null = null;
  const group = createGroupCommit<PendingEvent, Stored>({
    tx: deps.tx,
    turn: deps.turn,
    commit(batch, tx) {
      const dedupBatch = hooks.beginDedup(tx);
      openDedup = dedupBatch;
      const outcomes = batch.map((pending) => storeAlone(tx, dedupBatch, pending));
      dedupBatch.finish();
      return outcomes;
    },
    onCommitted: (batch) => {
      openDedup?.committed();
      openDedup = null;
      deps.delivery?.ingestCommitted(batch.length);
      deps.delivery?.wake();
    },
    onRolledBack: () => {
      openDedup?.rolledBack();
      openDedup = null;
    },
  });

  const store = (tx: TxHandle, dedupBatch: DedupBatch, pending: PendingEvent): Stored => {
    const { event, routing, dedup } = pending;
    if (dedup && dedupBatch.check(dedup)) return "duplicate";
    const open = deps.delivery ? routing.destinations.length : 0;
    eventsRepo().insert(event, routing.bridgeIds, open);
    if (open > 0) enqueue(tx, event, routing.destinations);
    return "stored";
  };

  /**
   * One request's writes in a savepoint of their own, so its failure never fails its batch
   * neighbours (other organizations' ingests among them). The plan was read before the body: a
   * bridge or destination deleted since fails a foreign key, so the request is routed once more
   * as things are now; a source deleted since makes it a 404.
   */
  const storeAlone = (tx: TxHandle, dedupBatch: DedupBatch, pending: PendingEvent): Stored => {
    try {
      return tx.savepoint(() => store(tx, dedupBatch, pending));
    } catch {
      plans.clear();
      const source = sourcesRepo().findById(pending.event.sourceId);
      if (!source) return "source_gone";
      const routing = route(buildPlan(source), pending.view);
      const event = {
        ...pending.event,
        status: routing.status,
        statusReason: routing.reason,
        filteredBy: routing.filteredBy,
      };
      try {
        return tx.savepoint(() => store(tx, dedupBatch, { ...pending, event, routing }));
      } catch (error) {
        return { failed: error };
      }
    }
  };

  const deliveriesOf = eventDeliveries;
  const enqueue = (tx: TxHandle, event: StoredEvent, destinations: readonly Destination[]) =>
    deps.delivery?.enqueue(tx, deliveriesOf(event, destinations));

  /** One event in its own transaction of the writer; resolves after its COMMIT. */
  const storeOnWriter = async (
    writer: IngestWriter,
    pending: PendingEvent,
    again = true,
  ): Promise<IngestOutcome> => {
    const { event, routing, dedup } = pending;
    const stored = await writer.store({
      event,
      bridgeIds: routing.bridgeIds,
      deliveries: deliveriesOf(event, routing.destinations),
      dedup,
    });
    if (stored === "stale") {
      // A source or bridge deleted since the plan was read: routed once more as things are now.
      plans.clear();
      const plan = again ? await awaitPlanById(event.sourceId) : null;
      if (!plan) {
        if (again) return { sourceGone: true };
        throw new Error("the routes changed again while the event was written");
      }
      const rerouted = route(plan, pending.view);
      const restated = {
        ...event,
        status: rerouted.status,
        statusReason: rerouted.reason ?? null,
        filteredBy: rerouted.filteredBy,
      };
      return storeOnWriter(writer, { ...pending, event: restated, routing: rerouted }, false);
    }
    if (stored === "duplicate") return { duplicate: true };
    deps.delivery?.ingestCommitted(1);
    deps.delivery?.wake();
    return { eventId: event.id };
  };

  return {
    /** The route plan of a source slug, or null (unknown source: 404). */
    planBySlug: (slug: string) => planFor(`slug:${slug}`, () => sourcesRepo().findBySlug(slug)),
    planById: (id: string) => planFor(`id:${id}`, () => sourcesRepo().findById(id)),
    /** Whether plans must be awaited (`awaitPlanBySlug`, `awaitPlanById`): on PostgreSQL. */
    plansAwait: routeStores !== undefined,
    awaitPlanBySlug: (slug: string) =>
      routeStores
        ? plans.planForAsync(
            `slug:${slug}`,
            () => routeStores.sources.findBySlug(slug),
            routeStores.bridges,
          )
        : Promise.resolve(planFor(`slug:${slug}`, () => sourcesRepo().findBySlug(slug))),
    awaitPlanById,

    /** Stores one request as an event with its deliveries; resolves after the commit. */
    async ingest(plan: RoutePlan, request: IngestRequest): Promise<IngestOutcome> {
      const view = requestView(request);
      const dedup = hooks.prepareDedup(plan.source, view, request);
      const routing = route(plan, view);
      const event: StoredEvent = {
        id: deps.ids.uuid(),
        organizationId: plan.source.organizationId,
        sourceId: plan.source.id,
        ...request,
        status: routing.status,
        statusReason: routing.reason ?? null,
        createdAt: isoAt(deps.clock.now()),
        filteredBy: routing.filteredBy,
      };
      if (deps.writer) return storeOnWriter(deps.writer, { event, routing, dedup, view });
      const stored = await group.submit({ event, routing, dedup, view });
      if (stored === "duplicate") return { duplicate: true };
      if (stored === "source_gone") return { sourceGone: true };
      if (stored !== "stored") throw stored.failed;
      return { eventId: event.id };
    },

    filterCost: (): FilterCost => plans.cost(),

    /** Routes a request through a plan on a fresh filter budget (a retry's routing). */
    route,

    /** Retries an event now (ingest.retry.ts). */
    retry: (event: StoredEvent): EventRetry =>
      retryEvent(event, {
        events: eventsRepo(),
        delivery: deps.delivery,
        tx: deps.tx,
        route,
        planOf: (id) => planFor(`id:${id}`, () => sourcesRepo().findById(id)),
        enqueue: (tx, e, destinations) => enqueue(tx, e, destinations) ?? [],
      }),

    close: async () => {
      group.close();
      await deps.writer?.close();
    },

    /** The handlers of the `event` delivery kind (event-kind.service.ts). */
    kindHandlers: (): DeliveryKindHandlers =>
      createEventKindHandlers(deps, {
        findEvent: (id) => (eventsStore ? eventsStore.findById(id) : eventsRepo().findById(id)),
        destinations,
        sourceName: async (sourceId) =>
          (routeStores
            ? await awaitPlanById(sourceId)
            : planFor(`id:${sourceId}`, () => sourcesRepo().findById(sourceId))
          )?.source.name,
        deliveryEnded: (id, status) => eventsRepo().deliveryEnded(id, status),
        deliveryEndedPostgres: async (tx, id, status) => {
          await eventsStore?.deliveryEnded(tx, id, status);
        },
      }),
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
