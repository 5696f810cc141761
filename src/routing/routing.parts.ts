import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DedupPorts } from "../dedup/dedup.room.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import { createSealer } from "../shared/sealed.ts";
import type { TransformationsPorts } from "../transformations/transformations.room.ts";
import { VERIFICATION_SEAL_PURPOSE } from "../verification/verification.settings.ts";
import { createBridgesPostgresStore, describeDestinationPostgres } from "./bridges.postgres.ts";
import { createBridgesRepo } from "./bridges.repo.ts";
import type { BridgesDeps } from "./bridges.service.ts";
import { createBridgesSqliteStore } from "./bridges.sqlite.ts";
import { openSigningSecrets } from "./destinations.service.ts";
import { createEventsPostgresStore } from "./events.postgres.ts";
import { createEventsRepo, type EventsRepo, type StoredEvent } from "./events.repo.ts";
import { type BulkRetryDeps, createBulkRetry } from "./events.retry.service.ts";
import { createEventsSqliteStore } from "./events.sqlite.ts";
import type { EventsStore } from "./events.store.ts";
import { createHealthPostgresStore } from "./health.postgres.ts";
import { createHealthRepo, createHealthSqliteStore } from "./health.repo.ts";
import { type HealthDeps, withHealthCounts } from "./health.service.ts";
import type { IngestLimitsDeps } from "./ingest.limits.ts";
import { retryEventPostgres } from "./ingest.retry.ts";
import { createIngestService } from "./ingest.service.ts";
import { createIngestPostgresWriter } from "./ingest-writer.postgres.ts";
import { createSourcesPostgresStore } from "./sources.postgres.ts";
import { createSourcesRepo } from "./sources.repo.ts";
import type { SourcesDeps } from "./sources.service.ts";
import { createSourcesSqliteStore } from "./sources.sqlite.ts";

/** The routing room's parts as its routes and jobs take them, built once per app. */

export type RoutingRoomDeps = Pick<
  SharedDeps,
  | "bus"
  | "clock"
  | "ids"
  | "logger"
  | "config"
  | "publicBaseUrl"
  | "outbound"
  | "secretKey"
  | "disk"
> &
  RoomStorage & {
    /** On PostgreSQL: ingest's rate buckets shared by every node (absent: in this process). */
    sharedBuckets?: IngestLimitsDeps["sharedBuckets"];
  };

export interface RoutingRoomPorts {
  guard: AuthPorts["guard"];
  /**
   * The delivery room's outbox: every event's deliveries are written and read through it.
   * null while the app has none: events are then stored and routed, and nothing is sent.
   */
  delivery: DeliveryPorts | null;
  /** The transformations room's lookup: a destination may name only its organization's ones. */
  transformationExists?(organizationId: string, transformationId: string): Promise<boolean>;
  /** The dedup room: every ingest is checked and counted inside its own transaction. */
  dedup: Pick<DedupPorts, "prepareDedup" | "beginBatch" | "forgetSource"> &
    Partial<Pick<DedupPorts, "countUnverified" | "forgetSourcePostgres" | "checkPostgres">>;
  /** The secrets room's lookup, for `{{NAME}}` at send time. */
  resolveSecrets?(organizationId: string): Promise<(name: string) => string | undefined>;
  /**
   * The same lookup without waiting (SQLite only), for the signature check of an ingest and so
   * that a delivery reads secrets only when its destination names one.
   */
  resolveSecretsNow?(organizationId: string): (name: string) => string | undefined;
  /** Every secret of the organization: what a transformation could copy into a request. */
  secretEnvironment?(organizationId: string): Promise<Record<string, string>>;
  /** The transformations room's run of one destination's transformation. */
  runTransformation?: TransformationsPorts["runTransformation"];
}

const decoder = new TextDecoder();

/** Each ingested event one PostgreSQL transaction: dedup's and delivery's twins write in it. */
function ingestWriterOn(postgres: PostgresDb, ports: RoutingRoomPorts) {
  const { delivery } = ports;
  const enqueuePostgres = delivery?.enqueuePostgres?.bind(delivery);
  return createIngestPostgresWriter(postgres, {
    ...(ports.dedup.checkPostgres && { checkDedup: ports.dedup.checkPostgres }),
    ...(enqueuePostgres && { enqueueDeliveries: enqueuePostgres }),
  });
}

/** Builds the routing room's use-case deps, as its routes take them. */
export function buildRoutingParts(deps: RoutingRoomDeps, ports: RoutingRoomPorts) {
  /** SQLite only: the ingest path's synchronous lookups (PostgreSQL reads through the stores). */
  const sqliteRepos = deps.postgres
    ? null
    : { sources: createSourcesRepo(sqliteOf(deps)), bridges: createBridgesRepo(sqliteOf(deps)) };
  let routesVersion = 0;
  const staleRoutes = () => {
    routesVersion += 1;
  };
  // Stale here at once (a room not yet started hears no bus), then told to every node.
  const routesChanged = () => {
    staleRoutes();
    deps.bus.publish("routes.changed", {});
  };
  const sourcesStore = deps.postgres
    ? createSourcesPostgresStore(deps.postgres, {
        forgetSource: ports.dedup.forgetSourcePostgres,
      })
    : createSourcesSqliteStore(sqliteOf(deps), {
        forgetSource: (tx, sourceId) => ports.dedup.forgetSource(tx, sourceId),
      });
  const bridgesStore = deps.postgres
    ? createBridgesPostgresStore(deps.postgres)
    : createBridgesSqliteStore(sqliteOf(deps));
  const sources: SourcesDeps = {
    sources: sourcesStore,
    clock: deps.clock,
    ids: deps.ids,
    routesChanged,
    sealer: createSealer(deps.secretKey, VERIFICATION_SEAL_PURPOSE),
  };
  const bridges: BridgesDeps = {
    bridges: bridgesStore,
    sources: sourcesStore,
    clock: deps.clock,
    ids: deps.ids,
    sealer: createSealer(deps.secretKey, "destination-signing-secret"),
    checks: {
      urlProblem: (url) => deps.outbound.urlProblem(url),
      filterLimits: {
        maxTerms: deps.config.filter_max_terms,
        compileMs: deps.config.filter_budget_ms,
      },
    },
    transformationExists: ports.transformationExists,
    routesChanged,
    maxDestinations: deps.config.bridge_max_destinations,
  };
  // The SQLite ingest path writes and reads events through the repo, in its transactions.
  const events = deps.postgres ? null : createEventsRepo(sqliteOf(deps));
  // Reads, retries and retention of events, and on PostgreSQL the event kind's writes.
  const eventsStore = deps.postgres
    ? createEventsPostgresStore(deps.postgres)
    : createEventsSqliteStore(sqliteOf(deps));
  const ingest = createIngestService(
    {
      ...sqliteRepos,
      ...(events ? { events } : { eventsStore }),
      delivery: ports.delivery,
      tx: (fn) => sqliteOf(deps).tx(fn),
      turn: deps.db?.turn,
      ...(deps.postgres && {
        writer: ingestWriterOn(deps.postgres, ports),
        routeStores: { sources: sourcesStore, bridges: bridgesStore },
      }),
      clock: deps.clock,
      ids: deps.ids,
      signingSecrets: (id, sealed) => openSigningSecrets(id, sealed, bridges),
      routesVersion: () => routesVersion,
      filterBudget: deps.config.filter_budget,
      filterBudgetMs: deps.config.filter_budget_ms,
      resolveSecrets: ports.resolveSecrets,
      resolveSecretsNow: ports.resolveSecretsNow,
      secretEnvironment: ports.secretEnvironment,
      telegramApiBase: deps.config.telegram_api_base,
      runTransformation: ports.runTransformation,
    },
    {
      prepareDedup: (source, view, request) =>
        ports.dedup.prepareDedup({
          sourceId: source.id,
          organizationId: source.organizationId,
          config: source.deduplicationConfig,
          request: view,
          // Only a body that is not JSON is hashed as text: decode it only then.
          rawBody:
            source.deduplicationConfig?.enabled && view.body === undefined
              ? decoder.decode(request.body)
              : "",
        }),
      beginDedup: (tx) => ports.dedup.beginBatch(tx),
    },
  );
  const health: HealthDeps = {
    health: deps.postgres
      ? createHealthPostgresStore(deps.postgres)
      : createHealthSqliteStore(sqliteOf(deps)),
    bridges: bridgesStore,
    clock: deps.clock,
    breakerOpen: (destinationId) => ports.delivery?.breakerOpen(destinationId) ?? false,
  };
  const counted = withHealthCounts(
    ingest.kindHandlers(),
    sqliteRepos
      ? { sqlite: { ...createHealthRepo(sqliteOf(deps)), ...sqliteRepos.bridges } }
      : {
          postgres: {
            store: health.health,
            describeDestination: describeDestinationPostgres,
          },
        },
    deps.logger,
  );
  ports.delivery?.registerKind("event", counted);
  return {
    sources,
    bridges,
    /** The ingest path's synchronous lookups and plan reads (SQLite; null on PostgreSQL). */
    sqliteRepos,
    ingest,
    events: { events: eventsStore, delivery: ports.delivery },
    /** The SQLite ingest path's synchronous reads of events. */
    eventsRepo: events,
    /** Retention's batch: events and their deliveries in one transaction of either store. */
    deleteEvents: deleteEventsOn(deps, ports, events, eventsStore),
    retryEvent: (event: StoredEvent) =>
      deps.postgres
        ? retryEventPostgres(event, {
            sql: deps.postgres.sql,
            events: eventsStore,
            delivery: ports.delivery,
            planOf: (sourceId) => ingest.awaitPlanById(sourceId),
            route: ingest.route,
          })
        : Promise.resolve(ingest.retry(event)),
    bulkRetry: createBulkRetry({
      events: eventsStore,
      retryInTx: retryInTxOn(deps, ports, events, eventsStore),
      wake: () => ports.delivery?.wake(),
      yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
    }),
    health,
    guard: ports.guard,
    publicBaseUrl: deps.publicBaseUrl,
    /** Grows on every change of sources, bridges or destinations: cached routes go stale. */
    routesVersion: () => routesVersion,
    /** A change made on any node (the cluster bridge carries `routes.changed`). */
    staleRoutes,
  };
}

export type RoutingParts = ReturnType<typeof buildRoutingParts>;

function deleteEventsOn(
  deps: RoutingRoomDeps,
  ports: RoutingRoomPorts,
  repo: EventsRepo | null,
  store: EventsStore,
): (organizationId: string, beforeIso: string, limit: number) => Promise<number> {
  const { postgres } = deps;
  if (postgres) {
    return (organizationId, beforeIso, limit) =>
      postgres.sql.begin(async (tx) => {
        const ids = await store.deleteBefore(tx, organizationId, beforeIso, limit);
        if (ids.length > 0) await ports.delivery?.forgetSubjectsPostgres?.(tx, "event", ids);
        return ids.length;
      });
  }
  return async (organizationId, beforeIso, limit) =>
    sqliteOf(deps).tx((tx) => {
      const ids = sqliteEvents(repo).deleteBefore(organizationId, beforeIso, limit);
      if (ids.length > 0) ports.delivery?.forgetSubjects(tx, "event", ids);
      return ids.length;
    });
}

/** A batch of a manual retry: the deliveries and the events they reopen, in one transaction. */
function retryInTxOn(
  deps: RoutingRoomDeps,
  ports: RoutingRoomPorts,
  repo: EventsRepo | null,
  store: EventsStore,
): BulkRetryDeps["retryInTx"] {
  const { postgres } = deps;
  const { delivery } = ports;
  if (!delivery) return async () => [];
  if (postgres) {
    return (ids, destinationKey, reopen) =>
      postgres.sql.begin(async (tx) => {
        const done =
          (await delivery.retryNowPostgres?.(tx, "event", ids, { destinationKey })) ?? [];
        await store.reopenMany(tx, reopen(done));
        return done;
      });
  }
  return async (ids, destinationKey, reopen) =>
    sqliteOf(deps).tx((tx) => {
      const done = delivery.retryNow(tx, "event", ids, { destinationKey });
      for (const [eventId, count] of reopen(done)) sqliteEvents(repo).reopen(eventId, count);
      return done;
    });
}

/** The SQLite repo of events, which a node on SQLite always has. */
function sqliteEvents(repo: EventsRepo | null): EventsRepo {
  if (!repo) throw new Error("events have no SQLite repo on PostgreSQL");
  return repo;
}
