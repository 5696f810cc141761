-- The search index is written after the capture's commit instead of inside it (docs/performance.md,
-- capture): in the capture's transaction its trigger cost ~10 µs a row and a quarter of the WAL
-- pages each group commit writes. Rows are now indexed in chunks of hundreds, in their own
-- transaction, soon after they commit, and always before a search reads the index, so a search
-- still sees every committed capture. `indexed_through` is the highest rowid indexed; it moves in
-- the same transaction as the index, so a crash leaves neither ahead of the other.
CREATE TABLE `captured_requests_search_mark` (
	`id` integer PRIMARY KEY NOT NULL,
	`indexed_through` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `captured_requests_search_mark` (id, indexed_through)
  SELECT 1, coalesce(max(rowid), 0) FROM `captured_requests`;
--> statement-breakpoint
DROP TRIGGER `captured_requests_search_insert`;
--> statement-breakpoint
DROP TRIGGER `captured_requests_search_delete`;
--> statement-breakpoint
-- Deleting the newest rows frees their rowids for the next captures (SQLite hands out
-- max(rowid) + 1): the mark then comes down to the highest rowid left, so a reused rowid is
-- indexed again. Deleting a row not indexed yet removes nothing from the index.
CREATE TRIGGER `captured_requests_search_delete` AFTER DELETE ON `captured_requests` BEGIN
  DELETE FROM `captured_requests_search` WHERE rowid = old.rowid;
  UPDATE `captured_requests_search_mark`
     SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM `captured_requests`)
   WHERE indexed_through > (SELECT coalesce(max(rowid), 0) FROM `captured_requests`);
END;
