import type { Db } from "../db/db.open.ts";
import type {
  ComponentKind,
  PageComponent,
  PageGroup,
  PageMonitor,
  StatusPage,
} from "./status-pages.model.ts";

interface PageRow {
  id: string;
  organization_id: string;
  name: string;
  slug: string;
  description: string | null;
  logo_url: string | null;
  primary_color: string;
  show_service_branding: number;
  allow_subscribers: number;
  custom_domain: string | null;
  groups: string;
  created_at: string;
  updated_at: string;
}

interface MonitorRow {
  monitor_id: string;
  display_name: string | null;
  display_order: number;
  group_name: string | null;
}

interface ComponentRow extends Omit<MonitorRow, "monitor_id"> {
  id: string;
  status_page_id: string;
  kind: string;
  target_id: string;
}

const pageOfRow = (r: PageRow): StatusPage => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  slug: r.slug,
  description: r.description,
  logoUrl: r.logo_url,
  primaryColor: r.primary_color,
  showServiceBranding: r.show_service_branding === 1,
  allowSubscribers: r.allow_subscribers === 1,
  customDomain: r.custom_domain,
  groups: JSON.parse(r.groups) as PageGroup[],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const componentOfRow = (r: ComponentRow): PageComponent => ({
  id: r.id,
  statusPageId: r.status_page_id,
  kind: r.kind as ComponentKind,
  targetId: r.target_id,
  displayName: r.display_name,
  displayOrder: r.display_order,
  group: r.group_name,
});

/** Is this SQLite error a UNIQUE violation on `column`? */
export const uniqueViolation = (error: unknown, column: string) =>
  error instanceof Error &&
  error.message.includes("UNIQUE constraint failed") &&
  error.message.includes(`.${column}`);

/** The pages' own rows, their monitors and components; every query is org-scoped or by slug. */
export function createStatusPagesRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO status_pages (id, organization_id, name, slug, description, logo_url,
       primary_color, show_service_branding, custom_domain, groups, allow_subscribers, created_at,
       updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = sqlite.prepare(
    `UPDATE status_pages SET name = ?, slug = ?, description = ?, logo_url = ?, primary_color = ?,
       show_service_branding = ?, custom_domain = ?, groups = ?, allow_subscribers = ?,
       updated_at = ?
     WHERE organization_id = ? AND id = ?`,
  );
  const byId = sqlite.prepare<PageRow, [string, string]>(
    "SELECT * FROM status_pages WHERE organization_id = ? AND id = ?",
  );
  const bySlug = sqlite.prepare<PageRow, [string]>("SELECT * FROM status_pages WHERE slug = ?");
  const byDomain = sqlite.prepare<PageRow, [string]>(
    "SELECT * FROM status_pages WHERE custom_domain = ?",
  );
  const list = sqlite.prepare<PageRow, [string]>(
    "SELECT * FROM status_pages WHERE organization_id = ? ORDER BY created_at DESC, id DESC",
  );
  const remove = sqlite.prepare("DELETE FROM status_pages WHERE organization_id = ? AND id = ?");
  const monitors = sqlite.prepare<MonitorRow, [string]>(
    `SELECT monitor_id, display_name, display_order, group_name FROM status_page_monitors
     WHERE status_page_id = ? ORDER BY display_order, rowid`,
  );
  const attach = sqlite.prepare(
    `INSERT INTO status_page_monitors (status_page_id, monitor_id, display_name, display_order,
       group_name) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (status_page_id, monitor_id) DO UPDATE SET display_name = ?3,
       display_order = ?4, group_name = ?5`,
  );
  const detach = sqlite.prepare(
    "DELETE FROM status_page_monitors WHERE status_page_id = ? AND monitor_id = ?",
  );
  const components = sqlite.prepare<ComponentRow, [string]>(
    "SELECT * FROM status_page_components WHERE status_page_id = ? ORDER BY display_order, rowid",
  );
  const insertComponent = sqlite.prepare(
    `INSERT INTO status_page_components (id, status_page_id, kind, target_id, display_name,
       display_order, group_name) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const removeComponent = sqlite.prepare(
    "DELETE FROM status_page_components WHERE status_page_id = ? AND id = ?",
  );
  const pageColumns = (page: StatusPage) =>
    [
      page.name,
      page.slug,
      page.description,
      page.logoUrl,
      page.primaryColor,
      page.showServiceBranding ? 1 : 0,
      page.customDomain,
      JSON.stringify(page.groups),
      page.allowSubscribers ? 1 : 0,
    ] as const;

  return {
    insert(page: StatusPage) {
      const [name, slug, ...rest] = pageColumns(page);
      insert.run(page.id, page.organizationId, name, slug, ...rest, page.createdAt, page.updatedAt);
    },
    update(page: StatusPage) {
      update.run(...pageColumns(page), page.updatedAt, page.organizationId, page.id);
    },
    find(organizationId: string, id: string): StatusPage | null {
      const row = byId.get(organizationId, id);
      return row ? pageOfRow(row) : null;
    },
    findBySlug(slug: string): StatusPage | null {
      const row = bySlug.get(slug);
      return row ? pageOfRow(row) : null;
    },
    findByDomain(domain: string): StatusPage | null {
      const row = byDomain.get(domain);
      return row ? pageOfRow(row) : null;
    },
    list: (organizationId: string) => list.all(organizationId).map(pageOfRow),
    remove: (organizationId: string, id: string) => remove.run(organizationId, id).changes > 0,
    monitors: (pageId: string): PageMonitor[] =>
      monitors.all(pageId).map((r) => ({
        monitorId: r.monitor_id,
        displayName: r.display_name,
        displayOrder: r.display_order,
        group: r.group_name,
      })),
    attach(pageId: string, monitor: PageMonitor) {
      attach.run(
        pageId,
        monitor.monitorId,
        monitor.displayName,
        monitor.displayOrder,
        monitor.group,
      );
    },
    detach: (pageId: string, monitorId: string) => detach.run(pageId, monitorId).changes > 0,
    components: (pageId: string) => components.all(pageId).map(componentOfRow),
    insertComponent(c: PageComponent) {
      insertComponent.run(
        c.id,
        c.statusPageId,
        c.kind,
        c.targetId,
        c.displayName,
        c.displayOrder,
        c.group,
      );
    },
    removeComponent: (pageId: string, id: string) => removeComponent.run(pageId, id).changes > 0,
  };
}

export type StatusPagesRepo = ReturnType<typeof createStatusPagesRepo>;
