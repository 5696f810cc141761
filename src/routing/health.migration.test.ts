import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";

const MIGRATION = "0035_delivery_health_days";
const databaseBefore = useDatabasesBefore(MIGRATION);

test("the ended event deliveries already stored are counted per destination and day; a bridge's days go with it", () => {
  const db = databaseBefore();
  const { sqlite } = db;
  seedOrganization(sqlite, "org");
  sqlite.run(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES ('src', 'org', 'Shop', 'webhook', 'shop', 't', 't')`,
  );
  sqlite.run(
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
     VALUES ('br', 'org', 'src', 'Payments', 'active', 't', 't')`,
  );
  sqlite.run(
    `INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, max_retries,
       filters, created_at, updated_at)
     VALUES ('dest', 'br', 'org', 'ledger', 'http', 'normal', 5, '[]', 't', 't')`,
  );
  const insert = sqlite.prepare(
    `INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key, webhook_id,
       status, attempts, max_retries, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, 'org', 'ev', ?, ?, ?, ?, 5, ?, 't', ?)`,
  );
  const day1 = "2026-01-01T10:00:00.000Z";
  const day2 = "2026-01-02T10:00:00.000Z";
  insert.run("d1", "event", "dest", "m1", "delivered", 1, null, day1);
  insert.run("d2", "event", "dest", "m2", "failed", 6, null, day1);
  insert.run("d3", "event", "dest", "m3", "delivered", 3, null, day2);
  // Not counted: a transformation dropped it (nothing sent), one still retrying, a forward.
  insert.run("d4", "event", "dest", "m4", "delivered", 0, null, day2);
  insert.run("d5", "event", "dest", "m5", "retrying", 2, 123, day2);
  insert.run("d6", "forward", "forward:ep", "m6", "delivered", 1, null, day2);

  runMigrations(sqlite, MIGRATIONS);

  const rows = () =>
    sqlite
      .query(
        `SELECT destination_id, day, organization_id, bridge_id, attempted, delivered
         FROM delivery_health_days ORDER BY day`,
      )
      .all();
  const owner = { destination_id: "dest", organization_id: "org", bridge_id: "br" };
  expect(rows()).toEqual([
    { ...owner, day: "2026-01-01", attempted: 2, delivered: 1 },
    { ...owner, day: "2026-01-02", attempted: 1, delivered: 1 },
  ]);

  sqlite.run("DELETE FROM destinations WHERE id = 'dest'");
  expect(rows()).toHaveLength(2); // still the bridge's history
  sqlite.run("DELETE FROM organizations WHERE id = 'org'"); // its bridges go by cascade
  expect(rows()).toEqual([]);
});
