import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import { dedupRepo } from "./dedup.repo.ts";

const MOVE = "0021_dedup_keys_in_an_append_only_log";
const databaseBefore = useDatabasesBefore(MOVE);

test("the move to the key log carries the unexpired keys of dedup_keys over, and drops the table", () => {
  const db = databaseBefore();
  const now = Date.now();
  const hex = (n: number) => n.toString(16).padStart(2, "0").repeat(32);
  const insert = db.sqlite.prepare(
    "INSERT INTO dedup_keys (source_id, key, expires_at) VALUES (?, ?, ?)",
  );
  insert.run("src_a", hex(1), now + 3_600_000);
  insert.run("src_a", hex(2), now - 1);
  insert.run("src_b", hex(1), now + 60_000);

  runMigrations(db.sqlite, MIGRATIONS);

  const rows = db.sqlite
    .query<{ source_id: string; key: Uint8Array; expires_at: number }, []>(
      "SELECT source_id, key, expires_at FROM dedup_key_log ORDER BY expires_at",
    )
    .all()
    .map((r) => ({ ...r, key: Buffer.from(r.key).toString("hex") }));
  expect(rows).toEqual([
    { source_id: "src_b", key: hex(1), expires_at: now + 60_000 },
    { source_id: "src_a", key: hex(1), expires_at: now + 3_600_000 },
  ]);
  expect(
    db.sqlite.query("SELECT name FROM sqlite_master WHERE name LIKE 'dedup_keys%'").all(),
  ).toEqual([]);

  // And the server that starts on it recognises them.
  const keys = createDedupKeys({ repo: dedupRepo, maxKeys: 100 });
  const claim = (source: string, n: number) =>
    db.tx((tx) => {
      keys.begin(tx, now);
      return keys.claim(tx, source, Buffer.from(hex(n), "hex"), now + 1_000, now);
    });
  expect(claim("src_a", 1)).toBe("duplicate");
  expect(claim("src_b", 1)).toBe("duplicate");
  expect(claim("src_a", 2)).toBe("fresh");
});
