-- The search index no longer rewrites a segment inside the transaction that deletes a tenth of its
-- rows (FTS5's `deletemerge`, default 10): draining a deleted endpoint's 60k requests rewrote the
-- big segment again and again, 100–400 ms each time, holding every capture (docs/performance.md,
-- "Endpoints with a large history"). Deleted rows now stay as tombstones until the
-- `capture.search-merge` job, woken after the drain and retention, merges the index a few pages
-- per transaction. FTS5 keeps this setting in the index's own config table.
INSERT INTO `captured_requests_search` (`captured_requests_search`, `rank`) VALUES ('deletemerge', 0);
