/** A status page's own settings (decisions.md §9, §15). */
export interface StatusPage {
  id: string;
  organizationId: string;
  name: string;
  slug: string;
  description: string | null;
  logoUrl: string | null;
  primaryColor: string;
  showServiceBranding: boolean;
  /** Offers "Get updates by email" (status-pages.subscribers.*). */
  allowSubscribers: boolean;
  customDomain: string | null;
  groups: PageGroup[];
  createdAt: string;
  updatedAt: string;
}

export interface PageGroup {
  name: string;
  order: number;
}

/** A monitor as a page shows it. */
export interface PageMonitor {
  monitorId: string;
  displayName: string | null;
  displayOrder: number;
  group: string | null;
}

export const COMPONENT_KINDS = ["bridge", "destination"] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/** A bridge or destination a page shows by its delivery health. */
export interface PageComponent {
  id: string;
  statusPageId: string;
  kind: ComponentKind;
  targetId: string;
  displayName: string | null;
  displayOrder: number;
  group: string | null;
}

export const IMPACTS = ["none", "minor", "major", "critical"] as const;
export const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;
export type Impact = (typeof IMPACTS)[number];
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

export interface IncidentUpdate {
  id: string;
  status: IncidentStatus;
  message: string;
  createdAt: string;
}

export interface Incident {
  id: string;
  statusPageId: string;
  title: string;
  impact: Impact;
  status: IncidentStatus;
  monitorIds: string[];
  updates: IncidentUpdate[];
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}

export const NAME_MAX = 255;
export const SLUG_MIN = 3;
export const SLUG_MAX = 50;
export const SLUG_PATTERN = "^[a-z0-9-]+$";
export const COLOR_PATTERN = "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$";
export const DEFAULT_COLOR = "#a855f7";
/** A DNS name with at least two labels and a letter-led top label: no IP literal, no port. */
export const HOSTNAME_PATTERN =
  "^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$";
export const GROUP_NAME_MAX = 100;
export const TEXT_MAX = 5000;

/** `https://x.example/logo.png` yes; `javascript:` or a relative path no. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The host of a `Host` header: lower case, without a port. */
export function hostOf(header: string | null): string | null {
  if (!header) return null;
  const host = header.trim().toLowerCase();
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}
