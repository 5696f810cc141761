/**
 * The search index after mass deletes (migration 0019): FTS5's `deletemerge` is off, so a drain
 * batch never rewrites a segment while captures wait; the `capture.search-merge` job, woken by
 * the drain, merges it back down a few pages per step, and search stays exact throughout.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { DRAIN_JOB } from "./drain.schedule.ts";
import { createRequestsRepo } from "./requests.repo.ts";
import { createSearchMergeRepo } from "./search-merge.repo.ts";
import { SEARCH_MERGE_JOB } from "./search-merge.schedule.ts";

let server: TestServer;
let scheduler: ManualScheduler;
let owner: TestAccount;

beforeEach(async () => {
  scheduler = createManualScheduler();
  server = await startTestServer({ scheduler, config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "team" });
});
afterEach(async () => {
  await server.stop();
});

const rowids = (sql: string, ...params: string[]) =>
  (server.deps.db.sqlite.query(sql).all(...params) as { r: number }[]).map((row) => row.r).sort();
/** Rowids the search index returns for `word`. */
const matching = (word: string) =>
  rowids(
    "SELECT rowid AS r FROM captured_requests_search WHERE captured_requests_search MATCH ?",
    word,
  );
const storedRowids = (endpointId: string) =>
  rowids("SELECT rowid AS r FROM captured_requests WHERE endpoint_id = ?", endpointId);

/**
 * Stores `rows` requests straight into the database, indexed 250 at a time as capture's
 * chunks are, so the index holds many segments; each body carries `word` and a word of its own.
 */
function seed(endpointId: string, word: string, rows: number) {
  const sqlite = server.deps.db.sqlite;
  const insert = sqlite.prepare(
    `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string,
       raw_headers, body, content_type, size, remote_ip, status, created_at)
     VALUES (?, ?, 'POST', '', '', '[]', ?, 'text/plain', 64, '127.0.0.1', 200, ?)`,
  );
  const requests = createRequestsRepo(server.deps.db);
  const createdAt = new Date().toISOString();
  for (let start = 0; start < rows; start += 250) {
    sqlite.transaction(() => {
      for (let i = start; i < Math.min(rows, start + 250); i++) {
        const body = `${word} ${word}${i} filler${i % 97} more${i % 31} text${i % 13}`;
        insert.run(server.deps.ids.uuid(), endpointId, Buffer.from(body), createdAt);
      }
      sqlite.run("UPDATE debug_endpoints SET request_count = request_count + ? WHERE id = ?", [
        Math.min(250, rows - start),
        endpointId,
      ]);
    })();
    while (requests.indexForSearch(250) > 0);
  }
}

test("deletes leave no rewrite in the drain; the merge job shrinks the index back and search stays exact", async () => {
  const deletemerge = server.deps.db.sqlite
    .query("SELECT v FROM captured_requests_search_config WHERE k = 'deletemerge'")
    .get() as { v: number } | null;
  expect(deletemerge?.v).toBe(0);

  const keeper = await createDebugEndpoint(server, owner, { name: "Keeper" });
  const victim = await createDebugEndpoint(server, owner, { name: "Victim" });
  seed(keeper.id, "keeperword", 500);
  seed(victim.id, "victimword", 6000);
  const captured = await captureAt(server, `/w/${keeper.slug}`, {
    method: "POST",
    body: "keeperword captured-live",
  });
  const merge = createSearchMergeRepo(server.deps.db);
  // Everything indexed, then fully merged: the size the index has with both endpoints' rows.
  while (createRequestsRepo(server.deps.db).indexForSearch(1000) > 0);
  const full = merge.dataPages();

  const deleted = await callAs(server, owner, "DELETE", `/api/v1/endpoints/${victim.id}`);
  expect(deleted.status).toBe(204);
  await scheduler.run(DRAIN_JOB);
  expect(storedRowids(victim.id)).toEqual([]);
  // With deletemerge off the drain rewrote nothing: the deleted rows are tombstones.
  const afterDrain = merge.dataPages();
  expect(afterDrain).toBeGreaterThanOrEqual(full);
  // Tombstoned rows are never found, before any merge.
  expect(matching("victimword")).toEqual([]);

  // The drain woke the merge; it runs until FTS5 has nothing left to merge.
  expect(scheduler.jobs()).toContain("capture.search-merge-wake");
  await scheduler.run(SEARCH_MERGE_JOB);
  const merged = merge.dataPages();
  expect(merged).toBeLessThan(afterDrain / 4);
  expect(merge.mergeStep(2)).toBe(false);

  // Every remaining capture is found, none of the deleted ones.
  const keptRowids = storedRowids(keeper.id);
  expect(keptRowids.length).toBe(501);
  expect(matching("keeperword")).toEqual(keptRowids);
  expect(matching("victimword")).toEqual([]);
  expect(matching("victimword17")).toEqual([]);
  const searched = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/endpoints/${keeper.id}/requests?q=keeperword123`,
  );
  expect(searched.body.total).toBe(1);
  const live = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/endpoints/${keeper.id}/requests?q=captured-live`,
  );
  expect(live.body.data.map((r: { id: string }) => r.id)).toEqual([captured]);
});

test("the merge job does nothing until deletes wake it", async () => {
  const keeper = await createDebugEndpoint(server, owner, { name: "Keeper" });
  seed(keeper.id, "keeperword", 1000);
  const merge = createSearchMergeRepo(server.deps.db);
  const before = merge.dataPages();
  await scheduler.run(SEARCH_MERGE_JOB);
  // Not woken: the index's segments are left as they are (a merge would rewrite them all).
  expect(merge.dataPages()).toBe(before);
  expect(matching("keeperword")).toEqual(storedRowids(keeper.id));
});
