-- Captured headers are stored once, as the ordered pairs of `raw_headers`; the lowercased object
-- (repeats joined with ", ") is derived from them when a request is read (docs/performance.md,
-- capture). The object was a second JSON text of the same headers in every row: ~100 bytes a
-- row on small webhooks, a second JSON.stringify per capture and more WAL pages per group commit.
-- Every row already holds its pairs, so nothing is converted; SQLite rewrites each row once to
-- drop the column (rowids are kept, so the search index still points at the right rows).
ALTER TABLE `captured_requests` DROP COLUMN `headers`;
