import type { CapturedRequest, RequestRow, WebhookReceived } from "../lib/types.ts";

/** A list row from a live event: what is known until the full request is read. */
export function rowFromEvent(event: WebhookReceived): RequestRow {
  const contentType = event.headers["content-type"] ?? null;
  const size =
    event.body_size ??
    (event.body_encoding === "base64"
      ? Math.floor((event.body.length * 3) / 4) - (event.body.match(/=+$/)?.[0].length ?? 0)
      : new TextEncoder().encode(event.body).byteLength);
  return {
    id: event.request_id,
    debug_endpoint_id: event.endpoint_id,
    method: event.method,
    path: "",
    query_string: "",
    headers: event.headers,
    raw_headers: Object.entries(event.headers),
    body: event.body,
    body_encoding: event.body_encoding ?? "utf8",
    content_type: contentType,
    size,
    remote_ip: null,
    status: event.status,
    created_at: event.timestamp,
    partial: true,
    body_truncated: event.body_truncated === true,
  };
}

/** Newest first: by creation time, then by id (UUIDv7 ids sort by time too). */
function newestFirst(a: RequestRow, b: RequestRow): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Merges incoming rows into the list: one row per id, a full request replacing a partial one
 * (never the other way round), newest first. Returns the same array when nothing changed.
 */
export function mergeRequests(
  current: RequestRow[],
  incoming: Array<RequestRow | CapturedRequest>,
): RequestRow[] {
  if (incoming.length === 0) return current;
  const byId = new Map(current.map((row) => [row.id, row]));
  let changed = false;
  for (const row of incoming) {
    const existing = byId.get(row.id);
    const isPartial = (row as RequestRow).partial === true;
    if (existing && (isPartial || existing === row)) continue;
    byId.set(row.id, row);
    changed = true;
  }
  return changed ? [...byId.values()].sort(newestFirst) : current;
}

/** The newest id of the list, for catch-up after a reconnect (UUIDv7 ids sort by time). */
export function newestId(rows: RequestRow[]): string | undefined {
  let newest: string | undefined;
  for (const row of rows) if (newest === undefined || row.id > newest) newest = row.id;
  return newest;
}
