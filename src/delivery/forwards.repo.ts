import { count, desc, eq, sql } from "drizzle-orm";
import { requestForwards } from "../capture/capture.table.ts";
import type { Db } from "../db/db.open.ts";
import type { ForwardRecord } from "./forwards.model.ts";

type ForwardRow = typeof requestForwards.$inferSelect;

/** Forward records: one row per try (decisions.md §6); they go when their request goes (cascade). */
export function createForwardsRepo(db: Db) {
  const orm = db.orm;
  const page = orm
    .select()
    .from(requestForwards)
    .where(eq(requestForwards.requestId, sql.placeholder("requestId")))
    .orderBy(desc(requestForwards.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
  const total = orm
    .select({ n: count() })
    .from(requestForwards)
    .where(eq(requestForwards.requestId, sql.placeholder("requestId")))
    .prepare();

  return {
    /** Stores a try; false when its request is gone (deleted meanwhile), which is not an error. */
    insert(record: ForwardRecord): boolean {
      const exists = db.sqlite
        .query<{ ok: number }, [string]>("SELECT 1 AS ok FROM captured_requests WHERE id = ?")
        .get(record.requestId);
      if (!exists) return false;
      orm.insert(requestForwards).values(toRow(record)).run();
      return true;
    },
    /** One page of a request's tries, newest first. */
    listPage(requestId: string, offset: number, limit: number): ForwardRecord[] {
      return page.all({ requestId, offset, limit }).map(toRecord);
    },
    count(requestId: string): number {
      return total.get({ requestId })?.n ?? 0;
    },
  };
}

export type ForwardsRepo = ReturnType<typeof createForwardsRepo>;

function toRow(record: ForwardRecord): ForwardRow {
  return {
    id: record.id,
    requestId: record.requestId,
    url: record.url,
    method: record.method,
    statusCode: record.statusCode,
    responseHeaders: record.responseHeaders ? JSON.stringify(record.responseHeaders) : null,
    responseBody: record.responseBody,
    latencyMs: record.latencyMs,
    error: record.error,
    attempt: record.attempt,
    createdAt: record.createdAt,
  };
}

function toRecord(row: ForwardRow): ForwardRecord {
  return {
    id: row.id,
    requestId: row.requestId,
    url: row.url,
    method: row.method,
    statusCode: row.statusCode,
    responseHeaders: row.responseHeaders
      ? (JSON.parse(row.responseHeaders) as Record<string, string>)
      : null,
    responseBody: row.responseBody,
    latencyMs: row.latencyMs,
    error: row.error,
    attempt: row.attempt,
    createdAt: row.createdAt,
  };
}
