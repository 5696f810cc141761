import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { createDeliveryRepo } from "./delivery.repo.ts";
import { presentForward } from "./forwards.present.ts";
import { createForwardsRepo } from "./forwards.repo.ts";

const MIGRATION = "0015_forwards_into_the_outbox";
const databaseBefore = useDatabasesBefore(MIGRATION);

/** A database at the schema before the outbox took over forwards, holding old forward records. */
function upgradedFromOldSchema() {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  seedEndpoint(db.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
  seedEndpoint(db.sqlite, { id: "anon", slug: "anon", organizationId: null });
  const request = db.sqlite.prepare(
    `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, headers, raw_headers, body, size, status, created_at)
     VALUES (?, ?, 'POST', '', '', '{}', '[]', x'00', 1, 200, '2026-01-01T00:00:00.000Z')`,
  );
  request.run("req-1", "ep");
  request.run("req-2", "anon");
  const forward = db.sqlite.prepare(
    `INSERT INTO request_forwards (id, request_id, url, method, status_code, response_headers,
       response_body, latency_ms, error, attempt, created_at) VALUES (?, ?, ?, 'POST', ?, ?, ?, ?, ?, ?, ?)`,
  );
  forward.run(
    "f1",
    "req-1",
    "http://t/in",
    503,
    '{"retry-after":"1"}',
    "busy",
    12,
    null,
    1,
    "2026-01-01T00:00:01.000Z",
  );
  forward.run(
    "f2",
    "req-1",
    "http://t/in",
    null,
    null,
    null,
    30000,
    "timeout: no answer within 30000 ms",
    2,
    "2026-01-01T00:00:02.000Z",
  );
  forward.run(
    "f3",
    "req-1",
    "http://t/in",
    200,
    '{"content-type":"text/plain","x-a":"b"}',
    "ok",
    5,
    null,
    3,
    "2026-01-01T00:00:03.000Z",
  );
  forward.run(
    "f4",
    "req-2",
    "http://u/",
    200,
    null,
    null,
    null,
    null,
    1,
    "2026-01-01T00:00:04.000Z",
  );
  runMigrations(db.sqlite, MIGRATIONS);
  return db;
}

test("old forward records become ended forward deliveries and list exactly as before", () => {
  const db = upgradedFromOldSchema();
  const forwards = createForwardsRepo(db, createDeliveryRepo(db));
  expect(forwards.count("req-1")).toBe(3);
  expect(forwards.listPage("req-1", 0, 10).map(presentForward)).toEqual([
    {
      id: "f3",
      request_id: "req-1",
      url: "http://t/in",
      method: "POST",
      status_code: 200,
      response_headers: { "content-type": "text/plain", "x-a": "b" },
      response_body: "ok",
      latency_ms: 5,
      error: null,
      attempt: 3,
      created_at: "2026-01-01T00:00:03.000Z",
    },
    {
      id: "f2",
      request_id: "req-1",
      url: "http://t/in",
      method: "POST",
      status_code: null,
      response_headers: null,
      response_body: null,
      latency_ms: 30000,
      error: "timeout: no answer within 30000 ms",
      attempt: 2,
      created_at: "2026-01-01T00:00:02.000Z",
    },
    {
      id: "f1",
      request_id: "req-1",
      url: "http://t/in",
      method: "POST",
      status_code: 503,
      response_headers: { "retry-after": "1" },
      response_body: "busy",
      latency_ms: 12,
      error: null,
      attempt: 1,
      created_at: "2026-01-01T00:00:01.000Z",
    },
  ]);
  expect(forwards.listPage("req-2", 0, 10).map((f) => [f.id, f.statusCode, f.latencyMs])).toEqual([
    ["f4", 200, 0],
  ]);
});

test("each migrated delivery has ended, keyed to its endpoint, with the §8 error of its record", () => {
  const db = upgradedFromOldSchema();
  const rows = db.sqlite
    .query(
      `SELECT id, kind, organization_id, destination_key, status, next_attempt_at, last_error_type,
         last_error_code, last_error_message FROM deliveries ORDER BY id`,
    )
    .all();
  expect(rows).toEqual(
    [
      ["migrated-f1", "org", "forward:ep", "failed", "http_error", "503", null],
      [
        "migrated-f2",
        "org",
        "forward:ep",
        "failed",
        "network_error",
        "timeout",
        "no answer within 30000 ms",
      ],
      ["migrated-f3", "org", "forward:ep", "delivered", null, null, null],
      ["migrated-f4", null, "forward:anon", "delivered", null, null, null],
    ].map(([id, org, key, status, type, code, message]) => ({
      id,
      kind: "forward",
      organization_id: org,
      destination_key: key,
      status,
      next_attempt_at: null,
      last_error_type: type,
      last_error_code: code,
      last_error_message: message,
    })),
  );
  const table = db.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'request_forwards'")
    .get();
  expect(table).toBeNull();
});
