/** A header as sent or received: name (case kept) and value, in order, repeats kept. */
export type HeaderPair = readonly [string, string];

/**
 * Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus Host and the
 * length: the sender sets those itself for the connection it opens, so no caller can pass them on.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

/**
 * The caller's headers minus hop-by-hop ones, those a `Connection` header names, and every
 * `proxy-*` header: those address a proxy on the way in (credentials for a proxy in front of
 * Weir included), never the target.
 */
export function endToEndHeaders(headers: readonly HeaderPair[]): HeaderPair[] {
  const named = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) named.add(token.trim().toLowerCase());
  }
  return headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return !HOP_BY_HOP_HEADERS.has(lower) && !lower.startsWith("proxy-") && !named.has(lower);
  });
}

/** Methods whose requests carry a body by definition: an empty one is sent as `Content-Length: 0`. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * Everything written on the wire for one request, in order: Host (from the URL), the caller's
 * end-to-end headers, `Authorization: Basic` when the URL carries credentials (it replaces one
 * the caller passed: the URL's owner asked for it), and Content-Length when there is a body.
 * Nothing else: no user-agent, accept or accept-encoding of a client library.
 */
export function wireHeaders(
  url: URL,
  method: string,
  headers: readonly HeaderPair[],
  bodyLength: number,
): HeaderPair[] {
  const credentials = basicCredentials(url);
  let kept = endToEndHeaders(headers);
  if (credentials) kept = kept.filter(([name]) => name.toLowerCase() !== "authorization");
  const wire: HeaderPair[] = [["Host", url.host], ...kept];
  if (credentials) wire.push(["Authorization", `Basic ${credentials}`]);
  if (bodyLength > 0 || BODY_METHODS.has(method.toUpperCase())) {
    wire.push(["Content-Length", String(bodyLength)]);
  }
  return wire;
}

/** `user:password` of the URL, percent-decoded, in base64; null when it has none. */
function basicCredentials(url: URL): string | null {
  if (!url.username && !url.password) return null;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return Buffer.from(pair, "utf8").toString("base64");
}

/** The URL without user:password, as it may be stored and shown. */
export function withoutCredentials(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

/** Received pairs as one object: lowercased names, repeated headers joined with ", " (§6). */
export function headerRecord(pairs: readonly HeaderPair[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    record[lower] = lower in record ? `${record[lower]}, ${value}` : value;
  }
  return record;
}
