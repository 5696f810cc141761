import type { CapturedRequest } from "../lib/types.ts";

/** Headers curl sets itself or that describe the old connection: copying them would lie. */
const SKIPPED = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-connection",
  "accept-encoding",
]);

/** Quotes for a POSIX shell: one single-quoted word, `'` written as `'\''`. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The URL a captured request was sent to: the capture URL, then the request's sub-path after
 * the slug (`path`, "" when none, decisions.md §6) and its query.
 */
export function requestUrl(
  request: Pick<CapturedRequest, "path" | "query_string">,
  webhookUrl: string,
): string {
  const query = request.query_string ? `?${request.query_string.replace(/^\?/, "")}` : "";
  return `${webhookUrl.replace(/\/+$/, "")}${request.path}${query}`;
}

/**
 * A curl command that sends the same request again: method, URL, headers in their received
 * order (minus hop-by-hop ones), body byte for byte (a binary body goes through base64 -d).
 */
export function toCurl(
  request: Pick<
    CapturedRequest,
    "method" | "path" | "query_string" | "raw_headers" | "body" | "body_encoding"
  >,
  webhookUrl: string,
): string {
  const lines = [
    `curl -X ${shellQuote(request.method)} ${shellQuote(requestUrl(request, webhookUrl))}`,
  ];
  for (const [name, value] of request.raw_headers) {
    if (!SKIPPED.has(name.toLowerCase())) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (request.body === "") return lines.join(" \\\n  ");
  if (request.body_encoding === "base64") {
    lines.push("--data-binary @-");
    return `printf %s ${shellQuote(request.body)} | base64 -d | ${lines.join(" \\\n  ")}`;
  }
  lines.push(`--data-binary ${shellQuote(request.body)}`);
  return lines.join(" \\\n  ");
}
