import type { SQLQueryBindings } from "bun:sqlite";
import { and, asc, desc, eq, getTableColumns, gt, type Placeholder, sql } from "drizzle-orm";
import type { Db } from "../db/db.open.ts";
import type { CapturedRequest } from "./capture.model.ts";
import { capturedRequests } from "./capture.table.ts";
import type { RequestFilter } from "./request-filter.model.ts";
import { COLUMNS, pushValues, ROW, requestFromRow } from "./requests.columns.ts";
import { BODY_PREVIEW_LIMIT } from "./requests.model.ts";

type RequestRow = typeof capturedRequests.$inferSelect;

/**
 * The lowest id a reader may see of the endpoint bound to `endpointId`: above its empty mark,
 * and nothing at all (NULL) once it is deleted. Every read here carries it, so a delete or an
 * empty hides rows from every reader the moment its mark commits, while the drain removes them.
 */
const visibleFloor = (endpointId: Placeholder) =>
  sql`(SELECT coalesce(cleared_through_id, '') FROM debug_endpoints
        WHERE id = ${endpointId} AND deleted_at IS NULL)`;
/** The same floor in raw SQL, for the endpoint bound to the first `?`/`?1` parameter. */
const VISIBLE_FLOOR_SQL = `(SELECT coalesce(cleared_through_id, '') FROM debug_endpoints
  WHERE id = ?1 AND deleted_at IS NULL)`;

/**
 * Reads (and test-fixture writes) of stored captures. Callers scope by endpoint after checking
 * that the endpoint belongs to the caller's organization; ids are UUIDv7, so id order is time order.
 * Requests hidden by a delete or an empty are never read (`visibleFloor`).
 */
export function createRequestsRepo(db: Db) {
  const orm = db.orm;
  const endpointParam = sql.placeholder("endpointId");
  const visible = and(
    eq(capturedRequests.endpointId, endpointParam),
    gt(capturedRequests.id, visibleFloor(endpointParam)),
  );
  // Lists read only the start of each body, in SQL: a page of large requests never loads them
  // whole into the process. `size` still says how long each body is (decisions.md §14).
  const previewColumns = {
    ...getTableColumns(capturedRequests),
    // substr of an empty blob is NULL in SQLite: an empty body stays an empty blob.
    body: sql<Uint8Array>`coalesce(substr(${capturedRequests.body}, 1, ${sql.raw(String(BODY_PREVIEW_LIMIT))}), x'')`,
  };
  const insertOne = db.sqlite.prepare(`INSERT INTO captured_requests ${COLUMNS} VALUES ${ROW}`);
  const indexed = db.sqlite.prepare<{ n: number }, []>(
    "SELECT indexed_through AS n FROM captured_requests_search_mark WHERE id = 1",
  );
  // The next rows to index with their bodies' lengths (read from the record header: no body
  // is loaded; a window function over them would copy every body into a temporary table).
  const nextRows = db.sqlite.prepare<{ rowid: number; bytes: number }, [number, number]>(
    "SELECT rowid, length(body) AS bytes FROM captured_requests WHERE rowid > ? ORDER BY rowid LIMIT ?",
  );
  /** The last rowid of a step: its first row, then rows while their text fits the step's budget. */
  const stepEnd = (rows: readonly { rowid: number; bytes: number }[]) => {
    let text = 0;
    let taken = 0;
    for (const row of rows) {
      text += Math.min(row.bytes, 65_536) + 512;
      if (taken > 0 && text > SEARCH_TEXT_PER_STEP) break;
      taken += 1;
    }
    return { last: (rows[taken - 1] as { rowid: number }).rowid, taken };
  };
  const indexChunk = db.sqlite.prepare<never, [number, number]>(
    `INSERT INTO captured_requests_search (rowid, doc)
     SELECT rowid, ${searchText("captured_requests")} FROM captured_requests
      WHERE rowid > ? AND rowid <= ? ORDER BY rowid`,
  );
  const setIndexed = db.sqlite.prepare<never, [number]>(
    "UPDATE captured_requests_search_mark SET indexed_through = ? WHERE id = 1",
  );
  /**
   * Indexes the next rows not indexed yet, in one transaction, step by step until `limit` rows
   * or SEARCH_MS_PER_TX have gone: cheap rows go hundreds to a transaction (FTS5 writes a
   * segment per transaction, so small ones cost twice as much a row), costly ones a few, and
   * the event loop is never held much longer than that. Returns how many (0: none was left).
   * The index is derived data, so its commits skip the fsync: a power loss can only drop whole
   * chunks with their mark (WAL commits are atomic and kept in order), indexed again later, and
   * the next capture's synchronous=FULL commit makes them durable anyway.
   */
  // How many rows the next step reads: about what the last one could take. Reading rows a step
  // then leaves behind is not free (a 16 KiB request is a leaf page of its own): always reading
  // SEARCH_ROWS_PER_STEP to index four of them cost 8 % of the capture's CPU at 16 KiB.
  let stepRows = SEARCH_ROWS_PER_STEP;
  const indexNext = (limit: number): number => {
    return db.tx(
      () => {
        // The clock starts inside the transaction and the first step always runs: 0 means "none
        // left" to every caller, and a search reads the index right after it.
        const started = performance.now();
        let from = indexed.get()?.n ?? 0;
        let done = 0;
        while (done < limit && (done === 0 || performance.now() - started < SEARCH_MS_PER_TX)) {
          const rows = nextRows.all(from, Math.min(stepRows, limit - done));
          if (rows.length === 0) break;
          const step = stepEnd(rows);
          indexChunk.run(from, step.last);
          from = step.last;
          done += step.taken;
          // The budget stopped the step: one row more than it took is enough next time. It took
          // all it read: the rows may be smaller now, so read twice as many.
          stepRows =
            step.taken < rows.length
              ? step.taken + 1
              : Math.min(SEARCH_ROWS_PER_STEP, Math.max(stepRows, rows.length * 2));
        }
        if (done > 0) setIndexed.run(from);
        return done;
      },
      { durable: false },
    );
  };
  /** Everything committed is in the index before a search reads it. */
  const indexAll = () => {
    while (indexNext(SEARCH_CHUNK) > 0);
  };
  const countOne = db.sqlite.prepare<never, [string, string]>(
    `UPDATE debug_endpoints SET request_count = request_count + 1
      WHERE id = ?1 AND ?2 > coalesce(cleared_through_id, '')`,
  );
  const after = orm
    .select(previewColumns)
    .from(capturedRequests)
    .where(and(visible, gt(capturedRequests.id, sql.placeholder("afterId"))))
    .orderBy(asc(capturedRequests.id))
    .limit(sql.placeholder("limit"))
    .prepare();
  const page = orm
    .select(previewColumns)
    .from(capturedRequests)
    .where(visible)
    .orderBy(desc(capturedRequests.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
  // The endpoint's counter, not a count(*) of its history (kept exact by every writer).
  const total = db.sqlite.prepare<{ n: number }, [string]>(
    "SELECT request_count AS n FROM debug_endpoints WHERE id = ? AND deleted_at IS NULL",
  );
  const one = orm
    .select()
    .from(capturedRequests)
    .where(and(visible, eq(capturedRequests.id, sql.placeholder("id"))))
    .prepare();

  return {
    /**
     * Requests of the endpoint stored after `afterRequestId` (null: from the oldest), oldest
     * first, at most `limit`: what a reconnecting live client missed. Bodies are previews: at
     * most BODY_PREVIEW_LIMIT bytes, with `size` the whole body's.
     */
    listAfter(endpointId: string, afterRequestId: string | null, limit: number): CapturedRequest[] {
      return after.all({ endpointId, afterId: afterRequestId ?? "", limit }).map(requestFromRow);
    },
    /** One page of the endpoint's requests, newest first; bodies are previews (see listAfter). */
    listPage(endpointId: string, offset: number, limit: number): CapturedRequest[] {
      return page.all({ endpointId, offset, limit }).map(requestFromRow);
    },
    /** How many requests the endpoint shows (its counter). */
    count(endpointId: string): number {
      return total.get(endpointId)?.n ?? 0;
    },
    /** One page of the endpoint's requests that pass `filter`, newest first. */
    listMatching(
      endpointId: string,
      filter: RequestFilter,
      offset: number,
      limit: number,
    ): CapturedRequest[] {
      if (filter.q !== null) indexAll();
      const { where, params } = filterSql(endpointId, filter);
      return db.sqlite
        .query<RawRow, (string | number)[]>(
          `SELECT ${ROW_COLUMNS} FROM captured_requests r WHERE ${where}
           ORDER BY r.id DESC LIMIT ? OFFSET ?`,
        )
        .all(...params, limit, offset)
        .map(fromRaw);
    },
    /** How many of the endpoint's requests pass `filter`. */
    countMatching(endpointId: string, filter: RequestFilter): number {
      if (filter.q !== null) indexAll();
      const { where, params } = filterSql(endpointId, filter);
      return (
        db.sqlite
          .query<{ n: number }, string[]>(
            `SELECT count(*) AS n FROM captured_requests r WHERE ${where}`,
          )
          .get(...params)?.n ?? 0
      );
    },
    /** The endpoint's request with this id; null when the id belongs to no request of it. */
    find(endpointId: string, id: string): CapturedRequest | null {
      const row = one.get({ endpointId, id });
      return row ? requestFromRow(row) : null;
    },
    /**
     * Adds up to `limit` stored requests not indexed yet to the search index (oldest first; fewer
     * once ~5 ms have gone), in one transaction with the mark of how far it got; returns how
     * many it added (0: none was left).
     */
    indexForSearch(limit: number): number {
      return indexNext(limit);
    },
    /**
     * Stores one request and counts it on its endpoint (fixtures and tools; capture has its own
     * group-commit writer).
     */
    insert(request: CapturedRequest): void {
      const values: unknown[] = [];
      pushValues(values, request);
      db.sqlite.transaction(() => {
        insertOne.run(...(values as SQLQueryBindings[]));
        countOne.run(request.endpointId, request.id);
      })();
    },
  };
}

export type RequestsRepo = ReturnType<typeof createRequestsRepo>;

/** Rows a search indexes at most per transaction before it reads the index. */
const SEARCH_CHUNK = 500;
/** Text one step of an index transaction takes at most, after its first row (~3 ms of tokenizing word-rich JSON). */
const SEARCH_TEXT_PER_STEP = 65_536;
/** Rows one step looks at, at most (the step's query sums their sizes). */
const SEARCH_ROWS_PER_STEP = 128;
/** An index transaction starts no new step after this long. */
const SEARCH_MS_PER_TX = 5;

/** The searchable text of a request: what the search index holds (migration 0004). */
function searchText(table: string): string {
  return `${table}.path || '?' || ${table}.query_string || char(10) || ${table}.raw_headers || char(10) ||
  coalesce(CAST(substr(${table}.body, 1, 65536) AS TEXT), '')`;
}
const SEARCH_TEXT = searchText("r");
/**
 * The WHERE clause of a filtered list. The statements vary only by which parts are set, so
 * bun:sqlite's statement cache keeps one prepared statement per shape. `q` is an exact,
 * case-insensitive substring test; the word index (migration 0004) first narrows it to the rows
 * holding every word of `q` (the last one as a prefix), so only those rows are read.
 */
function filterSql(endpointId: string, filter: RequestFilter) {
  const clauses = ["r.endpoint_id = ?1", `r.id > ${VISIBLE_FLOOR_SQL}`];
  const params: string[] = [endpointId];
  if (filter.q !== null) {
    const match = wordQuery(filter.q);
    if (match) {
      clauses.push(
        "r.rowid IN (SELECT rowid FROM captured_requests_search WHERE captured_requests_search MATCH ?)",
      );
      params.push(match);
    }
    // One word is what the index answers by itself (the start of a word); anything longer is
    // checked as exact text, on the rows the index kept.
    if (!match || !isOneWord(filter.q)) {
      clauses.push(`instr(lower(${SEARCH_TEXT}), lower(?)) > 0`);
      params.push(filter.q);
    }
  }
  if (filter.methods.length > 0) {
    clauses.push(`r.method IN (${filter.methods.map(() => "?").join(", ")})`);
    params.push(...filter.methods);
  }
  if (filter.since !== null) {
    clauses.push("r.created_at >= ?");
    params.push(filter.since);
  }
  if (filter.until !== null) {
    clauses.push("r.created_at < ?");
    params.push(filter.until);
  }
  if (filter.verification.length > 0) {
    const marks = filter.verification.map(() => "?").join(", ");
    clauses.push(`coalesce(r.verification_status, 'not_configured') IN (${marks})`);
    params.push(...filter.verification);
  }
  return { where: clauses.join(" AND "), params };
}

/**
 * An FTS5 query for the words of `q` as the unicode61 tokenizer cuts them (letters and digits).
 * Inside a match, the words between separators are whole words and the last one may go on, so it
 * is a prefix; the first may begin inside a longer word, so with two words or more it is left to
 * the exact test. A single word is taken as the start of a word. Null when `q` holds no word
 * (punctuation only): then the endpoint's rows are scanned.
 */
export function wordQuery(q: string): string | null {
  const words = q.split(/[^\p{L}\p{N}]+/u);
  const startsInsideWord = /^[\p{L}\p{N}]/u.test(q) && words.filter(Boolean).length > 1;
  const usable = (startsInsideWord ? words.slice(1) : words).filter(Boolean);
  if (usable.length === 0) return null;
  const endsInsideWord = /[\p{L}\p{N}]$/u.test(q);
  return usable
    .map((word, i) => `"${word}"${i === usable.length - 1 && endsInsideWord ? "*" : ""}`)
    .join(" ");
}

const isOneWord = (q: string) => /^[\p{L}\p{N}]+$/u.test(q);

const ROW_COLUMNS = `r.id, r.endpoint_id AS endpointId, r.method, r.path, r.query_string AS queryString,
  r.raw_headers AS rawHeaders, r.body, r.content_type AS contentType, r.size,
  r.remote_ip AS remoteIp, r.status, r.created_at AS createdAt,
  r.verification_status AS verificationStatus, r.verification_reason AS verificationReason`;

type RawRow = Omit<RequestRow, "body"> & { body: Uint8Array };

function fromRaw(row: RawRow): CapturedRequest {
  return requestFromRow({
    ...row,
    body: Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength),
  });
}
