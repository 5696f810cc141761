import { and, asc, count, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/db.open.ts";
import type { CapturedRequest } from "./capture.model.ts";
import { capturedRequests } from "./capture.table.ts";

type RequestRow = typeof capturedRequests.$inferSelect;

/**
 * Reads (and test-fixture writes) of stored captures. Callers scope by endpoint after checking
 * that the endpoint belongs to the caller's organization; ids are UUIDv7, so id order is time order.
 */
export function createRequestsRepo(db: Db) {
  const orm = db.orm;
  const after = orm
    .select()
    .from(capturedRequests)
    .where(
      and(
        eq(capturedRequests.endpointId, sql.placeholder("endpointId")),
        gt(capturedRequests.id, sql.placeholder("afterId")),
      ),
    )
    .orderBy(asc(capturedRequests.id))
    .limit(sql.placeholder("limit"))
    .prepare();
  const page = orm
    .select()
    .from(capturedRequests)
    .where(eq(capturedRequests.endpointId, sql.placeholder("endpointId")))
    .orderBy(desc(capturedRequests.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
  const total = orm
    .select({ n: count() })
    .from(capturedRequests)
    .where(eq(capturedRequests.endpointId, sql.placeholder("endpointId")))
    .prepare();
  const one = orm
    .select()
    .from(capturedRequests)
    .where(
      and(
        eq(capturedRequests.endpointId, sql.placeholder("endpointId")),
        eq(capturedRequests.id, sql.placeholder("id")),
      ),
    )
    .prepare();

  return {
    /**
     * Requests of the endpoint stored after `afterRequestId` (null: from the oldest), oldest
     * first, at most `limit`: what a reconnecting live client missed.
     */
    listAfter(endpointId: string, afterRequestId: string | null, limit: number): CapturedRequest[] {
      return after.all({ endpointId, afterId: afterRequestId ?? "", limit }).map(toRequest);
    },
    /** One page of the endpoint's requests, newest first. */
    listPage(endpointId: string, offset: number, limit: number): CapturedRequest[] {
      return page.all({ endpointId, offset, limit }).map(toRequest);
    },
    count(endpointId: string): number {
      return total.get({ endpointId })?.n ?? 0;
    },
    /** The endpoint's request with this id; null when the id belongs to no request of it. */
    find(endpointId: string, id: string): CapturedRequest | null {
      const row = one.get({ endpointId, id });
      return row ? toRequest(row) : null;
    },
    /** Empties an endpoint; its forwards go too (cascade). Returns how many requests went. */
    deleteForEndpoint(endpointId: string): number {
      return db.sqlite.run("DELETE FROM captured_requests WHERE endpoint_id = ?", [endpointId])
        .changes;
    },
    /** Stores one request (fixtures and tools; capture has its own group-commit writer). */
    insert(request: CapturedRequest): void {
      orm.insert(capturedRequests).values(toRow(request)).run();
    },
  };
}

export type RequestsRepo = ReturnType<typeof createRequestsRepo>;

function toRequest(row: RequestRow): CapturedRequest {
  return {
    id: row.id,
    endpointId: row.endpointId,
    method: row.method,
    path: row.path,
    queryString: row.queryString,
    headers: JSON.parse(row.headers) as Record<string, string>,
    rawHeaders: JSON.parse(row.rawHeaders) as [string, string][],
    body: new Uint8Array(row.body.buffer, row.body.byteOffset, row.body.byteLength),
    contentType: row.contentType,
    size: row.size,
    remoteIp: row.remoteIp,
    status: row.status,
    createdAt: row.createdAt,
  };
}

function toRow(request: CapturedRequest): RequestRow {
  return {
    id: request.id,
    endpointId: request.endpointId,
    method: request.method,
    path: request.path,
    queryString: request.queryString,
    headers: JSON.stringify(request.headers),
    rawHeaders: JSON.stringify(request.rawHeaders),
    body: Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength),
    contentType: request.contentType,
    size: request.size,
    remoteIp: request.remoteIp,
    status: request.status,
    createdAt: request.createdAt,
  };
}
