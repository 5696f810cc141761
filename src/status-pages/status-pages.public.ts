import type { PublicBaseUrl } from "../http/http.public-url.ts";
import type { Clock } from "../shared/clock.ts";
import type { IncidentsStore } from "./incidents.store.ts";
import type { RenderCache } from "./status-pages.cache.ts";
import { FEED_DAYS, renderFeed } from "./status-pages.feed.ts";
import type { StatusPage } from "./status-pages.model.ts";
import type { StatusPagesReads } from "./status-pages.ports.ts";
import { buildSnapshot, INCIDENT_HISTORY_DAYS, type Snapshot } from "./status-pages.snapshot.ts";
import type { StatusPagesStore } from "./status-pages.store.ts";

export interface PublicDeps {
  repo: StatusPagesStore;
  incidents: IncidentsStore;
  reads: StatusPagesReads;
  clock: Clock;
  cache: RenderCache;
  publicBaseUrl: PublicBaseUrl;
  /** The "Get updates by email" form of a page that offers it; "" otherwise. */
  subscribeFormFor?(page: StatusPage): string;
}

export interface PublicView {
  page: StatusPage;
  snapshot: Snapshot;
}

const DAY_MS = 86_400_000;

async function build(page: StatusPage, deps: PublicDeps): Promise<PublicView> {
  const now = deps.clock.now();
  const monitors = await deps.repo.monitors(page.id);
  const onPage = new Set(monitors.map((m) => m.monitorId));
  const since = new Date(now - INCIDENT_HISTORY_DAYS * DAY_MS).toISOString();
  const snapshot = await buildSnapshot({
    page,
    monitors,
    components: await deps.repo.components(page.id),
    incidents: await deps.incidents.recent(page.id, since),
    reads: deps.reads,
    now,
  });
  // A maintenance window may name monitors this page does not show: they stay unnamed.
  const shown = (list: Snapshot["maintenance"]["active"]) =>
    list.map((w) => ({ ...w, monitor_ids: w.monitor_ids.filter((id) => onPage.has(id)) }));
  const { active, upcoming } = snapshot.maintenance;
  snapshot.maintenance = { active: shown(active), upcoming: shown(upcoming) };
  for (const list of [snapshot.incidents.active, snapshot.incidents.resolved]) {
    for (const incident of list) {
      incident.monitor_ids = incident.monitor_ids.filter((id) => onPage.has(id));
    }
  }
  return { page, snapshot };
}

/** The page at `slug` as the public sees it, built at most once per cache period; null: none. */
export function publicView(slug: string, deps: PublicDeps): Promise<PublicView | null> {
  const hit = deps.cache.peek<Promise<PublicView | null>>(slug, "view");
  if (hit) return hit;
  // The lookup and build are kept while they run, so requests meanwhile share them; a failed
  // one is not kept, and neither is a missing page (it may be created any moment).
  return deps.cache.memo(slug, "view", () =>
    deps.repo
      .findBySlug(slug)
      .then((page) => (page ? build(page, deps) : null))
      .then((view) => {
        if (!view) deps.cache.forget(slug);
        return view;
      })
      .catch((error) => {
        deps.cache.forget(slug);
        throw error;
      }),
  );
}

/** The page's Atom feed: the last 30 days of state changes, incident updates and maintenance. */
export async function feedOf(view: PublicView, pageUrl: string, deps: PublicDeps): Promise<string> {
  const now = deps.clock.now();
  const since = new Date(now - FEED_DAYS * DAY_MS).toISOString();
  const monitors = view.snapshot.groups.flatMap((g) => g.items).filter((i) => i.kind === "monitor");
  const ids = monitors.map((m) => m.id);
  const maintenance = deps.reads.maintenanceFor?.(
    view.page.organizationId,
    ids,
    new Date(now),
    FEED_DAYS,
  );
  return renderFeed({
    title: view.page.name,
    pageUrl,
    names: new Map(monitors.map((m) => [m.id, m.name])),
    changes: (await deps.reads.stateChanges?.(ids, since)) ?? [],
    incidents: await deps.incidents.recent(view.page.id, since),
    maintenance: [...(maintenance?.active ?? []), ...(maintenance?.recent ?? [])],
    now: new Date(now).toISOString(),
  });
}
