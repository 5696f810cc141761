import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { createEventsRepo } from "./events.repo.ts";

const MIGRATION = "0023_event_headers_stored_once";
const databaseBefore = useDatabasesBefore(MIGRATION);

test("an event stored with both header views reads back the same object from its pairs alone", () => {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  db.sqlite.run(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES ('src', 'org', 'S', 'webhook', 'in', 't', 't')`,
  );
  const pairs = [
    ["content-type", "application/json"],
    ["x-tag", "a"],
    ["set-cookie", "one=1"],
    ["set-cookie", "two=2"],
  ];
  const object = { "content-type": "application/json", "x-tag": "a", "set-cookie": "one=1, two=2" };
  db.sqlite.run(
    `INSERT INTO events (id, organization_id, source_id, method, path, query_string, headers,
       raw_headers, body, created_at)
     VALUES ('e1', 'org', 'src', 'POST', '', '', ?, ?, x'7b7d', '2026-01-01T00:00:00.000Z')`,
    [JSON.stringify(object), JSON.stringify(pairs)],
  );
  db.sqlite.run(
    "INSERT INTO event_states (event_id, status, open_deliveries) VALUES ('e1', 'delivered', 0)",
  );
  runMigrations(db.sqlite, MIGRATIONS);
  const event = createEventsRepo(db).findById("e1");
  expect(event?.headers).toEqual(object);
  expect(event?.rawHeaders).toEqual(pairs as [string, string][]);
});
