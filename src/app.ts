import { apiKeyRoutes } from "./auth/api-keys.routes.ts";
import { createAuthRoom } from "./auth/auth.room.ts";
import { authRoutes } from "./auth/auth.routes.ts";
import { memberRoutes } from "./auth/members.routes.ts";
import { CAPTURE_PREFIXES } from "./capture/capture.model.ts";
import { createCaptureRoom } from "./capture/capture.room.ts";
import { captureRoutes } from "./capture/capture.routes.ts";
import type { AppDeps } from "./deps.ts";
import { endpointsRoutes } from "./endpoints/endpoints.routes.ts";
import { healthRoutes } from "./http/health.routes.ts";
import { SERVER_BODY_LIMIT } from "./http/http.body-limit.ts";
import { createMetrics } from "./http/http.metrics.ts";
import { apiDocs } from "./http/http.openapi.ts";
import { createHttpBase } from "./http/http.server.ts";
import { uiRoutes } from "./http/ui.routes.ts";
import { createRealtimeRoom } from "./realtime/realtime.room.ts";
import { realtimeRoutes } from "./realtime/realtime.routes.ts";

export interface StartOptions {
  port: number;
  hostname: string;
}

/** The composition root: mounts every room on the HTTP base. Two apps may run in one process. */
export function createApp(deps: AppDeps) {
  const metrics = createMetrics();
  const authRoom = createAuthRoom(deps);
  // Other rooms may take over capture answers through captureRoom.service.setResponseOverride.
  const captureRoom = createCaptureRoom(deps);
  const auth = authRoom.auth;
  const app = createHttpBase({
    ids: deps.ids,
    logger: deps.logger,
    metrics,
    maxJsonBytes: deps.config.max_json_bytes,
    rawBodyPrefixes: CAPTURE_PREFIXES,
  })
    .use(apiDocs(deps.version))
    .use(
      healthRoutes(deps.db.sqlite, metrics, deps.version, {
        metricsToken: deps.config.metrics_token,
      }),
    )
    .use(authRoutes(authRoom))
    .use(apiKeyRoutes(authRoom))
    .use(memberRoutes(authRoom))
    .use(realtimeRoutes({ hub: createRealtimeRoom(deps).hub, auth }))
    .use(endpointsRoutes(deps, { auth }))
    .use(captureRoutes(captureRoom))
    // The UI's catch-all goes last so every room's routes win over it.
    .use(uiRoutes({ dir: deps.config.ui_dir }));

  return {
    app,
    /** Starts listening; resolves to the bound port (useful with port 0). */
    start(options: StartOptions): number {
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
      // Jobs are registered while the rooms are built; none fires before the app serves.
      deps.scheduler.start();
      deps.bus.publish("server.started", { baseUrl: deps.config.base_url, port });
      return port;
    },
    /** Stops accepting requests and lets in-flight ones finish. */
    async stop(): Promise<void> {
      deps.bus.publish("server.stopping", {});
      await app.stop();
    },
  };
}

export type WeirApp = ReturnType<typeof createApp>;
