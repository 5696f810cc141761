/** What the latency column says of an event: done in `ms`, running for `ms`, or nothing. */
export type Latency = { ms: number; running: boolean } | null;

/**
 * From receipt to the last delivery's success (`completed_at`), or to now while pending; events
 * that were filtered, failed or never sent have none.
 */
export function latencyOf(
  event: { status: string; created_at: string; completed_at: string | null },
  now: number,
): Latency {
  const start = Date.parse(event.created_at);
  if (event.status === "delivered" && event.completed_at) {
    return { ms: Math.max(0, Date.parse(event.completed_at) - start), running: false };
  }
  if (event.status === "pending") return { ms: Math.max(0, now - start), running: true };
  return null;
}

/** A duration as people read it: "85 ms", "1.2 s", "4 min 5 s", "3 h 20 min", "2 d 4 h". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const [m, h, d] = [Math.floor(s / 60), Math.floor(s / 3600), Math.floor(s / 86_400)];
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
