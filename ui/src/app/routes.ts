import { type ComponentChildren, h } from "preact";
import { ActionsPage } from "../actions/actions.page.tsx";
import { AlertRulePage } from "../alerts/alert-rule.page.tsx";
import { AlertRulesPage } from "../alerts/alert-rules.page.tsx";
import { EndpointSettingsPage } from "../capture/endpoint-settings.page.tsx";
import { EndpointsPage } from "../capture/endpoints.page.tsx";
import { InspectorPage } from "../capture/inspector.page.tsx";
import { DashboardPage } from "../dashboard/dashboard.page.tsx";
import { EventPage } from "../events/event.page.tsx";
import { EventsPage } from "../events/events.page.tsx";
import { IssuePage } from "../issues/issue.page.tsx";
import { IssuesPage } from "../issues/issues.page.tsx";
import { MonitorPage } from "../monitors/monitor.page.tsx";
import { MonitorsPage } from "../monitors/monitors.page.tsx";
import { BridgePage } from "../routing/bridge.page.tsx";
import { BridgesPage } from "../routing/bridges.page.tsx";
import { SecretsPage } from "../routing/secrets.page.tsx";
import { SourcePage } from "../routing/source.page.tsx";
import { SourcesPage } from "../routing/sources.page.tsx";
import { TransformationPage } from "../routing/transformation.page.tsx";
import { TransformationsPage } from "../routing/transformations.page.tsx";
import { SettingsPage } from "../settings/settings.page.tsx";
import { MaintenancePage } from "../status-pages/maintenance.page.tsx";
import { StatusPagePage } from "../status-pages/status-page.page.tsx";
import { StatusPagesPage } from "../status-pages/status-pages.page.tsx";
import { matchPath } from "./match-path.ts";

export type Area =
  | "dashboard"
  | "capture"
  | "sources"
  | "bridges"
  | "events"
  | "issues"
  | "alerts"
  | "monitors"
  | "status-pages"
  | "transformations"
  | "secrets"
  | "settings";

export interface Route {
  /** `/bridges/:id`: a `:name` segment matches one path segment. */
  path: string;
  area: Area;
  title: string;
  page: (params: Record<string, string>) => ComponentChildren;
}

/** The one route table: what each path shows, its navigation area and its document title. */
export const ROUTES: Route[] = [
  { path: "/", area: "dashboard", title: "Dashboard", page: () => h(DashboardPage, {}) },
  { path: "/endpoints", area: "capture", title: "Endpoints", page: () => h(EndpointsPage, {}) },
  {
    path: "/endpoints/:id",
    area: "capture",
    title: "Inspector",
    page: (p) => h(InspectorPage, { endpointId: p.id ?? "", key: p.id }),
  },
  {
    path: "/endpoints/:id/settings",
    area: "capture",
    title: "Endpoint settings",
    page: (p) => h(EndpointSettingsPage, { endpointId: p.id ?? "", key: p.id }),
  },
  {
    path: "/endpoints/:id/actions",
    area: "capture",
    title: "Actions",
    page: (p) => h(ActionsPage, { endpointId: p.id ?? "", key: p.id }),
  },
  { path: "/sources", area: "sources", title: "Sources", page: () => h(SourcesPage, {}) },
  {
    path: "/sources/:id",
    area: "sources",
    title: "Source",
    page: (p) => h(SourcePage, { sourceId: p.id ?? "", key: p.id }),
  },
  { path: "/bridges", area: "bridges", title: "Bridges", page: () => h(BridgesPage, {}) },
  {
    path: "/bridges/:id",
    area: "bridges",
    title: "Bridge",
    page: (p) => h(BridgePage, { bridgeId: p.id ?? "", key: p.id }),
  },
  { path: "/events", area: "events", title: "Events", page: () => h(EventsPage, {}) },
  {
    path: "/events/:id",
    area: "events",
    title: "Event",
    page: (p) => h(EventPage, { eventId: p.id ?? "", key: p.id }),
  },
  { path: "/issues", area: "issues", title: "Issues", page: () => h(IssuesPage, {}) },
  {
    path: "/issues/:id",
    area: "issues",
    title: "Issue",
    page: (p) => h(IssuePage, { issueId: p.id ?? "", key: p.id }),
  },
  { path: "/monitors", area: "monitors", title: "Monitors", page: () => h(MonitorsPage, {}) },
  {
    path: "/monitors/:id",
    area: "monitors",
    title: "Monitor",
    page: (p) => h(MonitorPage, { monitorId: p.id ?? "", key: p.id }),
  },
  {
    path: "/status-pages",
    area: "status-pages",
    title: "Status pages",
    page: () => h(StatusPagesPage, {}),
  },
  {
    path: "/status-pages/:id",
    area: "status-pages",
    title: "Status page",
    page: (p) => h(StatusPagePage, { pageId: p.id ?? "", key: p.id }),
  },
  {
    path: "/maintenance",
    area: "status-pages",
    title: "Maintenance windows",
    page: () => h(MaintenancePage, {}),
  },
  {
    path: "/alert-rules",
    area: "alerts",
    title: "Alert rules",
    page: () => h(AlertRulesPage, {}),
  },
  {
    path: "/alert-rules/:id",
    area: "alerts",
    title: "Alert rule",
    page: (p) => h(AlertRulePage, { ruleId: p.id ?? "", key: p.id }),
  },
  {
    path: "/transformations",
    area: "transformations",
    title: "Transformations",
    page: () => h(TransformationsPage, {}),
  },
  {
    path: "/transformations/:id",
    area: "transformations",
    title: "Transformation",
    page: (p) => h(TransformationPage, { transformationId: p.id ?? "", key: p.id }),
  },
  { path: "/secrets", area: "secrets", title: "Secrets", page: () => h(SecretsPage, {}) },
  { path: "/settings", area: "settings", title: "Settings", page: () => h(SettingsPage, {}) },
];

/** The navigation, in reading order: one entry per area. */
export const NAV: { area: Area; href: string; label: string }[] = [
  { area: "dashboard", href: "/", label: "Dashboard" },
  { area: "capture", href: "/endpoints", label: "Endpoints" },
  { area: "sources", href: "/sources", label: "Sources" },
  { area: "bridges", href: "/bridges", label: "Bridges" },
  { area: "events", href: "/events", label: "Events" },
  { area: "issues", href: "/issues", label: "Issues" },
  { area: "monitors", href: "/monitors", label: "Monitors" },
  { area: "status-pages", href: "/status-pages", label: "Status pages" },
  { area: "alerts", href: "/alert-rules", label: "Alert rules" },
  { area: "transformations", href: "/transformations", label: "Transformations" },
  { area: "secrets", href: "/secrets", label: "Secrets" },
  { area: "settings", href: "/settings", label: "Settings" },
];

/** The route for `path` and its parameters, or null for an unknown path. */
export const matchRoute = (path: string) => matchPath(path, ROUTES);
