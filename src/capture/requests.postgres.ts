import type { SQL } from "bun";
import type { CapturedRequest } from "./capture.model.ts";
import type { CaptureStore } from "./capture.store.ts";
import { pushValues, requestFromRow } from "./requests.columns.ts";
import { BODY_PREVIEW_LIMIT } from "./requests.model.ts";

/** The columns of a read, named as drizzle names them on SQLite (`requestFromRow` takes either). */
const READ_COLUMNS = `r.id, r.endpoint_id AS "endpointId", r.method, r.path,
  r.query_string AS "queryString", r.raw_headers AS "rawHeaders", r.content_type AS "contentType",
  r.size::integer AS size, r.remote_ip AS "remoteIp", r.status, r.created_at AS "createdAt",
  r.verification_status AS "verificationStatus", r.verification_reason AS "verificationReason"`;
const WHOLE_BODY = "r.body";
const PREVIEW_BODY = `substring(r.body from 1 for ${BODY_PREVIEW_LIMIT}) AS body`;

/**
 * The lowest id a reader may see of the endpoint `$1`: above its empty mark, nothing once it is
 * deleted (NULL compares false), exactly as on SQLite.
 */
const VISIBLE = `r.endpoint_id = $1 AND r.id > (SELECT coalesce(cleared_through_id, '')
  FROM debug_endpoints WHERE id = $1 AND deleted_at IS NULL)`;

/**
 * The searchable bytes of a request (the path, `?`, the query, a newline, the header pairs, a
 * newline, the body's first 64 KiB), with ASCII letters lowered and every other byte kept: the
 * escape encoding turns the bytes into ASCII text, `lower` touches only letters, and decoding
 * gives the bytes back. SQLite's `lower` also lowers ASCII only, and a body need not be UTF-8.
 */
const SEARCH_BYTES = `decode(lower(encode(
  convert_to(r.path || '?' || r.query_string || E'\\n' || r.raw_headers || E'\\n', 'UTF8')
    || substring(r.body from 1 for 65536), 'escape')), 'escape')`;

/** The bytes of `q` with ASCII letters lowered, as the search compares them. */
export function loweredBytes(q: string): Buffer {
  const bytes = Buffer.from(q, "utf8");
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte >= 0x41 && byte <= 0x5a) bytes[i] = byte + 0x20;
  }
  return bytes;
}

/**
 * A word as the escape encoding of SEARCH_BYTES writes it, for a regular expression that finds
 * it at the start of a word: at the start or after a byte that is neither an ASCII letter, a
 * digit nor the backslash of an escape (an escaped backslash, `\\`, counts as a separator).
 */
function wordStartPattern(word: string): string {
  let escaped = "";
  for (const byte of loweredBytes(word)) {
    escaped +=
      byte >= 0x80 ? `\\\\${byte.toString(8).padStart(3, "0")}` : String.fromCharCode(byte);
  }
  return `(^|[^a-z0-9\\\\]|\\\\\\\\)${escaped}`;
}

const isOneWord = (q: string) => /^[\p{L}\p{N}]+$/u.test(q);

/** The WHERE clause of a filtered list and its parameters (`$1` is the endpoint). */
function filterSql(endpointId: string, filter: Parameters<CaptureStore["listMatching"]>[1]) {
  const params: unknown[] = [endpointId];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [VISIBLE];
  if (filter.q !== null) {
    // A single word is found from the start of a word, as SQLite's word index finds it; any
    // other query is exact text anywhere (docs/api.md, Searching and filtering requests).
    if (isOneWord(filter.q)) {
      clauses.push(`encode(${SEARCH_BYTES}, 'escape') ~ ${bind(wordStartPattern(filter.q))}`);
    } else {
      clauses.push(`position(${bind(loweredBytes(filter.q))}::bytea in ${SEARCH_BYTES}) > 0`);
    }
  }
  if (filter.methods.length > 0) clauses.push(`r.method = ANY(${bind(filter.methods)}::text[])`);
  if (filter.since !== null) clauses.push(`r.created_at >= ${bind(filter.since)}`);
  if (filter.until !== null) clauses.push(`r.created_at < ${bind(filter.until)}`);
  if (filter.verification.length > 0) {
    clauses.push(
      `coalesce(r.verification_status, 'not_configured') = ANY(${bind(filter.verification)}::text[])`,
    );
  }
  return { where: clauses.join(" AND "), params };
}

// biome-ignore lint/suspicious/noExplicitAny: rows come back untyped from the driver
const toRequest = (row: any): CapturedRequest => requestFromRow(row);

/** The columns of a `captured_requests` row, in the order `pushValues` gives their values. */
export const INSERT_COLUMNS = [
  "id",
  "endpoint_id",
  "method",
  "path",
  "query_string",
  "raw_headers",
  "body",
  "content_type",
  "size",
  "remote_ip",
  "status",
  "created_at",
  "verification_status",
  "verification_reason",
] as const;

/** A request as the row object of a multi-row INSERT (`sql(rows)`). */
export function insertRow(request: CapturedRequest): Record<string, unknown> {
  const values: unknown[] = [];
  pushValues(values, request);
  return Object.fromEntries(INSERT_COLUMNS.map((column, i) => [column, values[i]]));
}

type RequestReads = Pick<
  CaptureStore,
  "listAfter" | "listPage" | "count" | "listMatching" | "countMatching" | "find" | "insert"
>;

/** Reads of stored requests on PostgreSQL: the same rows, order and hiding as requests.repo.ts. */
export function createRequestsPostgresReads(sql: SQL): RequestReads {
  return {
    async listAfter(endpointId, afterRequestId, limit) {
      const rows = await sql.unsafe(
        `SELECT ${READ_COLUMNS}, ${PREVIEW_BODY} FROM captured_requests r
          WHERE ${VISIBLE} AND r.id > $2 ORDER BY r.id LIMIT $3`,
        [endpointId, afterRequestId ?? "", limit],
      );
      return rows.map(toRequest);
    },
    async listPage(endpointId, offset, limit) {
      const rows = await sql.unsafe(
        `SELECT ${READ_COLUMNS}, ${PREVIEW_BODY} FROM captured_requests r
          WHERE ${VISIBLE} ORDER BY r.id DESC LIMIT $2 OFFSET $3`,
        [endpointId, limit, offset],
      );
      return rows.map(toRequest);
    },
    async count(endpointId) {
      const [row] = await sql`SELECT request_count::integer AS n FROM debug_endpoints
        WHERE id = ${endpointId} AND deleted_at IS NULL`;
      return row?.n ?? 0;
    },
    async listMatching(endpointId, filter, offset, limit) {
      const { where, params } = filterSql(endpointId, filter);
      const rows = await sql.unsafe(
        `SELECT ${READ_COLUMNS}, ${WHOLE_BODY} FROM captured_requests r WHERE ${where}
          ORDER BY r.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, limit, offset],
      );
      return rows.map(toRequest);
    },
    async countMatching(endpointId, filter) {
      const { where, params } = filterSql(endpointId, filter);
      const [row] = await sql.unsafe(
        `SELECT count(*)::integer AS n FROM captured_requests r WHERE ${where}`,
        params,
      );
      return row?.n ?? 0;
    },
    async find(endpointId, requestId) {
      const [row] = await sql.unsafe(
        `SELECT ${READ_COLUMNS}, ${WHOLE_BODY} FROM captured_requests r
          WHERE ${VISIBLE} AND r.id = $2`,
        [endpointId, requestId],
      );
      return row ? toRequest(row) : null;
    },
    async insert(request) {
      await sql.begin(async (tx) => {
        await tx`INSERT INTO captured_requests ${tx(insertRow(request))}`;
        await tx`UPDATE debug_endpoints SET request_count = request_count + 1
          WHERE id = ${request.endpointId} AND ${request.id} > coalesce(cleared_through_id, '')`;
      });
    },
  };
}
