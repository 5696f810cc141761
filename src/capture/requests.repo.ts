import type { SQLQueryBindings } from "bun:sqlite";
import { and, asc, count, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/db.open.ts";
import type { CapturedRequest } from "./capture.model.ts";
import { capturedRequests } from "./capture.table.ts";
import { COLUMNS, pushValues, ROW, requestFromRow } from "./requests.columns.ts";

/**
 * Reads (and test-fixture writes) of stored captures. Callers scope by endpoint after checking
 * that the endpoint belongs to the caller's organization; ids are UUIDv7, so id order is time order.
 */
export function createRequestsRepo(db: Db) {
  const orm = db.orm;
  const insertOne = db.sqlite.prepare(`INSERT INTO captured_requests ${COLUMNS} VALUES ${ROW}`);
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
      return after.all({ endpointId, afterId: afterRequestId ?? "", limit }).map(requestFromRow);
    },
    /** One page of the endpoint's requests, newest first. */
    listPage(endpointId: string, offset: number, limit: number): CapturedRequest[] {
      return page.all({ endpointId, offset, limit }).map(requestFromRow);
    },
    count(endpointId: string): number {
      return total.get({ endpointId })?.n ?? 0;
    },
    /** The endpoint's request with this id; null when the id belongs to no request of it. */
    find(endpointId: string, id: string): CapturedRequest | null {
      const row = one.get({ endpointId, id });
      return row ? requestFromRow(row) : null;
    },
    /** Empties an endpoint; its forwards go too (cascade). Returns how many requests went. */
    deleteForEndpoint(endpointId: string): number {
      return db.sqlite.run("DELETE FROM captured_requests WHERE endpoint_id = ?", [endpointId])
        .changes;
    },
    /** Stores one request (fixtures and tools; capture has its own group-commit writer). */
    insert(request: CapturedRequest): void {
      const values: unknown[] = [];
      pushValues(values, request);
      insertOne.run(...(values as SQLQueryBindings[]));
    },
  };
}

export type RequestsRepo = ReturnType<typeof createRequestsRepo>;
