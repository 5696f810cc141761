import { type HeaderPair, wireHeaders } from "./outbound.headers.ts";

/** A request that cannot be written as HTTP/1.1: classified `network_error` / `invalid_request`. */
export class InvalidRequestError extends Error {
  readonly code = "invalid_request";
  override name = "InvalidRequestError";
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A field value: visible ASCII, space, tab and latin1 octets. CR and LF above all: a caller's
// header (a captured request's, a user's template) must never start a header or request of its own.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The bytes of one request, head and body in one buffer (one socket write): the request line,
 * the wire headers of `wireHeaders` in order, then `Connection: keep-alive`, the one header the
 * sender adds for its own connection management.
 */
export function requestBytes(
  url: URL,
  method: string,
  headers: readonly HeaderPair[],
  body: Uint8Array,
): Uint8Array {
  if (!TOKEN.test(method))
    throw new InvalidRequestError(`invalid method ${JSON.stringify(method)}`);
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const [name, value] of wireHeaders(url, method, headers, body.byteLength)) {
    if (!TOKEN.test(name)) {
      throw new InvalidRequestError(`invalid header name ${JSON.stringify(name)}`);
    }
    if (!FIELD_VALUE.test(value)) {
      throw new InvalidRequestError(`invalid character in the value of header ${name}`);
    }
    head += `${name}: ${value}\r\n`;
  }
  head += "Connection: keep-alive\r\n\r\n";
  const headLength = Buffer.byteLength(head, "latin1");
  const bytes = Buffer.allocUnsafe(headLength + body.byteLength);
  bytes.write(head, 0, "latin1");
  bytes.set(body, headLength);
  return bytes;
}

/** A string body as UTF-8, bytes as they are; nothing for none. */
export function bodyBytes(body: Uint8Array | string | null | undefined): Uint8Array {
  if (body === undefined || body === null) return new Uint8Array(0);
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}
