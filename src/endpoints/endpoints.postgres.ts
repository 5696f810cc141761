import type { SQL } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { verificationColumn, verificationOf } from "../verification/verification.settings.ts";
import { customResponseOf, responseColumns } from "./endpoints.columns.ts";
import {
  type DrainingEndpoint,
  type Endpoint,
  type EndpointStatus,
  NO_REFUSALS,
} from "./endpoints.model.ts";
import type {
  EndpointCap,
  EndpointChanges,
  EndpointStats,
  EndpointsStore,
  InsertOutcome,
  NewEndpoint,
} from "./endpoints.store.ts";

interface EndpointRow {
  id: string;
  organization_id: string | null;
  name: string;
  slug: string;
  status: EndpointStatus;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  response_delay_ms: number;
  forward_url: string | null;
  verification: string | null;
  anonymous_token_hash: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The endpoints store on PostgreSQL: the same statements as the SQLite repo, with the same
 * results (ids and timestamps as text compared bytewise: the schema collates them "C").
 */
export function createEndpointsPostgresStore(pg: PostgresDb): EndpointsStore {
  const { sql } = pg;
  const firstEndpoint = (rows: EndpointRow[]) => (rows[0] ? toEndpoint(rows[0]) : null);
  const markDeleted = async (id: string, organizationId: string | null, nowIso: string) => {
    // The slug is freed by one no slug lookup can meet ('/' never appears in a slug).
    const rows = await sql`
      UPDATE debug_endpoints
         SET deleted_at = ${nowIso}, updated_at = ${nowIso}, slug = 'deleted/' || id,
             request_count = 0, drain_pending = 1
       WHERE id = ${id} AND deleted_at IS NULL
         AND ${organizationId === null ? sql`organization_id IS NULL` : sql`organization_id = ${organizationId}`}
       RETURNING id`;
    return rows.length > 0;
  };

  return {
    findInOrganization: async (id, organizationId) =>
      firstEndpoint(
        await sql`SELECT * FROM debug_endpoints
          WHERE id = ${id} AND organization_id = ${organizationId} AND deleted_at IS NULL`,
      ),
    findById: async (id) =>
      firstEndpoint(
        await sql`SELECT * FROM debug_endpoints WHERE id = ${id} AND deleted_at IS NULL`,
      ),
    findBySlug: async (slug) =>
      firstEndpoint(
        await sql`SELECT * FROM debug_endpoints WHERE slug = ${slug} AND deleted_at IS NULL`,
      ),
    async listForOrganization(organizationId) {
      const rows: EndpointRow[] = await sql`SELECT * FROM debug_endpoints
        WHERE organization_id = ${organizationId} AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC`;
      return rows.map(toEndpoint);
    },
    insert: (draft) => sql.begin((tx) => insertCounted(tx, draft)),
    async update(id, organizationId, changes) {
      return firstEndpoint(
        await sql`UPDATE debug_endpoints SET ${sql(changeColumns(changes))}
          WHERE id = ${id} AND organization_id = ${organizationId} AND deleted_at IS NULL
          RETURNING *`,
      );
    },
    delete: (id, organizationId, nowIso) => markDeleted(id, organizationId, nowIso),
    async listExpiredAnonymous(nowIso, limit) {
      const rows: { id: string }[] = await sql`SELECT id FROM debug_endpoints
        WHERE organization_id IS NULL AND expires_at IS NOT NULL AND expires_at <= ${nowIso}
          AND deleted_at IS NULL
        ORDER BY expires_at, id LIMIT ${limit}`;
      return rows.map((row) => row.id);
    },
    deleteAnonymous: (id, nowIso) => markDeleted(id, null, nowIso),
    async clearRequests(id, freshId, nowIso) {
      // The mark is the newest of: a fresh id, the newest stored id (should the clock have gone
      // back) and an earlier mark (marks never move back).
      const rows = await sql`
        UPDATE debug_endpoints
           SET cleared_through_id = GREATEST(${freshId}::text COLLATE "C",
                 coalesce(cleared_through_id, ''),
                 coalesce((SELECT r.id FROM captured_requests r WHERE r.endpoint_id = ${id}
                            ORDER BY r.id DESC LIMIT 1), '')),
               request_count = 0, drain_pending = 1, updated_at = ${nowIso}
         WHERE id = ${id} AND deleted_at IS NULL
         RETURNING id`;
      return rows.length > 0;
    },
    async listDraining(limit) {
      const rows: DrainingEndpoint[] = await sql`
        SELECT id AS "endpointId", deleted_at IS NOT NULL AS deleted,
               cleared_through_id AS "clearedThroughId"
          FROM debug_endpoints WHERE drain_pending = 1 ORDER BY id LIMIT ${limit}`;
      return [...rows];
    },
    stats: (endpointIds) => statsOf(sql, endpointIds),
  };
}

/**
 * Ends an endpoint's drain inside the PostgreSQL transaction `tx` that deleted its last hidden
 * request: a deleted endpoint's row goes; an emptied one is done unless emptied again meanwhile.
 */
export async function finishDrainOnPostgres(tx: SQL, endpoint: DrainingEndpoint): Promise<void> {
  if (endpoint.deleted) {
    await tx`DELETE FROM debug_endpoints WHERE id = ${endpoint.endpointId} AND deleted_at IS NOT NULL`;
    return;
  }
  await tx`UPDATE debug_endpoints SET drain_pending = 0
    WHERE id = ${endpoint.endpointId} AND deleted_at IS NULL
      AND cleared_through_id IS NOT DISTINCT FROM ${endpoint.clearedThroughId}::text`;
}

async function insertCounted(tx: SQL, draft: NewEndpoint): Promise<InsertOutcome> {
  if (draft.cap && (await capReached(tx, draft.cap))) return { refused: "limit_reached" };
  for (let attempt = 0; ; attempt++) {
    const slug = draft.slugFor(attempt);
    if (slug === null) return { refused: "slug_taken" };
    const endpoint: Endpoint = { ...draft.endpoint, slug };
    // A slug taken by a concurrent insert waits for it, then does nothing: "taken", as on SQLite.
    const inserted = await tx`INSERT INTO debug_endpoints ${tx(toRow(endpoint))}
      ON CONFLICT (slug) DO NOTHING RETURNING id`;
    if (inserted.length > 0) return { inserted: endpoint };
  }
}

/**
 * Counts under a transaction lock of the cap's own key: at READ COMMITTED two inserts would
 * otherwise both count below the limit and both insert. The lock ends with the transaction.
 */
async function capReached(tx: SQL, cap: EndpointCap): Promise<boolean> {
  const key =
    "organizationId" in cap ? `weir.endpoints.cap:${cap.organizationId}` : "weir.endpoints.cap:";
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
  const [row] =
    "organizationId" in cap
      ? await tx`SELECT count(*) AS n FROM debug_endpoints
          WHERE organization_id = ${cap.organizationId} AND deleted_at IS NULL`
      : await tx`SELECT count(*) AS n FROM debug_endpoints
          WHERE organization_id IS NULL AND expires_at > ${cap.anonymousAliveAt}
            AND deleted_at IS NULL`;
  return Number(row.n) >= cap.limit;
}

/**
 * The count is the endpoint's own counter; the newest request is the highest id above an
 * empty's mark, through the (endpoint_id, id) index: one row each, never a scan.
 */
async function statsOf(sql: SQL, endpointIds: string[]): Promise<Map<string, EndpointStats>> {
  const rows: {
    id: string;
    request_count: string | number;
    last_request_at: string | null;
    rate_limited: string | number | null;
    too_large: string | number | null;
    last_refused_at: string | null;
    refused: boolean;
  }[] =
    endpointIds.length === 0
      ? []
      : await sql`
        SELECT e.id, e.request_count,
               (SELECT r.created_at FROM captured_requests r
                 WHERE r.endpoint_id = e.id AND r.id > coalesce(e.cleared_through_id, '')
                 ORDER BY r.id DESC LIMIT 1) AS last_request_at,
               f.endpoint_id IS NOT NULL AS refused, f.rate_limited, f.too_large, f.last_refused_at
          FROM debug_endpoints e LEFT JOIN capture_refusals f ON f.endpoint_id = e.id
         WHERE e.id IN ${sql(endpointIds)}`;
  const found = new Map(rows.map((row) => [row.id, row]));
  const result = new Map<string, EndpointStats>();
  for (const endpointId of endpointIds) {
    const row = found.get(endpointId);
    result.set(endpointId, {
      requestCount: row ? Number(row.request_count) : 0,
      lastRequestAt: row?.last_request_at ?? null,
      refusals: row?.refused
        ? {
            rateLimited: Number(row.rate_limited),
            tooLarge: Number(row.too_large),
            lastRefusedAt: row.last_refused_at,
          }
        : NO_REFUSALS,
    });
  }
  return result;
}

function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    response: customResponseOf({
      responseStatus: row.response_status,
      responseHeaders: row.response_headers,
      responseBody: row.response_body,
      responseDelayMs: row.response_delay_ms,
    }),
    forwardUrl: row.forward_url,
    verification: verificationOf(row.verification),
    anonymousTokenHash: row.anonymous_token_hash,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRow(endpoint: Endpoint): EndpointRow {
  return {
    id: endpoint.id,
    organization_id: endpoint.organizationId,
    name: endpoint.name,
    slug: endpoint.slug,
    status: endpoint.status,
    ...responseRow(endpoint.response),
    forward_url: endpoint.forwardUrl,
    verification: verificationColumn(endpoint.verification),
    anonymous_token_hash: endpoint.anonymousTokenHash,
    expires_at: endpoint.expiresAt,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

function responseRow(response: Endpoint["response"]) {
  const columns = responseColumns(response);
  return {
    response_status: columns.responseStatus,
    response_headers: columns.responseHeaders,
    response_body: columns.responseBody,
    response_delay_ms: columns.responseDelayMs,
  };
}

function changeColumns(changes: EndpointChanges): Partial<EndpointRow> {
  const columns: Partial<EndpointRow> = { updated_at: changes.updatedAt };
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.forwardUrl !== undefined) columns.forward_url = changes.forwardUrl;
  if (changes.verification !== undefined)
    columns.verification = verificationColumn(changes.verification);
  if (changes.response !== undefined) Object.assign(columns, responseRow(changes.response));
  return columns;
}
