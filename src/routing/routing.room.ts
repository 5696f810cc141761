import { Elysia } from "elysia";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import { type Room, subscription } from "../room.ts";
import { describeDestinationPostgres } from "./bridges.postgres.ts";
import type { DestinationDescription } from "./bridges.repo.ts";
import { bridgesRoutes } from "./bridges.routes.ts";
import { checksRoutes } from "./checks.routes.ts";
import type { Destination } from "./destinations.model.ts";
import { refersToSecret } from "./event-prepare.model.ts";
import { sweepEvents } from "./events.retention.ts";
import { eventsRoutes } from "./events.routes.ts";
import type { DeliveryHealth, HealthComponent } from "./health.model.ts";
import { healthRoutes } from "./health.routes.ts";
import { deliveryHealth, healthRetentionJob } from "./health.service.ts";
import { createIngestLimits } from "./ingest.limits.ts";
import { renderIngestMetrics } from "./ingest.metrics.ts";
import { type IngestParts, ingestDirectRoutes, ingestRoutes } from "./ingest.routes.ts";
import { createIngestTally } from "./ingest.tally.ts";
import { createSourceVerifier } from "./ingest.verify.ts";
import { buildRoutingParts, type RoutingRoomDeps, type RoutingRoomPorts } from "./routing.parts.ts";
import type { Source } from "./sources.model.ts";
import { sourcesRoutes } from "./sources.routes.ts";
import { requireSource } from "./sources.service.ts";

/** The events sweep: hourly at minute 0 like the capture sweep, and once at start. */
export const EVENTS_RETENTION_JOB = "routing.events-retention";
const RETENTION_PATTERN = "0 * * * *";
/** Every minute, as capture's: one info line per source that ingested or refused anything. */
const INGEST_SUMMARY_PATTERN = "0 * * * * *";

/** Every minute, on one node: the shared rate buckets that refilled completely go. */
const RATE_BUCKETS_SWEEP_PATTERN = "30 * * * * *";

export type { RoutingParts, RoutingRoomDeps, RoutingRoomPorts } from "./routing.parts.ts";

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
  /** `describeDestination` through the bridges store: on either database, awaited. */
  findDestination(destinationId: string): Promise<DestinationDescription | null>;
  /**
   * PostgreSQL only: the same inside the attempt's transaction (the issues room's grouping),
   * the twin of `describeDestination`.
   */
  describeDestinationPostgres?(
    tx: PostgresTx,
    destinationId: string,
  ): Promise<DestinationDescription | null>;
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
  ): Promise<DeliveryHealth | null>;
  /** The organization's destinations whose settings say `{{name}}`: a secret's users. */
  destinationsUsingSecret(organizationId: string, name: string): Promise<DestinationUse[]>;
  /** The organization's destinations that run this transformation. */
  destinationsUsingTransformation(
    organizationId: string,
    transformationId: string,
  ): Promise<DestinationUse[]>;
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
  const { postgres, sharedBuckets } = deps;
  const limits = createIngestLimits({
    clock: deps.clock,
    plans: deps.config.plans,
    rateLimit: deps.config.capture_rate_limit,
    // On PostgreSQL `readsAsync` reads the plan; this is SQLite's.
    planOf: (organizationId) => parts.sqliteRepos?.sources.planOf(organizationId) ?? "free",
    storedEventBytes: (organizationId) => parts.eventsRepo?.storedBytes(organizationId) ?? 0,
    ...(sharedBuckets && { sharedBuckets }),
    ...(postgres && {
      readsAsync: {
        planOf: (organizationId: string) => parts.sources.sources.planOf(organizationId),
        storedEventBytes: async (organizationId: string) =>
          parts.events.events.storedBytes(organizationId),
      },
    }),
  });
  const verifier = createSourceVerifier({
    sealer: parts.sources.sealer,
    resolveSecretsNow: ports.resolveSecretsNow,
    resolveSecrets: ports.resolveSecrets,
    awaitSecrets: Boolean(postgres),
    now: () => deps.clock.now(),
  });
  const ingestParts: IngestParts = {
    ingest: parts.ingest,
    limits,
    maxBodyBytes: deps.config.max_body_bytes,
    disk: deps.disk,
    tally,
    verify: verifier.verify,
    ...(verifier.verifyAsync && { verifyAsync: verifier.verifyAsync }),
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
            tenantsWithEvents: () => parts.events.events.tenantsWithEvents(),
            deleteBatch: parts.deleteEvents,
            clock: deps.clock,
            plans: deps.config.plans,
            yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
          }).then((deleted) => {
            // The organizations' stored bytes shrank: summed again at their next ingest.
            if (deleted > 0) limits.forgetStored();
            return deleted;
          }),
      },
      healthRetentionJob(parts.health),
      ...(sharedBuckets
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
    // Route plans and prepared destinations are cached per node: a write on any node ends them.
    subscriptions: [subscription("routes.changed", () => parts.staleRoutes())],
    stop: () => parts.ingest.close(),
    ports: {
      requireSource: (organizationId, sourceId) =>
        requireSource(organizationId, sourceId, parts.sources),
      // Synchronous for the issues room's SQLite hook; on PostgreSQL it knows no destination yet.
      describeDestination: (destinationId) =>
        parts.sqliteRepos?.bridges.describeDestination(destinationId) ?? null,
      findDestination: (destinationId) => parts.bridges.bridges.describeDestination(destinationId),
      ...(deps.postgres && {
        describeDestinationPostgres: (tx: PostgresTx, destinationId: string) =>
          describeDestinationPostgres(tx, destinationId),
      }),
      metricLines: () => renderIngestMetrics(parts.ingest.filterCost()),
      deliveryHealth: (organizationId, component, days) =>
        deliveryHealth(organizationId, component, days, parts.health),
      destinationsUsingSecret: async (organizationId, name) =>
        (await parts.bridges.bridges.destinationsOfOrganization(organizationId))
          .filter((d) => refersToSecret(d, name))
          .map(useOf),
      destinationsUsingTransformation: async (organizationId, transformationId) =>
        (await parts.bridges.bridges.destinationsOfOrganization(organizationId))
          .filter((d) => d.transformationId === transformationId)
          .map(useOf),
    },
  };
}
