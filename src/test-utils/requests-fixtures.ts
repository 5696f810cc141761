import { type CapturedRequest, headersFromPairs } from "../capture/capture.model.ts";
import { createRequestsRepo } from "../capture/requests.repo.ts";
import type { Db } from "../db/db.open.ts";
import { createEndpointsRepo } from "../endpoints/endpoints.repo.ts";

const encoder = new TextEncoder();

/** An organization row straight in the database, for repo and service tests without the auth room. */
export function insertOrganization(db: Db, id: string, plan = "team"): void {
  db.sqlite.run(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
    [id, `org ${id}`, plan, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
  );
}

/** An active endpoint row of `organizationId` (null: anonymous). */
export function insertEndpoint(
  db: Db,
  fields: { id: string; organizationId: string | null; slug?: string; forwardUrl?: string },
): void {
  createEndpointsRepo(db).insert({
    id: fields.id,
    organizationId: fields.organizationId,
    name: `endpoint ${fields.id}`,
    slug: fields.slug ?? `slug-${fields.id}`.toLowerCase(),
    status: "active",
    response: null,
    forwardUrl: fields.forwardUrl ?? null,
    verification: null,
    anonymousTokenHash: null,
    expiresAt: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
}

/** A captured request with sensible defaults; `body` text is stored as UTF-8 bytes. */
export function makeCapturedRequest(
  fields: Partial<Omit<CapturedRequest, "body">> & {
    id: string;
    endpointId: string;
    body?: Uint8Array | string;
  },
): CapturedRequest {
  const body = typeof fields.body === "string" ? encoder.encode(fields.body) : fields.body;
  const bytes = body ?? encoder.encode('{"hello":"world"}');
  // The two header views agree, as capture makes them: the object is derived from the pairs.
  const rawHeaders: [string, string][] =
    fields.rawHeaders ??
    (fields.headers ? Object.entries(fields.headers) : [["content-type", "application/json"]]);
  return {
    method: "POST",
    path: "",
    queryString: "",
    contentType: "application/json",
    remoteIp: "127.0.0.1",
    status: 200,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...fields,
    headers: headersFromPairs(rawHeaders),
    rawHeaders,
    body: bytes,
    size: bytes.byteLength,
  };
}

/** Stores a captured request through the requests repo and returns it. */
export function insertCapturedRequest(
  db: Db,
  fields: Parameters<typeof makeCapturedRequest>[0],
): CapturedRequest {
  const request = makeCapturedRequest(fields);
  createRequestsRepo(db).insert(request);
  return request;
}
