import type { CapturedRequest } from "../capture/capture.model.ts";

/**
 * Largest body pushed on the socket, in bytes. Live views need the start of a body, not a
 * megabyte per subscriber per capture: past this the body is cut and flagged, and clients fetch
 * the whole request from the REST API (docs/realtime.md).
 */
export const PUSHED_BODY_LIMIT = 64 * 1024;

/**
 * The `webhook_received` payload. The seven fields of interface.md are always there, and are the
 * only ones for a UTF-8 body within the limit. Two cases need more, and only they add fields:
 * a non-UTF-8 body is sent base64 with `body_encoding: "base64"` (the REST API's convention), and
 * a cut body carries `body_truncated: true` with the full `body_size` in bytes.
 */
export interface WebhookReceived {
  request_id: string;
  endpoint_id: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** The status answered to the sender, as text. */
  status: string;
  /** ISO 8601 capture time. */
  timestamp: string;
  body_encoding?: "base64";
  body_truncated?: true;
  body_size?: number;
}

// ignoreBOM keeps a leading byte-order mark in the text: the body is shown as sent.
const UTF8_OPTIONS = { fatal: true, ignoreBOM: true } as const;
const utf8 = new TextDecoder("utf-8", UTF8_OPTIONS);

/** Builds the payload pushed to subscribers for one stored request. */
export function webhookReceived(
  request: CapturedRequest,
  bodyLimit = PUSHED_BODY_LIMIT,
): WebhookReceived {
  const truncated = request.body.byteLength > bodyLimit;
  const bytes = truncated ? request.body.subarray(0, bodyLimit) : request.body;
  const text = utf8Text(bytes, truncated);
  const payload: WebhookReceived = {
    request_id: request.id,
    endpoint_id: request.endpointId,
    method: request.method,
    headers: request.headers,
    body: text ?? Buffer.from(bytes).toString("base64"),
    status: String(request.status),
    timestamp: request.createdAt,
  };
  if (text === null) payload.body_encoding = "base64";
  if (truncated) {
    payload.body_truncated = true;
    payload.body_size = request.body.byteLength;
  }
  return payload;
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
