import type { CapturedRequest } from "../capture/capture.model.ts";
import { BODY_PREVIEW_LIMIT, previewBody } from "../capture/requests.model.ts";
import type { VerificationResult } from "../verification/verification.model.ts";

/**
 * Largest body pushed on the socket, in bytes: the lists' cut (docs/realtime.md). Clients fetch
 * the whole request from the REST API.
 */
export const PUSHED_BODY_LIMIT = BODY_PREVIEW_LIMIT;

/**
 * The `webhook_received` payload. The seven fields of interface.md are always there, and are the
 * only ones for a UTF-8 body within the limit on an endpoint that verifies no signature. Three
 * cases need more, and only they add fields: a non-UTF-8 body is sent base64 with
 * `body_encoding: "base64"` (the REST API's convention), a cut body carries `body_truncated: true`
 * with the full `body_size` in bytes, and an endpoint with a verification setting adds the
 * request's `verification` verdict.
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
  /** On endpoints with a verification setting: the signature verdict (decisions.md §15). */
  verification?: VerificationResult;
}

/** Builds the payload pushed to subscribers for one stored request. */
export function webhookReceived(
  request: CapturedRequest,
  bodyLimit = PUSHED_BODY_LIMIT,
): WebhookReceived {
  const { text, bytes, truncated, size } = previewBody(request.body, request.size, bodyLimit);
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
    payload.body_size = size;
  }
  if (request.verification && request.verification.status !== "not_configured")
    payload.verification = request.verification;
  return payload;
}
