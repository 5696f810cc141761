import { escapeHtml } from "./status-pages.html.ts";
import type { Incident } from "./status-pages.model.ts";
import type { MaintenanceOccurrence, StateChange } from "./status-pages.ports.ts";

export const FEED_DAYS = 30;

export interface FeedInput {
  title: string;
  pageUrl: string;
  /** Display names of the page's monitors, by id. */
  names: Map<string, string>;
  changes: StateChange[];
  incidents: Incident[];
  maintenance: MaintenanceOccurrence[];
  now: string;
}

interface Entry {
  id: string;
  title: string;
  updated: string;
  content: string;
}

const STATE_WORDS: Record<string, string> = {
  up: "up",
  down: "down",
  degraded: "degraded",
  pending: "pending",
  paused: "paused",
  maintenance: "under maintenance",
};

function entriesOf(input: FeedInput): Entry[] {
  const entries: Entry[] = [];
  for (const c of input.changes) {
    const name = input.names.get(c.monitor_id);
    if (!name) continue;
    entries.push({
      id: `${input.pageUrl}#change-${c.monitor_id}-${c.at}`,
      title: `${name} is ${STATE_WORDS[c.to] ?? c.to}`,
      updated: c.at,
      content: `${name} went from ${STATE_WORDS[c.from] ?? c.from} to ${STATE_WORDS[c.to] ?? c.to}.`,
    });
  }
  for (const incident of input.incidents) {
    for (const u of incident.updates) {
      entries.push({
        id: `urn:uuid:${u.id}`,
        title: `${incident.title}: ${u.status}`,
        updated: u.createdAt,
        content: u.message,
      });
    }
  }
  for (const w of input.maintenance) {
    entries.push({
      id: `${input.pageUrl}#maintenance-${w.window_id}-${w.starts_at}`,
      title: `Maintenance: ${w.title}`,
      updated: w.starts_at,
      content: `${w.starts_at} to ${w.ends_at}${w.description ? `. ${w.description}` : ""}`,
    });
  }
  return entries.sort((a, b) => b.updated.localeCompare(a.updated));
}

/** The page's Atom feed (RFC 4287): state changes, incident updates and maintenance. */
export function renderFeed(input: FeedInput): string {
  const entries = entriesOf(input);
  const updated = entries[0]?.updated ?? input.now;
  const body = entries
    .map(
      (e) => `<entry>
<id>${escapeHtml(e.id)}</id>
<title>${escapeHtml(e.title)}</title>
<updated>${escapeHtml(e.updated)}</updated>
<link rel="alternate" href="${escapeHtml(input.pageUrl)}"/>
<content type="text">${escapeHtml(e.content)}</content>
</entry>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${escapeHtml(input.pageUrl)}</id>
<title>${escapeHtml(input.title)}</title>
<updated>${escapeHtml(updated)}</updated>
<author><name>${escapeHtml(input.title)}</name></author>
<link rel="alternate" href="${escapeHtml(input.pageUrl)}"/>
<link rel="self" href="${escapeHtml(`${input.pageUrl}/feed.atom`)}"/>
${body}
</feed>
`;
}
