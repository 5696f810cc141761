import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import { captureRefusals } from "../capture/capture.table.ts";
import type { Db } from "../db/db.open.ts";
import { customResponseOf, responseColumns } from "./endpoints.columns.ts";
import {
  type CustomResponse,
  type Endpoint,
  type EndpointRefusals,
  type EndpointStatus,
  NO_REFUSALS,
} from "./endpoints.model.ts";
import { debugEndpoints } from "./endpoints.table.ts";

type EndpointRow = typeof debugEndpoints.$inferSelect;

/** What can change on an existing endpoint; `undefined` leaves a field as it is. */
export interface EndpointChanges {
  name?: string;
  status?: EndpointStatus;
  /** null removes the custom response. */
  response?: CustomResponse | null;
  /** null removes the forward target. */
  forwardUrl?: string | null;
  updatedAt: string;
}

/** How many requests an endpoint holds and when the newest arrived. */
export interface EndpointStats {
  requestCount: number;
  lastRequestAt: string | null;
  refusals: EndpointRefusals;
}

/** All SQL of the endpoints room. Every organization-facing lookup is scoped to the organization. */
export function createEndpointsRepo(db: Db) {
  const orm = db.orm;
  const byIdInOrganization = orm
    .select()
    .from(debugEndpoints)
    .where(
      and(
        eq(debugEndpoints.id, sql.placeholder("id")),
        eq(debugEndpoints.organizationId, sql.placeholder("organizationId")),
      ),
    )
    .prepare();
  const byId = orm
    .select()
    .from(debugEndpoints)
    .where(eq(debugEndpoints.id, sql.placeholder("id")))
    .prepare();
  const bySlug = orm
    .select()
    .from(debugEndpoints)
    .where(eq(debugEndpoints.slug, sql.placeholder("slug")))
    .prepare();

  // Both read the (endpoint_id, id) index: the newest request is the one with the highest id
  // (UUIDv7), so the last request time is one row, never a max() over every row of the endpoint.
  const countOf = db.sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM captured_requests WHERE endpoint_id = ?",
  );
  const newestOf = db.sqlite.prepare<{ createdAt: string }, [string]>(
    `SELECT created_at AS createdAt FROM captured_requests
      WHERE endpoint_id = ? ORDER BY id DESC LIMIT 1`,
  );
  const liveAnonymous = db.sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM debug_endpoints WHERE organization_id IS NULL AND expires_at > ?",
  );
  const expiredAnonymous = db.sqlite.prepare<{ id: string }, [string, number]>(
    `SELECT id FROM debug_endpoints
      WHERE organization_id IS NULL AND expires_at IS NOT NULL AND expires_at <= ?
      ORDER BY expires_at LIMIT ?`,
  );
  const deleteAnonymous = db.sqlite.prepare<never, [string]>(
    "DELETE FROM debug_endpoints WHERE id = ? AND organization_id IS NULL",
  );

  return {
    /** Anonymous endpoints not yet expired at `nowIso` (the instance-wide cap). */
    countLiveAnonymous(nowIso: string): number {
      return liveAnonymous.get(nowIso)?.n ?? 0;
    },
    /** Runs `work` in one transaction (bun:sqlite transactions are synchronous). */
    transaction<T>(work: () => T): T {
      return db.sqlite.transaction(work)();
    },
    /** The organization's endpoint with this id; null when it is unknown or another organization's. */
    findInOrganization(id: string, organizationId: string): Endpoint | null {
      const row = byIdInOrganization.get({ id, organizationId });
      return row ? toEndpoint(row) : null;
    },
    /** Any endpoint by id, anonymous ones included (not for organization-facing reads). */
    findById(id: string): Endpoint | null {
      const row = byId.get({ id });
      return row ? toEndpoint(row) : null;
    },
    /** The endpoint that owns a slug (slugs are global: organizations and anonymous alike). */
    findBySlug(slug: string): Endpoint | null {
      const row = bySlug.get({ slug });
      return row ? toEndpoint(row) : null;
    },
    /** The organization's endpoints, newest first. */
    listForOrganization(organizationId: string): Endpoint[] {
      return orm
        .select()
        .from(debugEndpoints)
        .where(eq(debugEndpoints.organizationId, organizationId))
        .orderBy(desc(debugEndpoints.createdAt), desc(debugEndpoints.id))
        .all()
        .map(toEndpoint);
    },
    countForOrganization(organizationId: string): number {
      return (
        orm
          .select({ n: count() })
          .from(debugEndpoints)
          .where(eq(debugEndpoints.organizationId, organizationId))
          .get()?.n ?? 0
      );
    },
    /** Inserts; throws the SQLite unique-constraint error when the slug is taken. */
    insert(endpoint: Endpoint): void {
      orm.insert(debugEndpoints).values(toRow(endpoint)).run();
    },
    /** Inserts unless another endpoint (of any organization, or anonymous) owns the slug. */
    insertUnlessSlugTaken(endpoint: Endpoint): boolean {
      const inserted = orm
        .insert(debugEndpoints)
        .values(toRow(endpoint))
        .onConflictDoNothing({ target: debugEndpoints.slug })
        .returning({ id: debugEndpoints.id })
        .all();
      return inserted.length > 0;
    },
    /** Applies changes to the organization's endpoint; null when there is none. */
    update(id: string, organizationId: string, changes: EndpointChanges): Endpoint | null {
      const rows = orm
        .update(debugEndpoints)
        .set(changeColumns(changes))
        .where(and(eq(debugEndpoints.id, id), eq(debugEndpoints.organizationId, organizationId)))
        .returning()
        .all();
      return rows[0] ? toEndpoint(rows[0]) : null;
    },
    /** Deletes the organization's endpoint; its requests and forwards go with it (cascade). */
    delete(id: string, organizationId: string): boolean {
      const rows = orm
        .delete(debugEndpoints)
        .where(and(eq(debugEndpoints.id, id), eq(debugEndpoints.organizationId, organizationId)))
        .returning({ id: debugEndpoints.id })
        .all();
      return rows.length > 0;
    },
    /** Ids of anonymous endpoints whose `expires_at` is at or before `nowIso`, soonest first. */
    listExpiredAnonymous(nowIso: string, limit: number): string[] {
      return expiredAnonymous.all(nowIso, limit).map((row) => row.id);
    },
    /** Deletes an anonymous endpoint (what is left of its requests goes by cascade). */
    deleteAnonymous(id: string): boolean {
      return deleteAnonymous.run(id).changes > 0;
    },
    /** Request counts and newest capture times, for the endpoints given. */
    stats(endpointIds: string[]): Map<string, EndpointStats> {
      const result = new Map<string, EndpointStats>();
      const refusals =
        endpointIds.length === 0
          ? []
          : orm
              .select()
              .from(captureRefusals)
              .where(inArray(captureRefusals.endpointId, endpointIds))
              .all();
      const refusalsOf = new Map(refusals.map((r) => [r.endpointId, r]));
      for (const endpointId of endpointIds) {
        const refused = refusalsOf.get(endpointId);
        result.set(endpointId, {
          requestCount: countOf.get(endpointId)?.n ?? 0,
          lastRequestAt: newestOf.get(endpointId)?.createdAt ?? null,
          refusals: refused
            ? {
                rateLimited: refused.rateLimited,
                tooLarge: refused.tooLarge,
                lastRefusedAt: refused.lastRefusedAt,
              }
            : NO_REFUSALS,
        });
      }
      return result;
    },
  };
}

export type EndpointsRepo = ReturnType<typeof createEndpointsRepo>;

function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    slug: row.slug,
    status: row.status,
    response: customResponseOf(row),
    forwardUrl: row.forwardUrl,
    anonymousTokenHash: row.anonymousTokenHash,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toRow(endpoint: Endpoint): EndpointRow {
  return {
    id: endpoint.id,
    organizationId: endpoint.organizationId,
    name: endpoint.name,
    slug: endpoint.slug,
    status: endpoint.status,
    ...responseColumns(endpoint.response),
    forwardUrl: endpoint.forwardUrl,
    anonymousTokenHash: endpoint.anonymousTokenHash,
    expiresAt: endpoint.expiresAt,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

function changeColumns(changes: EndpointChanges): Partial<EndpointRow> {
  const columns: Partial<EndpointRow> = { updatedAt: changes.updatedAt };
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.forwardUrl !== undefined) columns.forwardUrl = changes.forwardUrl;
  if (changes.response !== undefined) Object.assign(columns, responseColumns(changes.response));
  return columns;
}
