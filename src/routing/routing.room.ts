import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DedupPorts } from "../dedup/dedup.room.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import type { TransformationsPorts } from "../transformations/transformations.room.ts";
import { createVerificationChecker } from "../verification/verification.checker.ts";
import {
  VERIFICATION_SEAL_PURPOSE,
  verificationOwner,
} from "../verification/verification.settings.ts";
import { createBridgesRepo, type DestinationDescription } from "./bridges.repo.ts";
import { bridgesRoutes } from "./bridges.routes.ts";
import { type BridgesDeps, openSigningSecrets } from "./bridges.service.ts";
import { checksRoutes } from "./checks.routes.ts";
import type { Destination } from "./destinations.model.ts";
import { refersToSecret } from "./event-prepare.model.ts";
import { createEventsRepo } from "./events.repo.ts";
import { sweepEvents } from "./events.retention.ts";
import { createBulkRetry } from "./events.retry.service.ts";
import { eventsRoutes } from "./events.routes.ts";
import type { DeliveryHealth, HealthComponent } from "./health.model.ts";
import { createHealthRepo } from "./health.repo.ts";
import { healthRoutes } from "./health.routes.ts";
import {
  deliveryHealth,
  type HealthDeps,
  healthRetentionJob,
  withHealthCounts,
} from "./health.service.ts";
import { createIngestLimits, type IngestLimitsDeps } from "./ingest.limits.ts";
import { renderIngestMetrics } from "./ingest.metrics.ts";
import { type IngestParts, ingestDirectRoutes, ingestRoutes } from "./ingest.routes.ts";
import { createIngestService } from "./ingest.service.ts";
import { createIngestTally } from "./ingest.tally.ts";
import { createIngestPostgresWriter } from "./ingest-writer.postgres.ts";
import type { Source } from "./sources.model.ts";
import { createSourcesPostgresStore } from "./sources.postgres.ts";
import { createSourcesRepo } from "./sources.repo.ts";
import { sourcesRoutes } from "./sources.routes.ts";
import { requireSource, type SourcesDeps } from "./sources.service.ts";
import { createSourcesSqliteStore } from "./sources.sqlite.ts";

/** The events sweep: hourly at minute 0 like the capture sweep, and once at start. */
export const EVENTS_RETENTION_JOB = "routing.events-retention";
const RETENTION_PATTERN = "0 * * * *";
/** Every minute, as capture's: one info line per source that ingested or refused anything. */
const INGEST_SUMMARY_PATTERN = "0 * * * * *";

export type RoutingRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "config" | "publicBaseUrl" | "outbound" | "secretKey" | "disk"
> & {
  /**
   * When given, the sources are stored there (the rest of the room still reads and writes
   * `db`, SQLite, until its stores exist).
   */
  postgres?: PostgresDb;
  /** On PostgreSQL: ingest's rate buckets shared by every node (absent: in this process). */
  sharedBuckets?: IngestLimitsDeps["sharedBuckets"];
};

/** Every minute, on one node: the shared rate buckets that refilled completely go. */
const RATE_BUCKETS_SWEEP_PATTERN = "30 * * * * *";

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
function buildRoutingParts(deps: RoutingRoomDeps, ports: RoutingRoomPorts) {
  const sourcesRepo = createSourcesRepo(deps.db);
  const bridgesRepo = createBridgesRepo(deps.db);
  let routesVersion = 0;
  const routesChanged = () => {
    routesVersion += 1;
  };
  const sources: SourcesDeps = {
    sources: deps.postgres
      ? createSourcesPostgresStore(deps.postgres, {
          forgetSource: ports.dedup.forgetSourcePostgres,
        })
      : createSourcesSqliteStore(deps.db, {
          forgetSource: (tx, sourceId) => ports.dedup.forgetSource(tx, sourceId),
        }),
    clock: deps.clock,
    ids: deps.ids,
    routesChanged,
    sealer: createSealer(deps.secretKey, VERIFICATION_SEAL_PURPOSE),
  };
  const bridges: BridgesDeps = {
    bridges: bridgesRepo,
    sources: sourcesRepo,
    tx: (fn) => deps.db.tx(() => fn()),
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
  const events = createEventsRepo(deps.db);
  const ingest = createIngestService(
    {
      sources: sourcesRepo,
      bridges: bridgesRepo,
      events,
      delivery: ports.delivery,
      tx: (fn) => deps.db.tx(fn),
      turn: deps.db.turn,
      ...(deps.postgres && { writer: ingestWriterOn(deps.postgres, ports) }),
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
    health: createHealthRepo(deps.db),
    bridges: bridgesRepo,
    clock: deps.clock,
    breakerOpen: (destinationId) => ports.delivery?.breakerOpen(destinationId) ?? false,
  };
  const counted = withHealthCounts(ingest.kindHandlers(), health, deps.logger);
  ports.delivery?.registerKind("event", counted);
  return {
    sources,
    /** The ingest path's synchronous lookups and plan reads (SQLite). */
    sourcesRepo,
    bridges,
    bridgesRepo,
    ingest,
    events: { events, delivery: ports.delivery },
    bulkRetry: createBulkRetry({
      events,
      delivery: ports.delivery,
      tx: (fn) => deps.db.tx(fn),
      yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
    }),
    health,
    guard: ports.guard,
    publicBaseUrl: deps.publicBaseUrl,
    /** Grows on every change of sources, bridges or destinations: cached routes go stale. */
    routesVersion: () => routesVersion,
  };
}

export type RoutingParts = ReturnType<typeof buildRoutingParts>;

export type { DestinationDescription };

/** What the routing room lends. */
export interface RoutingPorts {
  /** The caller's source or a 404 (another organization's source is a 404 too). */
  requireSource(organizationId: string, sourceId: string): Promise<Source>;
  /**
   * A destination by id (an event delivery's destination key), with its organization, bridge and
   * the names an issue or alert shows; null when it was deleted.
   */
  describeDestination(destinationId: string): DestinationDescription | null;
  /** The ingest path's /metrics lines (Prometheus text). */
  metricLines(): string[];
  /**
   * A bridge's or a destination's delivery health over the last `days` UTC days (a status
   * page's component); null when it is not that organization's.
   */
  deliveryHealth(
    organizationId: string,
    component: HealthComponent,
    days: number,
  ): DeliveryHealth | null;
  /** The organization's destinations whose settings say `{{name}}`: a secret's users. */
  destinationsUsingSecret(organizationId: string, name: string): DestinationUse[];
  /** The organization's destinations that run this transformation. */
  destinationsUsingTransformation(
    organizationId: string,
    transformationId: string,
  ): DestinationUse[];
}

/** A destination named in a 409 `in_use` (decisions.md §15). */
export interface DestinationUse {
  bridge_id: string;
  destination_id: string;
  name: string;
}

const useOf = (d: Destination): DestinationUse => ({
  bridge_id: d.bridgeId,
  destination_id: d.id,
  name: d.name,
});

/**
 * Builds the routing room: sources, bridges and their destinations (decisions.md §8). Ingested
 * webhooks become events whose deliveries go through the delivery room's outbox.
 */
export function createRoutingRoom(
  deps: RoutingRoomDeps,
  ports: RoutingRoomPorts,
): Room<RoutingPorts> {
  const parts = buildRoutingParts(deps, ports);
  const tally = createIngestTally(deps.logger.child({ scope: "ingest" }));
  const limits = createIngestLimits({
    clock: deps.clock,
    plans: deps.config.plans,
    rateLimit: deps.config.capture_rate_limit,
    planOf: (organizationId) => parts.sourcesRepo.planOf(organizationId),
    storedEventBytes: (organizationId) => parts.events.events.storedBytes(organizationId),
    ...(deps.sharedBuckets && { sharedBuckets: deps.sharedBuckets }),
  });
  const checkSignature = createVerificationChecker({
    sealer: parts.sources.sealer,
    resolveSecrets: ports.resolveSecretsNow,
    now: () => deps.clock.now(),
  });
  const ingestParts: IngestParts = {
    ingest: parts.ingest,
    limits,
    maxBodyBytes: deps.config.max_body_bytes,
    disk: deps.disk,
    tally,
    verify: (source, request) =>
      checkSignature(
        source.verification,
        { organizationId: source.organizationId, owner: verificationOwner("source", source.id) },
        request,
      ),
    rejectedUnverified: (source) => ports.dedup.countUnverified?.(source.id),
  };
  return {
    directRoutes: ingestDirectRoutes(ingestParts),
    // Ingest first: the guard of the management routes never runs on the hot path.
    routes: new Elysia({ name: "weir-routing" })
      .use(ingestRoutes(ingestParts))
      .use(sourcesRoutes(parts))
      .use(bridgesRoutes(parts))
      .use(eventsRoutes(parts))
      .use(
        checksRoutes(parts, {
          limits: {
            maxTerms: deps.config.filter_max_terms,
            compileMs: deps.config.filter_budget_ms,
          },
          budget: { comparisons: deps.config.filter_budget, ms: deps.config.filter_budget_ms },
        }),
      )
      .use(healthRoutes(parts)),
    jobs: [
      {
        name: EVENTS_RETENTION_JOB,
        scope: "cluster",
        pattern: RETENTION_PATTERN,
        runNow: true,
        run: () =>
          sweepEvents({
            events: parts.events.events,
            tx: (fn) => deps.db.tx(fn),
            forgetDeliveries: (tx, ids) => ports.delivery?.forgetSubjects(tx, "event", ids),
            clock: deps.clock,
            plans: deps.config.plans,
            yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
          }).then((deleted) => {
            // The organizations' stored bytes shrank: summed again at their next ingest.
            if (deleted > 0) limits.forgetStored();
            return deleted;
          }),
      },
      healthRetentionJob(parts.health, (fn) => deps.db.tx(fn)),
      ...(deps.sharedBuckets
        ? [
            {
              name: "routing.rate-buckets-sweep",
              scope: "cluster" as const,
              pattern: RATE_BUCKETS_SWEEP_PATTERN,
              run: () => limits.sweepShared(),
            },
          ]
        : []),
      {
        name: "routing.ingest-summary",
        scope: "node",
        pattern: INGEST_SUMMARY_PATTERN,
        run: tally.summarise,
      },
    ],
    subscriptions: [],
    stop: () => parts.ingest.close(),
    ports: {
      requireSource: (organizationId, sourceId) =>
        requireSource(organizationId, sourceId, parts.sources),
      describeDestination: (destinationId) => parts.bridgesRepo.describeDestination(destinationId),
      metricLines: () => renderIngestMetrics(parts.ingest.filterCost()),
      deliveryHealth: (organizationId, component, days) =>
        deliveryHealth(organizationId, component, days, parts.health),
      destinationsUsingSecret: (organizationId, name) =>
        parts.bridgesRepo
          .destinationsOfOrganization(organizationId)
          .filter((d) => refersToSecret(d, name))
          .map(useOf),
      destinationsUsingTransformation: (organizationId, transformationId) =>
        parts.bridgesRepo
          .destinationsOfOrganization(organizationId)
          .filter((d) => d.transformationId === transformationId)
          .map(useOf),
    },
  };
}
