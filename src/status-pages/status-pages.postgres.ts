import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type {
  ComponentKind,
  PageComponent,
  PageGroup,
  PageMonitor,
  StatusPage,
} from "./status-pages.model.ts";
import type { PageWriteOutcome, StatusPagesStore } from "./status-pages.store.ts";

type Row = Record<string, unknown>;

const pageOfRow = (r: Row): StatusPage => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  slug: r.slug as string,
  description: r.description as string | null,
  logoUrl: r.logo_url as string | null,
  primaryColor: r.primary_color as string,
  showServiceBranding: r.show_service_branding === 1,
  allowSubscribers: r.allow_subscribers === 1,
  customDomain: r.custom_domain as string | null,
  groups: JSON.parse(r.groups as string) as PageGroup[],
  createdAt: r.created_at as string,
  updatedAt: r.updated_at as string,
});

const componentOfRow = (r: Row): PageComponent => ({
  id: r.id as string,
  statusPageId: r.status_page_id as string,
  kind: r.kind as ComponentKind,
  targetId: r.target_id as string,
  displayName: r.display_name as string | null,
  displayOrder: r.display_order as number,
  group: r.group_name as string | null,
});

/** The unique indexes of migrations/postgres, by the outcome a collision with each one gives. */
const TAKEN: Record<string, PageWriteOutcome> = {
  status_pages_slug_unique: "slug_taken",
  status_pages_custom_domain_unique: "domain_taken",
};

async function outcomeOf(write: () => Promise<unknown>): Promise<PageWriteOutcome> {
  try {
    await write();
    return "ok";
  } catch (error) {
    const { errno, constraint } = error as { errno?: string; constraint?: string };
    const taken = errno === "23505" && constraint ? TAKEN[constraint] : undefined;
    if (taken) return taken;
    throw error;
  }
}

/**
 * Status pages on PostgreSQL, answering as the SQLite repo does. Components of equal display
 * order keep the order they were added in through their ids (UUIDv7), where SQLite uses rowid.
 */
export function createStatusPagesPostgresStore(pg: PostgresDb): StatusPagesStore {
  const { sql } = pg;
  const one = (rows: Row[]) => (rows[0] ? pageOfRow(rows[0]) : null);
  return {
    insert: (p) =>
      outcomeOf(
        () => sql`
        INSERT INTO status_pages (id, organization_id, name, slug, description, logo_url,
          primary_color, show_service_branding, custom_domain, groups, allow_subscribers,
          created_at, updated_at)
        VALUES (${p.id}, ${p.organizationId}, ${p.name}, ${p.slug}, ${p.description}, ${p.logoUrl},
          ${p.primaryColor}, ${p.showServiceBranding ? 1 : 0}, ${p.customDomain},
          ${JSON.stringify(p.groups)}, ${p.allowSubscribers ? 1 : 0}, ${p.createdAt}, ${p.updatedAt})`,
      ),
    update: (p) =>
      outcomeOf(
        () => sql`
        UPDATE status_pages SET name = ${p.name}, slug = ${p.slug}, description = ${p.description},
          logo_url = ${p.logoUrl}, primary_color = ${p.primaryColor},
          show_service_branding = ${p.showServiceBranding ? 1 : 0},
          custom_domain = ${p.customDomain}, groups = ${JSON.stringify(p.groups)},
          allow_subscribers = ${p.allowSubscribers ? 1 : 0}, updated_at = ${p.updatedAt}
        WHERE organization_id = ${p.organizationId} AND id = ${p.id}`,
      ),
    find: async (organizationId, id) =>
      one(
        await sql`SELECT * FROM status_pages WHERE organization_id = ${organizationId} AND id = ${id}`,
      ),
    findBySlug: async (slug) => one(await sql`SELECT * FROM status_pages WHERE slug = ${slug}`),
    findByDomain: async (domain) =>
      one(await sql`SELECT * FROM status_pages WHERE custom_domain = ${domain}`),
    list: async (organizationId) =>
      (
        await sql`SELECT * FROM status_pages WHERE organization_id = ${organizationId}
          ORDER BY created_at DESC, id DESC`
      ).map(pageOfRow),
    remove: async (organizationId, id) =>
      (
        await sql`DELETE FROM status_pages WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING id`
      ).length > 0,
    monitors: async (pageId) =>
      (
        await sql`SELECT monitor_id, display_name, display_order, group_name
          FROM status_page_monitors WHERE status_page_id = ${pageId}
          ORDER BY display_order, monitor_id`
      ).map(
        (r: Row): PageMonitor => ({
          monitorId: r.monitor_id as string,
          displayName: r.display_name as string | null,
          displayOrder: r.display_order as number,
          group: r.group_name as string | null,
        }),
      ),
    async attach(pageId, m) {
      await sql`
        INSERT INTO status_page_monitors (status_page_id, monitor_id, display_name, display_order,
          group_name) VALUES (${pageId}, ${m.monitorId}, ${m.displayName}, ${m.displayOrder}, ${m.group})
        ON CONFLICT (status_page_id, monitor_id) DO UPDATE SET display_name = EXCLUDED.display_name,
          display_order = EXCLUDED.display_order, group_name = EXCLUDED.group_name`;
    },
    detach: async (pageId, monitorId) =>
      (
        await sql`DELETE FROM status_page_monitors
          WHERE status_page_id = ${pageId} AND monitor_id = ${monitorId} RETURNING monitor_id`
      ).length > 0,
    components: async (pageId) =>
      (
        await sql`SELECT * FROM status_page_components WHERE status_page_id = ${pageId}
          ORDER BY display_order, id`
      ).map(componentOfRow),
    async insertComponent(c) {
      await sql`
        INSERT INTO status_page_components (id, status_page_id, kind, target_id, display_name,
          display_order, group_name)
        VALUES (${c.id}, ${c.statusPageId}, ${c.kind}, ${c.targetId}, ${c.displayName},
          ${c.displayOrder}, ${c.group})`;
    },
    removeComponent: async (pageId, id) =>
      (
        await sql`DELETE FROM status_page_components WHERE status_page_id = ${pageId} AND id = ${id}
          RETURNING id`
      ).length > 0,
  };
}
