import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { NO_FILTER } from "./request-filter.model.ts";
import { presentListedRequest, presentRequest } from "./requests.present.ts";
import { createRequestsRepo } from "./requests.repo.ts";

const MIGRATION = "0020_captured_headers_stored_once";
const databaseBefore = useDatabasesBefore(MIGRATION);

const PAIRS: [string, string][] = [
  ["content-type", "application/json"],
  ["x-repeat", "one, two"],
  ["set-cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"],
  ["set-cookie", "b=2"],
  ["x-signature", "sig=needle"],
];
const OBJECT = {
  "content-type": "application/json",
  "x-repeat": "one, two",
  "set-cookie": "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2",
  "x-signature": "sig=needle",
};

/** A database at the schema that stored both header views, holding captures in both states of the search index. */
function upgradedFromOldSchema() {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  seedEndpoint(db.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
  const insert = db.sqlite.prepare(
    `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, headers, raw_headers,
       body, content_type, size, remote_ip, status, created_at)
     VALUES (?, 'ep', 'POST', '/in', 'a=1', ?, ?, ?, 'application/json', 7, '10.0.0.1', 200, ?)`,
  );
  insert.run(
    "req-1",
    JSON.stringify(OBJECT),
    JSON.stringify(PAIRS),
    Buffer.from('{"n":1}'),
    "2026-01-01T00:00:01.000Z",
  );
  // The first request was indexed by the old form of the searchable text (the header object);
  // the second waits for the index, as a capture committed just before an upgrade would.
  db.sqlite.run(
    `INSERT INTO captured_requests_search (rowid, doc)
       SELECT rowid, path || '?' || query_string || char(10) || headers || char(10) ||
         coalesce(CAST(substr(body, 1, 65536) AS TEXT), '') FROM captured_requests`,
  );
  db.sqlite.run(
    "UPDATE captured_requests_search_mark SET indexed_through = (SELECT max(rowid) FROM captured_requests)",
  );
  insert.run(
    "req-2",
    JSON.stringify(OBJECT),
    JSON.stringify(PAIRS),
    Buffer.from('{"n":2}'),
    "2026-01-01T00:00:02.000Z",
  );
  db.sqlite.run("UPDATE debug_endpoints SET request_count = 2 WHERE id = 'ep'");
  runMigrations(db.sqlite, MIGRATIONS);
  return db;
}

test("after the upgrade only the pairs are stored, and every read answers both views as before", () => {
  const db = upgradedFromOldSchema();
  const columns = db.sqlite
    .query<{ name: string }, []>("SELECT name FROM pragma_table_info('captured_requests')")
    .all()
    .map((c) => c.name);
  expect(columns).toContain("raw_headers");
  expect(columns).not.toContain("headers");

  const requests = createRequestsRepo(db);
  const one = requests.find("ep", "req-1");
  expect(one).not.toBeNull();
  const shown = presentRequest(one as NonNullable<typeof one>);
  expect(shown.headers).toEqual(OBJECT);
  expect(Object.keys(shown.headers)).toEqual(Object.keys(OBJECT));
  expect(shown.raw_headers).toEqual(PAIRS);
  expect(shown).toMatchObject({ path: "/in", query_string: "a=1", body: '{"n":1}', size: 7 });

  const listed = requests.listPage("ep", 0, 10).map(presentListedRequest);
  expect(listed.map((r) => r.id)).toEqual(["req-2", "req-1"]);
  for (const r of listed) {
    expect(r.headers).toEqual(OBJECT);
    expect(r.raw_headers).toEqual(PAIRS);
  }
  expect(requests.listAfter("ep", null, 10).map((r) => r.headers)).toEqual([OBJECT, OBJECT]);
});

test("search finds header names and values of requests indexed before and after the upgrade", () => {
  const db = upgradedFromOldSchema();
  const requests = createRequestsRepo(db);
  const ids = (q: string) =>
    requests.listMatching("ep", { ...NO_FILTER, q }, 0, 10).map((r) => r.id);
  expect(ids("needle")).toEqual(["req-2", "req-1"]);
  expect(ids("x-signature")).toEqual(["req-2", "req-1"]);
  expect(ids("sig=needle")).toEqual(["req-2", "req-1"]);
  expect(ids("Expires=Wed")).toEqual(["req-2", "req-1"]);
  expect(ids("absent-word")).toEqual([]);
  expect(requests.countMatching("ep", { ...NO_FILTER, q: "one, two" })).toBe(2);
});
