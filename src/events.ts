import type { ActionResult } from "./actions/actions.model.ts";
import type { CapturedRequest, CaptureTarget } from "./capture/capture.model.ts";
import type { DeliveryAttempt, DeliveryRecord } from "./delivery/delivery.ports.ts";
import type { Bus } from "./shared/bus.ts";

/**
 * Domain events carried by the in-process bus, by name. Rooms talk through these so that, for
 * example, capture never imports realtime. Each room adds the events it publishes here.
 */
export interface DomainEvents {
  "server.started": { baseUrl: string; port: number };
  "server.stopping": Record<string, never>;
  /** A capture was durably committed (published in capture order, after the commit). */
  "request.captured": { request: CapturedRequest; endpoint: CaptureTarget };
  /**
   * An endpoint was deleted: gone for every reader and sender at once (its requests are drained
   * in the background); live subscribers of it should be told.
   */
  "endpoint.deleted": { endpointId: string; organizationId: string | null };
  /** An endpoint's name, status, custom response or forward target changed (caches of it are stale). */
  "endpoint.updated": { endpointId: string; organizationId: string | null; slug: string };
  /** A user's membership of an organization was removed or its role changed (live sessions re-check). */
  "membership.changed": { userId: string; organizationId: string };
  /**
   * Deliveries that may go now were committed on `node` (PostgreSQL): the other nodes' outboxes
   * claim at once rather than at their next poll.
   */
  "delivery.due": { node: string };
  /** A delivery attempt (or a circuit_open wait) was committed with the delivery's new state. */
  "delivery.attempted": { delivery: DeliveryRecord; attempt: DeliveryAttempt };
  /** An endpoint's action chain ran on a captured request and its run was recorded. */
  "actions.completed": { endpointId: string; requestId: string; results: ActionResult[] };
  /** An API key was revoked; sockets opened with it must close. */
  "api_key.revoked": { apiKeyId: string; organizationId: string };
  /**
   * A status page, or something it shows (components, incidents), was written: every node's
   * renders of the page and its custom-domain lookups are stale.
   */
  "status_page.changed": { statusPageId: string; slug: string };
  /**
   * A source, bridge or destination was written (a secret rotation included): every node's
   * route plans and prepared destinations are stale.
   */
  "routes.changed": Record<string, never>;
  /** A maintenance window of the organization was created, changed or deleted. */
  "maintenance.changed": { organizationId: string };
}

/** The app's bus: typed by the events above. */
export type AppBus = Bus<DomainEvents>;
