import { afterEach, expect, test } from "bun:test";
import { claimGroupSql, claimKeySql, claimSql } from "../db/db.due-rows.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";

let db: TestDb | null = null;
afterEach(() => {
  db?.destroy();
  db = null;
});

/** How SQLite runs a statement: the details of EXPLAIN QUERY PLAN, one string. */
function plan(sql: string, ...args: (string | number)[]): string {
  db ??= createTestDb();
  const rows = db.sqlite.query(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[];
  return rows.map((r) => r.detail).join(" | ");
}

const outbox = { table: "deliveries", key: "destination_key" };

// The claims run on every freed slot: a sort or a row read per skipped row made each one cost
// the whole backlog (docs/design/delivery.md, "Measured").
test("the claim over every destination walks a covering index in due order, no sort", () => {
  const text = plan(claimSql(outbox, true), 1, 1, 1, "[]", 1);
  expect(text).toContain("COVERING INDEX deliveries_due_idx");
  expect(text).not.toContain("TEMP B-TREE");
});

test("the refill of one destination walks that destination's covering index, no sort", () => {
  const text = plan(claimKeySql(outbox), 1, "forward:x", 1, 1, 1);
  expect(text).toContain("COVERING INDEX deliveries_key_due_idx (destination_key=?");
  expect(text).not.toContain("TEMP B-TREE");
});

test("the claim of an organization owed its part walks that organization's covering index, no sort", () => {
  const fair = { ...outbox, group: "organization_id" };
  const text = plan(claimGroupSql(fair), 1, "org-1", 1, 1, "[]", 1);
  expect(text).toContain("COVERING INDEX deliveries_org_due_idx (organization_id=?");
  expect(text).not.toContain("TEMP B-TREE");
});

test("the claim that skips organizations at their part still walks the due index, no sort", () => {
  const fair = { ...outbox, group: "organization_id" };
  const text = plan(claimSql(fair, true), 1, 1, 1, "[]", "[]", 1);
  expect(text).toContain("COVERING INDEX deliveries_due_idx");
  expect(text).not.toContain("TEMP B-TREE");
});
