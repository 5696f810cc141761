import type { DayBar, Snapshot, SnapshotItem } from "./status-pages.snapshot.ts";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe inside an element or a quoted attribute: every user field goes through it. */
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const IMPACT_LABELS: Record<string, string> = {
  none: "No impact",
  minor: "Minor impact",
  major: "Major impact",
  critical: "Critical impact",
};
const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
const time = (iso: string) => `<time datetime="${escapeHtml(iso)}">${escapeHtml(utc(iso))}</time>`;
const percent = (value: number | null) => (value === null ? "no data" : `${value.toFixed(2)} %`);

function barClass(day: DayBar): string {
  if (day.percent === null) return "none";
  if (day.percent >= 99.9) return "up";
  if (day.percent >= 95) return "degraded";
  return "down";
}

function barTitle(item: SnapshotItem, day: DayBar): string {
  if (day.percent === null) return `${day.date}: no data`;
  if (item.kind !== "monitor") return `${day.date}: ${day.percent.toFixed(2)} % delivered`;
  return `${day.date}: ${day.percent.toFixed(2)} % uptime, ${day.downtime_minutes ?? 0} min down`;
}

function renderItem(item: SnapshotItem): string {
  const measure = item.kind === "monitor" ? "uptime" : "delivered";
  // A bar's title holds a date and numbers only (no user text): the 4,500 bars of a page of 50
  // monitors skip the escaping pass.
  let bars = "";
  for (const day of item.days) {
    bars += `<li class="bar ${barClass(day)}" title="${barTitle(item, day)}"></li>`;
  }
  return `<li class="item">
<div class="item-head"><span class="item-name">${escapeHtml(item.name)}</span> <span class="state s-${item.status}">${escapeHtml(item.status_label)}</span></div>
<ol class="bars" aria-hidden="true">${bars}</ol>
<p class="figure">${escapeHtml(percent(item.percent_90d))} ${measure} over the last 90 days</p>
</li>`;
}

function renderIncident(incident: Snapshot["incidents"]["active"][number]): string {
  const updates = [...incident.updates]
    .reverse()
    .map(
      (u) =>
        `<li><strong>${escapeHtml(capitalised(u.status))}</strong> ${time(u.created_at)}<p>${escapeHtml(u.message)}</p></li>`,
    )
    .join("");
  return `<article class="incident i-${incident.impact}">
<h3>${escapeHtml(incident.title)}</h3>
<p class="meta">${escapeHtml(IMPACT_LABELS[incident.impact] ?? incident.impact)}, ${escapeHtml(capitalised(incident.status))}</p>
<ol class="updates">${updates}</ol>
</article>`;
}

function renderMaintenance(title: string, windows: Snapshot["maintenance"]["active"]): string {
  if (windows.length === 0) return "";
  const items = windows
    .map(
      (w) =>
        `<li><strong>${escapeHtml(w.title)}</strong> ${time(w.starts_at)} to ${time(w.ends_at)}${w.description ? `<p>${escapeHtml(w.description)}</p>` : ""}</li>`,
    )
    .join("");
  return `<section class="maintenance"><h2>${title}</h2><ul>${items}</ul></section>`;
}

/** Where the page's own files are, whatever host it is served on. */
export const assetPath = (slug: string, file: string) =>
  `/status/${encodeURIComponent(slug)}/${file}`;

/**
 * The public page as HTML: complete without JavaScript, state always in words beside its
 * colour, styles from the page's stylesheet (no inline style or script: the CSP forbids both).
 */
export function renderPage(snapshot: Snapshot, subscribeForm = ""): string {
  const logo = snapshot.logo_url
    ? `<img class="logo" src="${escapeHtml(snapshot.logo_url)}" alt="" width="40" height="40">`
    : "";
  const groups = snapshot.groups
    .map((g) => {
      const heading = g.name === null ? "" : `<h2>${escapeHtml(g.name)}</h2>`;
      return `<section class="group">${heading}<ul class="items">${g.items.map(renderItem).join("")}</ul></section>`;
    })
    .join("");
  const active = snapshot.incidents.active;
  const resolved = snapshot.incidents.resolved;
  const description = snapshot.description
    ? `<p class="description">${escapeHtml(snapshot.description)}</p>`
    : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(snapshot.name)}: ${escapeHtml(snapshot.status_label)}</title>
<link rel="stylesheet" href="${escapeHtml(assetPath(snapshot.slug, "style.css"))}">
<link rel="alternate" type="application/atom+xml" title="${escapeHtml(snapshot.name)}" href="${escapeHtml(assetPath(snapshot.slug, "feed.atom"))}">
</head>
<body>
<header class="top">${logo}<h1>${escapeHtml(snapshot.name)}</h1></header>
<main>
${description}
<p class="banner o-${snapshot.status}" role="status">${escapeHtml(snapshot.status_label)}</p>
${active.length > 0 ? `<section class="incidents"><h2>Current incidents</h2>${active.map(renderIncident).join("")}</section>` : ""}
${renderMaintenance("Maintenance in progress", snapshot.maintenance.active)}
${groups || `<p class="empty">Nothing is shown on this page yet.</p>`}
${renderMaintenance("Scheduled maintenance", snapshot.maintenance.upcoming)}
${resolved.length > 0 ? `<section class="incidents past"><h2>Past incidents (14 days)</h2>${resolved.map(renderIncident).join("")}</section>` : ""}
${subscribeForm}
</main>
<footer><p>Last updated ${time(snapshot.updated_at)}</p>${snapshot.show_service_branding ? `<p class="branding">Powered by Weir</p>` : ""}</footer>
</body>
</html>
`;
}

/** The 404 of an unknown slug, in the same clothes. */
export function renderNotFound(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Status page not found</title>
</head>
<body>
<main><h1>Status page not found</h1><p>No status page has this address.</p></main>
</body>
</html>
`;
}
