import type { HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { DeliveryAttempt, SentRequest } from "./delivery.ports.ts";

/** How much of a sent body an attempt keeps, as for the answer's body. */
export const SENT_BODY_LIMIT = 65_536;

const encoder = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * The request an attempt sent as it is stored: every header Weir wrote and the first 64 KiB of the
 * body, with `conceal` applied to header values and a text body, so a secret filled in for the
 * wire never reaches the database.
 */
export function sentRequest(
  headers: readonly HeaderPair[],
  body: Uint8Array | string,
  conceal: (text: string) => string,
  bodyIsSubject = false,
): SentRequest {
  const shownHeaders = headers.map(([name, value]) => [name, conceal(value)] as const);
  if (bodyIsSubject) {
    const size = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
    return { headers: shownHeaders, ...subjectBody(size) };
  }
  return { headers: shownHeaders, ...sentBody(body, conceal) };
}

/** A body the record does not keep: the subject's own, shown from the subject when read. */
const subjectBody = (size: number) => ({
  body: null,
  bodyEncoding: "utf8" as const,
  bodyTruncated: size > SENT_BODY_LIMIT,
  bodySize: size,
});

/** A body as a sent request shows it: its first 64 KiB, text or base64, concealed. */
export function sentBody(
  body: Uint8Array | string,
  conceal: (text: string) => string,
): Pick<SentRequest, "bodyEncoding" | "bodyTruncated" | "bodySize"> & { body: string } {
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const truncated = bytes.byteLength > SENT_BODY_LIMIT;
  const text = utf8Prefix(bytes, truncated);
  return {
    body:
      text === null
        ? Buffer.from(bytes.subarray(0, SENT_BODY_LIMIT)).toString("base64")
        : conceal(text),
    bodyEncoding: text === null ? "base64" : "utf8",
    bodyTruncated: truncated,
    bodySize: bytes.byteLength,
  };
}

/**
 * The body's first 64 KiB as text, or null when it is not UTF-8. A cut may split a character:
 * up to three bytes are given back before the body counts as binary.
 */
function utf8Prefix(bytes: Uint8Array, truncated: boolean): string | null {
  const end = truncated ? SENT_BODY_LIMIT : bytes.byteLength;
  for (let back = 0; back <= (truncated ? 3 : 0); back++) {
    try {
      return strict.decode(bytes.subarray(0, end - back));
    } catch {
      // Try one byte shorter: the cut fell inside a character.
    }
  }
  return null;
}

type RecordedFields = Omit<DeliveryAttempt, "id" | "deliveryId" | "attempt" | "createdAt">;

/**
 * An attempt's recorded fields with every concealed value hidden: the URL (a secret host, path or
 * bot token), the error message (a DNS failure names the host) and the answer (it may echo a header).
 */
export function concealedFields(
  fields: RecordedFields,
  conceal: (text: string) => string,
): RecordedFields {
  return {
    ...fields,
    url: conceal(fields.url),
    responseHeaders: fields.responseHeaders.map(([name, value]) => [name, conceal(value)] as const),
    responseBody: conceal(fields.responseBody),
    errorMessage: fields.errorMessage === null ? null : conceal(fields.errorMessage),
  };
}
