// Email subscribers of a status page: limits, and the mails as plain text. Pure.
import type { Incident, IncidentUpdate, StatusPage } from "./status-pages.model.ts";
import type { ScheduledMaintenance } from "./status-pages.ports.ts";

export const SMTP_NOT_CONFIGURED =
  "email updates need the server's mail settings: the operator sets WEIR_SMTP_URL and WEIR_SMTP_FROM";

/** Subscribe requests a page takes per minute, from everyone together. */
export const SUBSCRIBES_PER_PAGE_PER_MINUTE = 20;
/** At most one confirmation mail per address (and page) in this long. */
export const CONFIRMATION_INTERVAL_MS = 3_600_000;
/** A status mail is retried this many times (an SMTP server may refuse for a while). */
export const MAIL_MAX_RETRIES = 8;

export type MailKind =
  | "confirm"
  | "incident"
  | "incident_update"
  | "maintenance"
  | "maintenance_started";

export interface Mail {
  subject: string;
  body: string;
}

export interface Subscriber {
  id: string;
  statusPageId: string;
  email: string;
  linkBase: string;
  confirmedAt: string | null;
  confirmationSentAt: string | null;
  createdAt: string;
}

const oneLine = (text: string) => text.replace(/[\r\n]+/g, " ").trim();

/** The links every mail of a page carries. */
export interface MailLinks {
  page: string;
  unsubscribe: string;
}

const footer = (links: MailLinks) =>
  `\n-- \n${links.page}\nStop these mails: ${links.unsubscribe}\n`;

export function confirmationMail(page: StatusPage, confirmUrl: string): Mail {
  return {
    subject: oneLine(`Confirm updates from ${page.name}`),
    body: [
      `Someone (hopefully you) asked for updates from ${page.name} by email.`,
      "",
      `Confirm within 48 hours: ${confirmUrl}`,
      "",
      "If it was not you, ignore this mail: nothing more will be sent.",
      "",
    ].join("\n"),
  };
}

const STATUS_WORDS: Record<string, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
};

/** An incident's opening (`first`) or a later update, as one mail. */
export function incidentMail(
  page: StatusPage,
  incident: Incident,
  update: IncidentUpdate,
  links: MailLinks,
): Mail {
  const status = STATUS_WORDS[update.status] ?? update.status;
  const opening = incident.updates[0]?.id === update.id;
  const prefix = opening ? "New incident" : status;
  return {
    subject: oneLine(`[${page.name}] ${prefix}: ${incident.title}`),
    body: `${incident.title}\n${status} (${update.createdAt})\n\n${update.message}\n${footer(links)}`,
  };
}

const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** A new maintenance window touching the page's monitors: when, and what it says. */
export function maintenanceMail(
  page: StatusPage,
  window: ScheduledMaintenance,
  links: MailLinks,
): Mail {
  const when =
    window.startsAt && window.endsAt
      ? `From ${utc(window.startsAt)} to ${utc(window.endsAt)}`
      : `Recurring: ${window.cron ?? ""} (${window.timezone ?? "UTC"}), ${window.durationMinutes ?? 0} minutes each time`;
  const description = window.description ? `\n${window.description}\n` : "";
  return {
    subject: oneLine(`[${page.name}] Scheduled maintenance: ${window.title}`),
    body: `${window.title}\n${when}\n${description}${footer(links)}`,
  };
}

/** An occurrence of a maintenance window has started on monitors the page shows. */
export function maintenanceStartedMail(
  page: StatusPage,
  occurrence: { title: string; description: string | null; starts_at: string; ends_at: string },
  links: MailLinks,
): Mail {
  const description = occurrence.description ? `\n${occurrence.description}\n` : "";
  return {
    subject: oneLine(`[${page.name}] Maintenance started: ${occurrence.title}`),
    body: `${occurrence.title}\nFrom ${utc(occurrence.starts_at)} to ${utc(occurrence.ends_at)}\n${description}${footer(links)}`,
  };
}

/**
 * A fixed-window counter per key (a page), in memory: a restart forgets it, which costs at most
 * one window's allowance. Old windows are dropped as new ones start, so the map stays small.
 */
export function createWindowLimiter(limit: number, windowMs: number) {
  const counts = new Map<string, { window: number; count: number }>();
  return {
    /** Counts one request; false when the key has used its allowance for this window. */
    take(key: string, now: number): boolean {
      const window = Math.floor(now / windowMs);
      const entry = counts.get(key);
      if (!entry || entry.window !== window) {
        if (counts.size > 10_000) {
          for (const [k, v] of counts) if (v.window !== window) counts.delete(k);
        }
        counts.set(key, { window, count: 1 });
        return true;
      }
      entry.count += 1;
      return entry.count <= limit;
    },
  };
}

/** A CSV cell that a spreadsheet will not run as a formula. */
export function csvCell(value: string | null): string {
  if (value === null) return "";
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
