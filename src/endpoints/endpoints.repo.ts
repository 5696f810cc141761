import { and, count, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { captureRefusals } from "../capture/capture.table.ts";
import type { Db } from "../db/db.open.ts";
import { verificationColumn, verificationOf } from "../verification/verification.settings.ts";
import { customResponseOf, responseColumns } from "./endpoints.columns.ts";
import { type DrainingEndpoint, type Endpoint, NO_REFUSALS } from "./endpoints.model.ts";
import type { EndpointChanges, EndpointStats } from "./endpoints.store.ts";
import { debugEndpoints } from "./endpoints.table.ts";

type EndpointRow = typeof debugEndpoints.$inferSelect;

/** Live endpoints only: a deleted one is gone for every reader at once. */
const live = isNull(debugEndpoints.deletedAt);

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
        live,
      ),
    )
    .prepare();
  const byId = orm
    .select()
    .from(debugEndpoints)
    .where(and(eq(debugEndpoints.id, sql.placeholder("id")), live))
    .prepare();
  const bySlug = orm
    .select()
    .from(debugEndpoints)
    .where(and(eq(debugEndpoints.slug, sql.placeholder("slug")), live))
    .prepare();

  // The count is the endpoint's own counter (kept by capture, retention and emptying), and the
  // newest request is the highest id (UUIDv7) through the (endpoint_id, id) index: one row each,
  // never a scan of the endpoint's history. The newest counts only above an empty's mark.
  const newestOf = db.sqlite.prepare<{ createdAt: string }, [string]>(
    `SELECT r.created_at AS createdAt FROM captured_requests r
      WHERE r.endpoint_id = ?1 AND r.id > (SELECT coalesce(cleared_through_id, '')
        FROM debug_endpoints WHERE id = ?1)
      ORDER BY r.id DESC LIMIT 1`,
  );
  const liveAnonymous = db.sqlite.prepare<{ n: number }, [string]>(
    `SELECT count(*) AS n FROM debug_endpoints
      WHERE organization_id IS NULL AND expires_at > ? AND deleted_at IS NULL`,
  );
  const expiredAnonymous = db.sqlite.prepare<{ id: string }, [string, number]>(
    `SELECT id FROM debug_endpoints
      WHERE organization_id IS NULL AND expires_at IS NOT NULL AND expires_at <= ?
        AND deleted_at IS NULL
      ORDER BY expires_at LIMIT ?`,
  );
  const countOf = db.sqlite.prepare<{ n: number }, [string]>(
    "SELECT request_count AS n FROM debug_endpoints WHERE id = ?",
  );
  // A deleted endpoint keeps its row until drained; its slug is freed for a new endpoint by one
  // no slug lookup can meet ('/' never appears in a slug, nor in a capture URL's slug part).
  const markDeleted = db.sqlite.prepare<{ id: string }, [string, string | null, number, string]>(
    `UPDATE debug_endpoints
        SET deleted_at = ?4, updated_at = ?4, slug = 'deleted/' || id, request_count = 0, drain_pending = 1
      WHERE id = ?1 AND deleted_at IS NULL
        AND (organization_id = ?2 OR (?3 AND organization_id IS NULL))
      RETURNING id`,
  );
  // The mark is the newest of: a fresh id (everything captured before this moment), the newest
  // stored id (should the clock have gone back) and an earlier mark (marks never move back).
  const markCleared = db.sqlite.prepare<never, [string, string, string]>(
    `UPDATE debug_endpoints
        SET cleared_through_id = max(?2, coalesce(cleared_through_id, ''), coalesce(
              (SELECT id FROM captured_requests WHERE endpoint_id = ?1 ORDER BY id DESC LIMIT 1),
              '')),
            request_count = 0, drain_pending = 1, updated_at = ?3
      WHERE id = ?1 AND deleted_at IS NULL`,
  );
  const draining = db.sqlite.prepare<
    { endpointId: string; deleted: number; clearedThroughId: string | null },
    [number]
  >(
    `SELECT id AS endpointId, deleted_at IS NOT NULL AS deleted,
            cleared_through_id AS clearedThroughId
       FROM debug_endpoints WHERE drain_pending = 1 ORDER BY id LIMIT ?`,
  );
  const dropDeleted = db.sqlite.prepare<never, [string]>(
    "DELETE FROM debug_endpoints WHERE id = ? AND deleted_at IS NOT NULL",
  );
  const drained = db.sqlite.prepare<never, [string, string | null]>(
    `UPDATE debug_endpoints SET drain_pending = 0
      WHERE id = ? AND deleted_at IS NULL AND cleared_through_id IS ?`,
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
        .where(and(eq(debugEndpoints.organizationId, organizationId), live))
        .orderBy(desc(debugEndpoints.createdAt), desc(debugEndpoints.id))
        .all()
        .map(toEndpoint);
    },
    countForOrganization(organizationId: string): number {
      return (
        orm
          .select({ n: count() })
          .from(debugEndpoints)
          .where(and(eq(debugEndpoints.organizationId, organizationId), live))
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
        .where(
          and(eq(debugEndpoints.id, id), eq(debugEndpoints.organizationId, organizationId), live),
        )
        .returning()
        .all();
      return rows[0] ? toEndpoint(rows[0]) : null;
    },
    /**
     * Deletes the organization's endpoint for every reader and sender at once (one row written);
     * its requests, and the row itself, are drained afterwards. False when there is none.
     */
    delete(id: string, organizationId: string, nowIso: string): boolean {
      return markDeleted.all(id, organizationId, 0, nowIso).length > 0;
    },
    /** Ids of anonymous endpoints whose `expires_at` is at or before `nowIso`, soonest first. */
    listExpiredAnonymous(nowIso: string, limit: number): string[] {
      return expiredAnonymous.all(nowIso, limit).map((row) => row.id);
    },
    /** Deletes an anonymous endpoint as `delete` does (its requests are drained afterwards). */
    deleteAnonymous(id: string, nowIso: string): boolean {
      return markDeleted.all(id, null, 1, nowIso).length > 0;
    },
    /**
     * Empties an endpoint for every reader at once: its requests captured until now are hidden
     * (and drained afterwards), its counter is 0. `freshId` is an id made now (UUIDv7).
     */
    clearRequests(id: string, freshId: string, nowIso: string): boolean {
      return markCleared.run(id, freshId, nowIso).changes > 0;
    },
    /** Endpoints with hidden requests left to drain, at most `limit`. */
    listDraining(limit: number): DrainingEndpoint[] {
      return draining.all(limit).map((row) => ({ ...row, deleted: row.deleted === 1 }));
    },
    /**
     * Called in the transaction that deleted an endpoint's last hidden request: a deleted
     * endpoint's row goes; an emptied one is done unless it was emptied again meanwhile.
     */
    finishDrain(endpoint: DrainingEndpoint): void {
      if (endpoint.deleted) dropDeleted.run(endpoint.endpointId);
      else drained.run(endpoint.endpointId, endpoint.clearedThroughId);
    },
    /** Request counts and newest capture times, for the endpoints given (read from their rows). */
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
    verification: verificationOf(row.verification),
    anonymousTokenHash: row.anonymousTokenHash,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toRow(endpoint: Endpoint): typeof debugEndpoints.$inferInsert {
  return {
    id: endpoint.id,
    organizationId: endpoint.organizationId,
    name: endpoint.name,
    slug: endpoint.slug,
    status: endpoint.status,
    ...responseColumns(endpoint.response),
    forwardUrl: endpoint.forwardUrl,
    verification: verificationColumn(endpoint.verification),
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
  if (changes.verification !== undefined)
    columns.verification = verificationColumn(changes.verification);
  if (changes.response !== undefined) Object.assign(columns, responseColumns(changes.response));
  return columns;
}
