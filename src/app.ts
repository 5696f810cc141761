import { createActionsRoom } from "./actions/actions.room.ts";
import { createAlertsRoom } from "./alerts/alerts.room.ts";
import { createAuthRoom } from "./auth/auth.room.ts";
import { CAPTURE_PREFIXES } from "./capture/capture.model.ts";
import { createCaptureRoom } from "./capture/capture.room.ts";
import { createDbPing, createPostgresPing } from "./db/db.health.ts";
import { createDedupRoom } from "./dedup/dedup.room.ts";
import { createDeliveryRoom } from "./delivery/delivery.room.ts";
import { createForwardsRoom } from "./delivery/forwards.room.ts";
import type { AnyAppDeps } from "./deps.ts";
import { createEndpointsRoom } from "./endpoints/endpoints.room.ts";
import { healthRoutes } from "./http/health.routes.ts";
import { SERVER_BODY_LIMIT } from "./http/http.body-limit.ts";
import { createClientIpResolver } from "./http/http.client-ip.ts";
import { createMetrics } from "./http/http.metrics.ts";
import { apiDocs } from "./http/http.openapi.ts";
import { createHttpBase } from "./http/http.server.ts";
import { uiRoutes } from "./http/ui.routes.ts";
import { createIssuesRoom } from "./issues/issues.room.ts";
import { createMaintenanceRoom } from "./maintenance/maintenance.room.ts";
import { createMonitorsRoom } from "./monitors/monitors.room.ts";
import { createRealtimeRoom } from "./realtime/realtime.room.ts";
import { type Room, startRooms } from "./room.ts";
import { createRoutingRoom } from "./routing/routing.room.ts";
import { INGEST_PREFIX } from "./routing/sources.model.ts";
import { createSecretsRoom } from "./secrets/secrets.room.ts";
import { createPostgresKeyedLimiter } from "./shared/token-bucket.postgres.ts";
import type { BucketRule } from "./shared/token-bucket.ts";
import type { StatusPagesReads } from "./status-pages/status-pages.ports.ts";
import { createStatusPagesRoom } from "./status-pages/status-pages.room.ts";
import { createTransformationsRoom } from "./transformations/transformations.room.ts";

/**
 * Ports a test may lend in place of (or before) the rooms that lend them, e.g. the maintenance
 * windows a status page shows.
 */
export interface PortOverrides {
  statusPages?: Partial<StatusPagesReads>;
}

export interface StartOptions {
  port: number;
  hostname: string;
}

/**
 * The composition root: the rooms in dependency order, each given the narrow deps it uses and
 * the ports of rooms built before it; then one start path and one stop path. Building starts
 * nothing (no job, no subscription), so two apps may be built and run in one process.
 */
export function createApp(deps: AnyAppDeps, overrides: PortOverrides = {}) {
  // Built once: every room that needs a client's address resolves it by the same rule.
  const resolveClientIp = createClientIpResolver(deps.config.trusted_proxies);
  const auth = createAuthRoom(deps, { resolveClientIp });
  const { guard } = auth.ports;
  const delivery = createDeliveryRoom(deps);
  const endpoints = createEndpointsRoom(deps, {
    guard,
    resolveClientIp,
  });
  const capture = createCaptureRoom(deps, {
    ...endpoints.ports,
    guard,
    resolveClientIp,
    enqueueForwards: delivery.ports.enqueueForwards,
    wakeDeliveries: delivery.ports.wake,
    // Actions is built after capture (it takes capture's ports); this runs per committed batch.
    oweActionRuns: (tx, captures) => actions.ports.oweRuns(tx, captures),
    forgetForwards: (tx, requestIds) =>
      void delivery.ports.forgetSubjects(tx, "forward", requestIds),
    // The secrets room is built later; this runs per capture of a verifying endpoint. Only the
    // SQLite store reads without waiting; on PostgreSQL capture awaits resolveSecrets first.
    resolveSecretsNow: (organizationId) =>
      secrets.ports.resolveSecretsNow?.(organizationId) ?? (() => undefined),
    resolveSecrets: (organizationId) => secrets.ports.resolveSecrets(organizationId),
    // What capture's PostgreSQL transactions write in other rooms (their SQLite ports' twins).
    postgresTx: {
      oweActionRuns: (tx, captures) => actions.ports.oweRunsPostgres(tx, captures),
      finishDrain: endpoints.ports.finishDrainOnPostgres,
      enqueueForwards: delivery.ports.enqueueForwardsPostgres,
      forgetForwards: async (tx, requestIds) => {
        await delivery.ports.forgetSubjectsPostgres?.(tx, "forward", requestIds);
      },
    },
  });
  const forwards = createForwardsRoom(deps, {
    ...endpoints.ports,
    ...capture.ports,
    guard,
    registerKind: delivery.ports.registerKind,
  });
  const realtime = createRealtimeRoom(deps, {
    auth: auth.ports.auth,
    findEndpoint: endpoints.ports.findEndpoint,
    listAfter: (endpointId, afterRequestId, limit) =>
      capture.ports.listRequestsAfter(endpointId, afterRequestId, limit),
    // Actions is built later; this runs per catch-up page.
    runResultsOf: (requestIds) => actions.ports.lastRunResults(requestIds),
  });
  const secrets = createSecretsRoom(deps, {
    guard,
    // Routing and alerts are built later; this runs per delete. A room that is not running
    // holds nothing that uses a secret.
    usersOf: async (organizationId, name) => [
      ...((await routing?.ports.destinationsUsingSecret(organizationId, name)) ?? []),
      ...(await alerts.ports.rulesUsingSecret(organizationId, name)),
      ...(await actions.ports.actionsUsingSecret(organizationId, name)),
      ...(await monitors.ports.monitorsUsingSecret(organizationId, name)),
    ],
  });
  const transformations = createTransformationsRoom(deps, {
    guard,
    ...secrets.ports,
    usersOf: async (organizationId, id) =>
      (await routing?.ports.destinationsUsingTransformation(organizationId, id)) ?? [],
  });
  const actions = createActionsRoom(deps, {
    guard,
    requireEndpoint: endpoints.ports.requireEndpoint,
    findRequest: capture.ports.findRequest,
    setResponseOverride: capture.ports.setResponseOverride,
    resolveSecrets: secrets.ports.resolveSecrets,
  });
  const dedup = createDedupRoom(deps, {
    guard,
    // Routing is built after dedup (its ingest uses dedup's ports); this runs per request.
    requireSource: (organizationId, sourceId) =>
      routing.ports.requireSource(organizationId, sourceId),
  });
  const { postgres } = deps;
  const routing = createRoutingRoom(
    {
      ...deps,
      // With several nodes a source's rate limit is the cluster's, kept in the database.
      ...(postgres && {
        sharedBuckets: (name: string, rule: BucketRule) =>
          createPostgresKeyedLimiter(postgres.sql, name, rule),
      }),
    },
    {
      guard,
      delivery: delivery.ports,
      transformationExists: transformations.ports.transformationExists,
      dedup: dedup.ports,
      runTransformation: transformations.ports.runTransformation,
      resolveSecrets: secrets.ports.resolveSecrets,
      resolveSecretsNow: secrets.ports.resolveSecretsNow,
      secretEnvironment: secrets.ports.secretEnvironment,
    },
  );
  const issues = createIssuesRoom(deps, {
    guard,
    observeAttempts: delivery.ports.observeAttempts,
    observeAttemptsPostgres: delivery.ports.observeAttemptsPostgres,
    // Without the routing room no destination is known: a failure then makes no issue.
    describeDestination: routing.ports.describeDestination,
    findDestination: routing.ports.findDestination,
    ...(routing?.ports.describeDestinationPostgres && {
      describeDestinationPostgres: routing.ports.describeDestinationPostgres,
    }),
  });
  const alerts = createAlertsRoom(deps, {
    guard,
    delivery: delivery.ports,
    issues: issues.ports,
    resolveSecrets: secrets.ports.resolveSecrets,
    apiKeys: auth.ports.apiKeys,
  });
  const monitors = createMonitorsRoom(deps, {
    guard,
    resolveSecrets: secrets.ports.resolveSecrets,
    monitorChanged: alerts.ports.monitorChanged,
    monitorChangedPostgres: alerts.ports.monitorChangedPostgres,
    // Maintenance is built after monitors (it checks a window's monitors); this runs per check.
    inMaintenance: (monitorId, at) => maintenance.ports.inMaintenance(monitorId, at),
  });
  const maintenance = createMaintenanceRoom(deps, {
    guard,
    monitorExists: monitors.ports.monitorExists,
    // Status pages are built after maintenance; this runs per new window (none to tell without).
    windowCreated: (tx, window) => statusPages.ports.maintenanceScheduled(tx, window),
    windowCreatedPostgres: (tx, window) =>
      statusPages.ports.maintenanceScheduledPostgres(tx, window),
  });
  const statusPages = createStatusPagesRoom(deps, {
    guard,
    delivery: delivery.ports,
    dailyBuckets: monitors.ports.dailyBuckets,
    stateChanges: monitors.ports.stateChanges,
    monitorSummary: monitors.ports.monitorSummary,
    maintenanceFor: maintenance.ports.maintenanceFor,
    // Without the routing room a page shows no bridge or destination.
    deliveryHealth: routing?.ports.deliveryHealth,
    ...overrides.statusPages,
  });
  const built: (Room<object> | null)[] = [
    auth,
    endpoints,
    delivery,
    capture,
    forwards,
    realtime,
    secrets,
    transformations,
    actions,
    dedup,
    routing,
    issues,
    alerts,
    monitors,
    maintenance,
    statusPages,
  ];
  const rooms = built.filter((room): room is Room<object> => room !== null);

  const metrics = createMetrics();
  for (const room of [delivery, issues, routing, dedup, monitors]) {
    if (room) metrics.addSource(room.ports.metricLines);
  }
  // Which node runs the cluster-wide jobs (a single node on SQLite always does).
  metrics.addSource(() => [
    "# HELP weir_cluster_leader 1 while this node leads the nodes sharing its database.",
    "# TYPE weir_cluster_leader gauge",
    `weir_cluster_leader ${deps.cluster.isLeader() ? 1 : 0}`,
  ]);
  const app = createHttpBase({
    ids: deps.ids,
    logger: deps.logger,
    metrics,
    maxJsonBytes: deps.config.max_json_bytes,
    rawBodyPrefixes: [...CAPTURE_PREFIXES, INGEST_PREFIX],
    directRoutes: Object.assign({}, ...rooms.map((room) => room.directRoutes ?? {})),
    onAnswered: auth.ports.countAnswer,
  })
    .use(apiDocs(deps.version))
    .use(
      healthRoutes(
        deps.postgres ? createPostgresPing(deps.postgres) : createDbPing(deps.db),
        metrics,
        deps.version,
        { metricsToken: deps.config.metrics_token, disk: deps.disk },
      ),
    );
  for (const room of rooms) if (room.routes) app.use(room.routes);
  // The UI's catch-all goes last so every room's routes win over it.
  app.use(
    uiRoutes({
      dir: deps.config.ui_dir,
      hostPage: statusPages.ports.customDomainPage,
    }),
  );

  let stopRooms: (() => Promise<void>) | null = null;
  return {
    app,
    /** Every room's jobs, as data (start() registers them). */
    jobs: rooms.flatMap((room) => room.jobs),
    /** Starts the rooms' jobs and subscriptions, then listens; returns the bound port (port 0 works). */
    start(options: StartOptions): number {
      stopRooms = startRooms(rooms, deps);
      // Elysia asks Bun for SO_REUSEPORT by default: a second server on the port would then
      // start too and the kernel would split connections between them. Weir wants EADDRINUSE.
      app.listen({
        port: options.port,
        hostname: options.hostname,
        reusePort: false,
        maxRequestBodySize: SERVER_BODY_LIMIT,
      });
      const port = app.server?.port;
      if (port === undefined) throw new Error("server did not start");
      // Joining the cluster is asynchronous (a single node has nothing to join); until this node
      // leads, its cluster-wide jobs skip their runs.
      deps.cluster
        .start()
        .catch((error) => deps.logger.error("joining the cluster failed", { error }));
      // The rooms' jobs were registered above; none fires before the app serves.
      deps.scheduler.start();
      deps.bus.publish("server.started", { baseUrl: deps.config.base_url, port });
      return port;
    },
    /**
     * Tells the rooms the server is stopping (live sockets close), lets in-flight requests
     * finish, then stops the rooms in reverse order.
     */
    async stop(): Promise<void> {
      deps.bus.publish("server.stopping", {});
      await app.stop();
      await stopRooms?.();
      stopRooms = null;
      await deps.cluster.stop();
    },
  };
}

export type WeirApp = ReturnType<typeof createApp>;
