import { NOT_CONFIGURED, type VerificationResult } from "../verification/verification.model.ts";
import type { CapturedRequest } from "./capture.model.ts";
import { previewBody } from "./requests.model.ts";

export type BodyEncoding = "utf8" | "base64";

// ignoreBOM keeps a leading byte-order mark in the text, so the text is the bytes exactly.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A body as API text (decisions.md §6): the UTF-8 text when the bytes are valid UTF-8, else
 * base64 of the bytes. Either way the exact bytes can be recovered.
 */
export function bodyText(body: Uint8Array): { body: string; body_encoding: BodyEncoding } {
  try {
    return { body: strictUtf8.decode(body), body_encoding: "utf8" };
  } catch {
    return { body: Buffer.from(body).toString("base64"), body_encoding: "base64" };
  }
}

/** A captured request as both API families show it; `status` is text (interface.md). */
export function presentRequest(request: CapturedRequest) {
  return {
    id: request.id,
    debug_endpoint_id: request.endpointId,
    method: request.method,
    path: request.path,
    query_string: request.queryString,
    headers: request.headers,
    raw_headers: request.rawHeaders,
    ...bodyText(request.body),
    content_type: request.contentType,
    size: request.size,
    remote_ip: request.remoteIp,
    status: String(request.status),
    created_at: request.createdAt,
    verification: request.verification ?? NOT_CONFIGURED,
  };
}

/**
 * A captured request as lists show it (decisions.md §14): a body over 64 KiB is cut to its first
 * 64 KiB with `body_truncated: true` and `body_size`, the same cut as the socket's pushes.
 */
export function presentListedRequest(request: CapturedRequest): ListedRequest {
  const preview = previewBody(request.body, request.size);
  const presented: ListedRequest = {
    ...presentRequest({ ...request, body: EMPTY }),
    ...(preview.text === null
      ? { body: Buffer.from(preview.bytes).toString("base64"), body_encoding: "base64" }
      : { body: preview.text, body_encoding: "utf8" }),
  };
  if (preview.truncated) {
    presented.body_truncated = true;
    presented.body_size = preview.size;
  }
  return presented;
}

/** A request in a list: its body may be cut (then flagged, with the whole size). */
export type ListedRequest = ReturnType<typeof presentRequest> & {
  body_truncated?: boolean;
  body_size?: number;
};

const EMPTY = new Uint8Array(0);

/**
 * A captured request in API answers (both families, anonymous); the web UI reads this type.
 * `verification` is always answered; optional here so clients built before it still type-check.
 */
export type CapturedRequestJson = Omit<ListedRequest, "verification"> & {
  verification?: VerificationResult;
};
