import type { VerificationStatus } from "../verification/verification.model.ts";
import { type CapturedRequest, headersFromPairs } from "./capture.model.ts";
import type { capturedRequests } from "./capture.table.ts";

// The one mapping between a CapturedRequest and its `captured_requests` row, both ways: the
// capture hot path's batched INSERT, the requests repo's single INSERT and every read use it.

/** The columns of an INSERT, in the order `pushValues` appends them. */
export const COLUMNS = `(id, endpoint_id, method, path, query_string, raw_headers, body,
  content_type, size, remote_ip, status, created_at, verification_status, verification_reason)`;
/** One row's placeholders, for COLUMNS. */
export const ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/**
 * Appends a request's column values, in COLUMNS order (header pairs as JSON, body as bytes).
 * The header object is not stored: `requestFromRow` derives it from the pairs.
 */
export function pushValues(values: unknown[], r: CapturedRequest): void {
  values.push(
    r.id,
    r.endpointId,
    r.method,
    r.path,
    r.queryString,
    JSON.stringify(r.rawHeaders),
    r.body,
    r.contentType,
    r.size,
    r.remoteIp,
    r.status,
    r.createdAt,
    // not_configured is stored as NULL: nothing to keep for most captures.
    r.verification && r.verification.status !== "not_configured" ? r.verification.status : null,
    r.verification?.reason ?? null,
  );
}

/** A selected row (drizzle's names), as the request it stores. */
export function requestFromRow(
  row: Omit<typeof capturedRequests.$inferSelect, "body"> & { body: Uint8Array },
): CapturedRequest {
  const rawHeaders = JSON.parse(row.rawHeaders) as [string, string][];
  return {
    id: row.id,
    endpointId: row.endpointId,
    method: row.method,
    path: row.path,
    queryString: row.queryString,
    headers: headersFromPairs(rawHeaders),
    rawHeaders,
    body: new Uint8Array(row.body.buffer, row.body.byteOffset, row.body.byteLength),
    contentType: row.contentType,
    size: row.size,
    remoteIp: row.remoteIp,
    status: row.status,
    createdAt: row.createdAt,
    // Absent when not configured, as at capture time.
    ...(row.verificationStatus && {
      verification: {
        status: row.verificationStatus as VerificationStatus,
        reason: row.verificationReason,
      },
    }),
  };
}
