import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { createEventsRepo } from "./events.repo.ts";

const databaseBefore = useDatabasesBefore("0025_events_unrouted_and_filter_reasons");

test("filtered events related to no bridge become unrouted; those a bridge filtered stay filtered", () => {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  for (const sql of [
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
       VALUES ('src', 'org', 'S', 'webhook', 'in', 't', 't')`,
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
       VALUES ('b', 'org', 'src', 'B', 'active', 't', 't')`,
  ])
    db.sqlite.run(sql);
  const event = db.sqlite.prepare(
    `INSERT INTO events (id, organization_id, source_id, method, path, query_string,
       raw_headers, body, created_at)
     VALUES (?, 'org', 'src', 'POST', '', '', '[]', x'7b7d', '2026-01-01T00:00:00.000Z')`,
  );
  const state = db.sqlite.prepare(
    "INSERT INTO event_states (event_id, status, open_deliveries) VALUES (?, ?, 0)",
  );
  for (const [id, status] of [
    ["e-no-bridge", "filtered"],
    ["e-filtered", "filtered"],
    ["e-paused", "paused"],
    ["e-delivered", "delivered"],
  ] as const) {
    event.run(id);
    state.run(id, status);
  }
  db.sqlite.run("INSERT INTO event_bridges (event_id, bridge_id) VALUES ('e-filtered', 'b')");

  runMigrations(db.sqlite, MIGRATIONS);
  expect(
    db.sqlite.query("SELECT event_id, status FROM event_states ORDER BY event_id").all(),
  ).toEqual([
    { event_id: "e-delivered", status: "delivered" },
    { event_id: "e-filtered", status: "filtered" },
    { event_id: "e-no-bridge", status: "unrouted" },
    { event_id: "e-paused", status: "paused" },
  ]);
  // Events stored before the reasons existed read with none.
  expect(createEventsRepo(db).findById("e-filtered")?.filteredBy).toEqual([]);
});
