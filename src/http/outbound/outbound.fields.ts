import type { HeaderPair } from "./outbound.headers.ts";

/**
 * The header fields of an answer that decide how its body is framed (RFC 9112 §6), and the
 * checks on each header line. Pure.
 */

/** A malformed or unframeable answer: classified `network_error` / `invalid_response`. */
export class InvalidResponseError extends Error {
  readonly code = "invalid_response";
  override name = "InvalidResponseError";
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface Framing {
  contentLength: number | null;
  /** The last transfer coding, lowercased; null without Transfer-Encoding. */
  transferEncoding: string | null;
  close: boolean;
  /** `Keep-Alive: timeout=N` in milliseconds: how long the server keeps an idle connection. */
  idleMs: number | null;
}

/** Content-Length (checked), the last transfer coding and `Connection: close` of a head. */
export function framingOf(headers: HeaderPair[]): Framing {
  const lengths: string[] = [];
  const codings: string[] = [];
  let close = false;
  let idleMs: number | null = null;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === "keep-alive") idleMs = keepAliveTimeout(value) ?? idleMs;
    if (lower === "content-length") lengths.push(...value.split(",").map((v) => v.trim()));
    else if (lower === "transfer-encoding") codings.push(...tokens(value));
    else if (lower === "connection" && tokens(value).includes("close")) close = true;
  }
  return {
    contentLength: lengthOf(lengths),
    transferEncoding: codings.length > 0 ? (codings.at(-1) as string) : null,
    close,
    idleMs,
  };
}

/** The `timeout` parameter of a Keep-Alive header (seconds) in milliseconds; null without one. */
function keepAliveTimeout(value: string): number | null {
  const match = /(?:^|[,;\s])timeout\s*=\s*"?(\d{1,9})"?/i.exec(value);
  return match ? Number(match[1]) * 1000 : null;
}

/** RFC 9110 §8.6: repeated lengths must agree; anything but digits is not a length. */
function lengthOf(values: string[]): number | null {
  if (values.length === 0) return null;
  const first = values[0] as string;
  if (!/^\d{1,15}$/.test(first) || values.some((value) => value !== first)) {
    throw new InvalidResponseError(`bad Content-Length: ${shorten(values.join(", "))}`);
  }
  return Number(first);
}

function tokens(value: string): string[] {
  return value
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== "");
}

/** One header line as a pair; a line a strict parser would read differently is refused. */
export function headerPair(line: string): HeaderPair {
  const colon = line.indexOf(":");
  const name = colon > 0 ? line.slice(0, colon) : "";
  // No obs-fold, no space before the colon, no control characters: each is a smuggling vector.
  if (!TOKEN.test(name)) throw new InvalidResponseError(`bad header line: ${shorten(line)}`);
  const value = line.slice(colon + 1).replace(/^[\t ]+|[\t ]+$/g, "");
  if (!FIELD_VALUE.test(value)) throw new InvalidResponseError(`bad value of header ${name}`);
  return [name, value];
}

/** Text of a bad answer, short enough for a message. */
export function shorten(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
