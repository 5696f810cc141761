import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { createEventsRepo } from "./events.repo.ts";

const MIGRATION = "0022_event_states_off_the_event_row";
const databaseBefore = useDatabasesBefore(MIGRATION);

test("existing events keep their status, and their open deliveries are counted", () => {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  db.sqlite.run(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES ('src', 'org', 'S', 'webhook', 'in', 't', 't')`,
  );
  const event = db.sqlite.prepare(
    `INSERT INTO events (id, organization_id, source_id, method, path, query_string, headers,
       raw_headers, body, status, created_at)
     VALUES (?, 'org', 'src', 'POST', '', '', '{}', '[]', x'7b7d', ?, '2026-01-01T00:00:00.000Z')`,
  );
  const delivery = db.sqlite.prepare(
    `INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key, webhook_id,
       status, attempts, max_retries, attempts_before_requeue, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, 'org', ?, 'dst', ?, ?, 0, 3, 0, NULL, 't', 't')`,
  );
  event.run("e-pending", "pending");
  delivery.run("d1", "event", "e-pending", "msg_1", "delivered");
  delivery.run("d2", "event", "e-pending", "msg_2", "retrying");
  delivery.run("d3", "event", "e-pending", "msg_3", "pending");
  delivery.run("d4", "forward", "e-pending", "msg_4", "pending"); // another kind's subject
  event.run("e-failed", "failed");
  delivery.run("d5", "event", "e-failed", "msg_5", "failed");
  event.run("e-filtered", "filtered");
  // A filtered event went through the active bridge that filtered it (a source with no bridge
  // at all leaves its events unrouted since, not filtered).
  db.sqlite.run(
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
     VALUES ('b', 'org', 'src', 'B', 'active', 't', 't')`,
  );
  db.sqlite.run("INSERT INTO event_bridges (event_id, bridge_id) VALUES ('e-filtered', 'b')");

  runMigrations(db.sqlite, MIGRATIONS);
  const states = db.sqlite
    .query("SELECT event_id, status, open_deliveries FROM event_states ORDER BY event_id")
    .all();
  expect(states).toEqual([
    { event_id: "e-failed", status: "failed", open_deliveries: 0 },
    { event_id: "e-filtered", status: "filtered", open_deliveries: 0 },
    { event_id: "e-pending", status: "pending", open_deliveries: 2 },
  ]);
  const events = createEventsRepo(db);
  expect(events.findById("e-pending")?.status).toBe("pending");
  expect(new TextDecoder().decode(events.findById("e-pending")?.body)).toBe("{}");
  expect(events.page("org", { status: "failed" }, 10, 0).events.map((e) => e.id)).toEqual([
    "e-failed",
  ]);
  // The state goes with its event.
  db.sqlite.run("DELETE FROM events WHERE id = 'e-failed'");
  expect(db.sqlite.query("SELECT count(*) AS n FROM event_states").get()).toEqual({ n: 2 });
});
