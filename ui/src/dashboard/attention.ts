/** What the dashboard picks out of the lists it reads. Pure, so it is tested without a server. */

/** Monitors that are down first, then degraded; at most `limit`. */
export function troubledMonitors<T extends { status: string }>(monitors: T[], limit: number): T[] {
  const rank = (s: string) => (s === "down" ? 0 : s === "degraded" ? 1 : 2);
  return monitors
    .filter((m) => rank(m.status) < 2)
    .sort((a, b) => rank(a.status) - rank(b.status))
    .slice(0, limit);
}

/** Endpoints that received a request since the start of today (local time), latest first. */
export function receivingToday<T extends { last_request_at: string | null }>(
  endpoints: T[],
  now: Date,
  limit: number,
): T[] {
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  return endpoints
    .filter((e) => e.last_request_at !== null && Date.parse(e.last_request_at) >= midnight)
    .sort((a, b) => Date.parse(b.last_request_at ?? "") - Date.parse(a.last_request_at ?? ""))
    .slice(0, limit);
}

/** How many monitors a maintenance window covers now: they are neither up nor troubled. */
export const inMaintenance = (monitors: { status: string }[]) =>
  monitors.filter((m) => m.status === "maintenance").length;
