import type { Incident, PageComponent, PageMonitor, StatusPage } from "./status-pages.model.ts";

/** The API's status page (decisions.md §9, §15): settings, then what it shows. */
export function presentPage(
  page: StatusPage,
  shown: { monitors: (PageMonitor & { status: string })[]; components: PageComponent[] },
  baseUrl: string,
) {
  return {
    id: page.id,
    name: page.name,
    slug: page.slug,
    description: page.description,
    logo_url: page.logoUrl,
    primary_color: page.primaryColor,
    show_service_branding: page.showServiceBranding,
    allow_subscribers: page.allowSubscribers,
    custom_domain: page.customDomain,
    groups: page.groups,
    public_url: `${baseUrl}/status/${page.slug}`,
    monitors: shown.monitors.map((m) => ({
      monitor_id: m.monitorId,
      display_name: m.displayName,
      display_order: m.displayOrder,
      group: m.group,
      status: m.status,
    })),
    components: shown.components.map(presentComponent),
    inserted_at: page.createdAt,
    updated_at: page.updatedAt,
  };
}

export function presentComponent(c: PageComponent) {
  return {
    id: c.id,
    status_page_id: c.statusPageId,
    ...(c.kind === "bridge" ? { bridge_id: c.targetId } : { destination_id: c.targetId }),
    display_name: c.displayName,
    display_order: c.displayOrder,
    group: c.group,
  };
}

export function presentAttached(pageId: string, m: PageMonitor) {
  return {
    status_page_id: pageId,
    monitor_id: m.monitorId,
    display_name: m.displayName,
    display_order: m.displayOrder,
    group: m.group,
  };
}

export function presentIncident(incident: Incident) {
  return {
    id: incident.id,
    status_page_id: incident.statusPageId,
    title: incident.title,
    impact: incident.impact,
    status: incident.status,
    monitor_ids: incident.monitorIds,
    updates: incident.updates.map((u) => ({
      id: u.id,
      status: u.status,
      message: u.message,
      created_at: u.createdAt,
    })),
    created_at: incident.createdAt,
    updated_at: incident.updatedAt,
    resolved_at: incident.resolvedAt,
  };
}
