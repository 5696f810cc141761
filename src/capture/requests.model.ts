/**
 * Largest body shown in a list of requests or pushed on the socket, in bytes (decisions.md §14).
 * Lists and live views need the start of a body, not a megabyte per row: past this the body is
 * cut and flagged, and clients fetch the whole request (get-one, or the raw `…/body` download).
 */
export const BODY_PREVIEW_LIMIT = 64 * 1024;

/** A body as lists and the socket show it: at most `limit` bytes, as text when it is UTF-8. */
export interface BodyPreview {
  /** The UTF-8 text of the (cut) bytes, or null when they are not UTF-8. */
  text: string | null;
  /** The bytes shown: the whole body, or its first `limit` bytes. */
  bytes: Uint8Array;
  /** Set when the body was longer than `limit`. */
  truncated: boolean;
  /** The whole body's size in bytes. */
  size: number;
}

// ignoreBOM keeps a leading byte-order mark in the text: the body is shown as sent.
const UTF8_OPTIONS = { fatal: true, ignoreBOM: true } as const;
const utf8 = new TextDecoder("utf-8", UTF8_OPTIONS);

/**
 * The one cut of a body for lists and pushes. `body` may already be cut by the query that read
 * it (`size` then says how long the whole body is), so a page of large requests never loads them.
 */
export function previewBody(
  body: Uint8Array,
  size: number,
  limit = BODY_PREVIEW_LIMIT,
): BodyPreview {
  const whole = Math.max(size, body.byteLength);
  const bytes = body.byteLength > limit ? body.subarray(0, limit) : body;
  const truncated = bytes.byteLength < whole;
  return { text: utf8Text(bytes, truncated), bytes, truncated, size: whole };
}

/**
 * The bytes as text when they are UTF-8, else null. A cut body may end inside a character: the
 * streaming decode accepts that incomplete tail and drops it rather than calling the body binary.
 */
function utf8Text(bytes: Uint8Array, cut: boolean): string | null {
  try {
    return cut
      ? new TextDecoder("utf-8", UTF8_OPTIONS).decode(bytes, { stream: true })
      : utf8.decode(bytes);
  } catch {
    return null;
  }
}
