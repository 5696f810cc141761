import { Elysia } from "elysia";
import { createMailer } from "../alerts/alerts.mailer.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { RoomStorage, SharedDeps } from "../deps.ts";
import { type Room, type RoomJob, type RoomSubscription, subscription } from "../room.ts";
import { incidentsRoutes } from "./incidents.routes.ts";
import type { IncidentWrite } from "./incidents.service.ts";
import { createRenderCache, type RenderCache } from "./status-pages.cache.ts";
import {
  createDomainDirectory,
  customDomainPage,
  type DomainDirectory,
} from "./status-pages.domains.ts";
import { hostOf } from "./status-pages.model.ts";
import type {
  MaintenanceFor,
  ScheduledMaintenance,
  StatusPagesReads,
} from "./status-pages.ports.ts";
import type { PublicDeps } from "./status-pages.public.ts";
import { publicRoutes } from "./status-pages.public-routes.ts";
import { statusPageReportRoutes } from "./status-pages.report.routes.ts";
import { statusPagesRoutes } from "./status-pages.routes.ts";
import type { StatusPagesDeps } from "./status-pages.service.ts";
import {
  type MailDelivery,
  type SubscriberMails,
  statusPagesStorage,
} from "./status-pages.storage.ts";
import { subscribeForm } from "./status-pages.subscribers.html.ts";
import { subscriberApiRoutes, subscriberPublicRoutes } from "./status-pages.subscribers.routes.ts";
import { statusMailHandlers } from "./status-pages.subscribers.send.ts";
import { createSubscriberSigner } from "./status-pages.subscribers.tokens.ts";

export type StatusPagesRoomDeps = Pick<
  SharedDeps,
  "bus" | "clock" | "ids" | "publicBaseUrl" | "config" | "secretKey" | "logger"
> &
  RoomStorage;

export interface StatusPagesRoomPorts extends StatusPagesReads {
  guard: AuthPorts["guard"];
  /** Subscribers' mails are rows of the delivery outbox, kind "status_mail". */
  delivery: MailDelivery;
}

/** The subscriber mails' sweep: hourly, like the other retention sweeps, and once at start. */
export const STATUS_MAILS_RETENTION_JOB = "status-pages.mails-retention";
/** Announces maintenance that has started to subscribers: every minute. */
export const MAINTENANCE_STARTS_JOB = "status-pages.maintenance-starts";

/** How long a render is reused, and how many pages' renders are kept. */
export const RENDER_TTL_MS = 5_000;
const MAX_CACHED_PAGES = 500;

/** The host of `base_url`, when it is set: the app's own front door. */
function ownHostOf(baseUrl: string): string | null {
  if (baseUrl === "") return null;
  try {
    return hostOf(new URL(baseUrl).host);
  } catch {
    return null;
  }
}

/**
 * Builds the status pages room (decisions.md §9, §15): a read model over the monitors' rollups,
 * incidents, maintenance windows and delivery health, lent through ports. Renders are cached
 * per page for a few seconds; the room owns no timer.
 */
/** What the room lends: the front door of custom domains, for the app's `/`. */
export interface StatusPagesPorts {
  customDomainPage(request: Request): Promise<Response | undefined>;
  /** A maintenance window was created: subscribers of the pages it touches are owed a mail. */
  maintenanceScheduled(tx: TxHandle, window: ScheduledMaintenance): void;
  /** The same on PostgreSQL, in the window's transaction there. */
  maintenanceScheduledPostgres(tx: PostgresTx, window: ScheduledMaintenance): Promise<void>;
}

/**
 * Empties this node's renders of a page written on any node (the cluster bridge carries the
 * event), and its custom-domain lookups, whose host may have moved.
 */
export function forgetChangedPages(cache: RenderCache, domains: DomainDirectory): RoomSubscription {
  return subscription("status_page.changed", ({ slug }) => {
    cache.forget(slug);
    domains.forget();
  });
}

/** The subscriber mails' jobs: the retention sweep, and announcing maintenance starts. */
function subscriberJobs(mails: SubscriberMails, maintenanceFor: MaintenanceFor | undefined) {
  const jobs: RoomJob[] = [
    {
      name: STATUS_MAILS_RETENTION_JOB,
      scope: "cluster",
      pattern: "0 * * * *",
      runNow: true,
      run: () => mails.sweep(() => new Promise<void>((resolve) => setImmediate(resolve))),
    },
  ];
  if (maintenanceFor) {
    jobs.push({
      name: MAINTENANCE_STARTS_JOB,
      scope: "cluster",
      pattern: "0 * * * * *",
      run: () => mails.announceStarts(maintenanceFor),
    });
  }
  return jobs;
}

export function createStatusPagesRoom(
  deps: StatusPagesRoomDeps,
  ports: StatusPagesRoomPorts,
): Room<StatusPagesPorts> {
  const { guard, delivery, ...reads } = ports;
  const mailer = createMailer(deps.config.smtp_url, deps.config.smtp_from);
  const signer = createSubscriberSigner(deps.secretKey);
  const storage = statusPagesStorage(
    deps,
    { signer, clock: deps.clock, ids: deps.ids, logger: deps.logger, plans: deps.config.plans },
    delivery,
  );
  const cache = createRenderCache({
    ttlMs: RENDER_TTL_MS,
    maxPages: MAX_CACHED_PAGES,
    now: () => deps.clock.now(),
  });
  const domains = createDomainDirectory(
    async (host) => (await storage.pages.findByDomain(host))?.slug ?? null,
  );
  const pages: StatusPagesDeps = {
    repo: storage.pages,
    reads,
    clock: deps.clock,
    ids: deps.ids,
    smtpConfigured: mailer !== null,
    // Forgotten here at once (a room not yet started hears no bus), then told to every node.
    pageChanged: (page) => {
      cache.forget(page.slug);
      domains.forget();
      deps.bus.publish("status_page.changed", { statusPageId: page.id, slug: page.slug });
    },
  };
  delivery.registerKind(
    "status_mail",
    statusMailHandlers(
      { store: storage.subscribers, pages: storage.pages, signer, clock: deps.clock },
      mailer,
    ),
  );
  // Without the operator's mail server no page offers mail.
  const mails = mailer !== null ? storage.mails : null;
  const subscriberRoutes = {
    guard,
    pages: storage.pages,
    subscribers: { store: storage.subscribers, signer, clock: deps.clock },
    subscribe: mails?.subscribe ?? null,
    publicBaseUrl: deps.publicBaseUrl,
    smtpConfigured: mails !== null,
  };
  const publicDeps: PublicDeps = {
    repo: storage.pages,
    incidents: storage.incidents,
    reads,
    clock: deps.clock,
    cache,
    publicBaseUrl: deps.publicBaseUrl,
    subscribeFormFor: (page) =>
      mails && page.allowSubscribers
        ? subscribeForm(page.slug, signer.sign("form", page.id, deps.clock.now()))
        : "",
  };
  const commitUpdate = (write: IncidentWrite) => storage.mails.commitUpdate(write, mails !== null);
  const routes = new Elysia()
    .use(statusPagesRoutes({ guard, pages, publicBaseUrl: deps.publicBaseUrl }))
    .use(
      incidentsRoutes({
        guard,
        incidents: { ...pages, incidents: storage.incidents, commitUpdate },
      }),
    )
    .use(statusPageReportRoutes({ guard, deps: { ...pages, incidents: storage.incidents } }))
    .use(subscriberApiRoutes(subscriberRoutes))
    .use(subscriberPublicRoutes(subscriberRoutes))
    .use(publicRoutes(publicDeps));
  return {
    routes,
    jobs: subscriberJobs(storage.mails, mails ? reads.maintenanceFor : undefined),
    subscriptions: [forgetChangedPages(cache, domains)],
    stop: () => {},
    ports: {
      customDomainPage: customDomainPage(publicDeps, domains, ownHostOf(deps.config.base_url)),
      maintenanceScheduled: (tx, window) => mails?.maintenanceScheduled?.(tx, window),
      maintenanceScheduledPostgres: async (tx, window) =>
        mails?.maintenanceScheduledPostgres?.(tx, window),
    },
  };
}
