/** Human sizes: 0 B, 512 B, 1.5 KiB, 2.0 MiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "?";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** "just now", "5 s ago", "3 min ago", "2 h ago", "4 d ago"; older ones as a date; "in 2 min" ahead. */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return "never";
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "unknown";
  const seconds = Math.round((now - at) / 1000);
  // A time ahead, such as a delivery's next attempt.
  if (seconds <= -2) {
    const ahead = -seconds;
    if (ahead < 60) return `in ${ahead} s`;
    if (ahead < 3600) return `in ${Math.ceil(ahead / 60)} min`;
    if (ahead < 86_400) return `in ${Math.ceil(ahead / 3600)} h`;
    return `in ${Math.ceil(ahead / 86_400)} d`;
  }
  if (seconds < 2) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 7 * 86_400) return `${Math.floor(seconds / 86_400)} d ago`;
  return iso.slice(0, 10);
}

/** Local date and time with seconds and milliseconds, for detail views and tooltips. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

/** The full local date and time with its UTC offset, for tooltips: 2026-11-24 01:02:03.456 UTC+01:00. */
export function formatFullDate(iso: string | null | undefined): string {
  const local = formatTimestamp(iso);
  if (!iso || Number.isNaN(Date.parse(iso))) return local;
  const offset = -new Date(iso).getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${local} UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Query string → ordered pairs, keeping repeats and empty values. */
export function queryPairs(query: string): [string, string][] {
  const text = query.startsWith("?") ? query.slice(1) : query;
  if (!text) return [];
  return [...new URLSearchParams(text)];
}
