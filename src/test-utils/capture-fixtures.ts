import type { Database } from "bun:sqlite";
import type { Plan } from "../auth/auth.model.ts";
import type { CustomResponse } from "../endpoints/endpoints.model.ts";

const STAMP = "2026-01-01T00:00:00.000Z";

/** An organization row written straight into the database (capture tests need no accounts). */
export function seedOrganization(sqlite: Database, id: string, plan: Plan = "team"): void {
  sqlite.run(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
    [id, `org ${id}`, plan, STAMP, STAMP],
  );
}

export interface SeededEndpoint {
  id: string;
  slug: string;
  /** null: anonymous. */
  organizationId: string | null;
  status?: "active" | "paused";
  response?: CustomResponse | null;
  expiresAt?: string | null;
  forwardUrl?: string | null;
}

/** An endpoint row written straight into the database, with any status, answer or expiry. */
export function seedEndpoint(sqlite: Database, endpoint: SeededEndpoint): void {
  const response = endpoint.response ?? null;
  sqlite.run(
    `INSERT INTO debug_endpoints (id, organization_id, name, slug, status, response_status,
       response_headers, response_body, response_delay_ms, forward_url, anonymous_token_hash,
       expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      endpoint.id,
      endpoint.organizationId,
      `endpoint ${endpoint.slug}`,
      endpoint.slug,
      endpoint.status ?? "active",
      response?.status ?? null,
      response ? JSON.stringify(response.headers) : null,
      response?.body ?? null,
      response?.delayMs ?? 0,
      endpoint.forwardUrl ?? null,
      endpoint.organizationId === null ? "token-hash" : null,
      endpoint.expiresAt ?? null,
      STAMP,
      STAMP,
    ],
  );
}

/** A stored request read back raw from the database (what capture wrote, byte for byte). */
export interface StoredRow {
  id: string;
  endpoint_id: string;
  method: string;
  path: string;
  query_string: string;
  raw_headers: string;
  body: Uint8Array;
  content_type: string | null;
  size: number;
  remote_ip: string | null;
  status: number;
  created_at: string;
}

/** Every stored request of an endpoint, oldest first. */
export function storedRequests(sqlite: Database, endpointId: string): StoredRow[] {
  return sqlite
    .query<StoredRow, [string]>("SELECT * FROM captured_requests WHERE endpoint_id = ? ORDER BY id")
    .all(endpointId);
}

/** One stored request by id, or null. */
export function storedRequest(sqlite: Database, id: string): StoredRow | null {
  return sqlite.query<StoredRow, [string]>("SELECT * FROM captured_requests WHERE id = ?").get(id);
}

/** Where the async seeds write: a test server's database, SQLite or PostgreSQL. */
export interface SeedTarget {
  deps: { db: { sqlite: Database } };
  postgres: { sql: { unsafe(query: string, params?: unknown[]): Promise<unknown> } } | null;
}

/**
 * Runs one statement (SQLite's `?` placeholders) on whichever database the server keeps its
 * data in; the PostgreSQL schema keeps SQLite's table and column names. Returns the rows.
 */
export async function runIn(
  target: SeedTarget,
  statement: string,
  params: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  if (target.postgres) {
    let n = 0;
    const numbered = statement.replace(/\?/g, () => `$${++n}`);
    return [...((await target.postgres.sql.unsafe(numbered, params)) as Record<string, unknown>[])];
  }
  return target.deps.db.sqlite
    .query<Record<string, unknown>, never[]>(statement)
    .all(...(params as never[]));
}

/** seedOrganization on either store. */
export async function seedOrganizationIn(target: SeedTarget, id: string, plan: Plan = "team") {
  await runIn(
    target,
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
    [id, `org ${id}`, plan, STAMP, STAMP],
  );
}

/** seedEndpoint on either store. */
export async function seedEndpointIn(target: SeedTarget, endpoint: SeededEndpoint) {
  const response = endpoint.response ?? null;
  await runIn(
    target,
    `INSERT INTO debug_endpoints (id, organization_id, name, slug, status, response_status,
       response_headers, response_body, response_delay_ms, forward_url, anonymous_token_hash,
       expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      endpoint.id,
      endpoint.organizationId,
      `endpoint ${endpoint.slug}`,
      endpoint.slug,
      endpoint.status ?? "active",
      response?.status ?? null,
      response ? JSON.stringify(response.headers) : null,
      response?.body ?? null,
      response?.delayMs ?? 0,
      endpoint.forwardUrl ?? null,
      endpoint.organizationId === null ? "token-hash" : null,
      endpoint.expiresAt ?? null,
      STAMP,
      STAMP,
    ],
  );
}

/** A stored row as read from either store (PostgreSQL's bigint size and bytea body made alike). */
function storedRowOf(row: Record<string, unknown>): StoredRow {
  const body = row.body as Uint8Array;
  return {
    ...(row as unknown as StoredRow),
    body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
    size: Number(row.size),
    status: Number(row.status),
  };
}

/** storedRequests on either store. */
export async function storedRequestsIn(target: SeedTarget, endpointId: string) {
  const rows = await runIn(
    target,
    "SELECT * FROM captured_requests WHERE endpoint_id = ? ORDER BY id",
    [endpointId],
  );
  return rows.map(storedRowOf);
}

/** storedRequest on either store. */
export async function storedRequestIn(target: SeedTarget, id: string) {
  const [row] = await runIn(target, "SELECT * FROM captured_requests WHERE id = ?", [id]);
  return row ? storedRowOf(row) : null;
}
