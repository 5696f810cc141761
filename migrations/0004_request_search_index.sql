-- Full-text search over captured requests (decisions.md §14, `q`): a contentless FTS5 table of
-- words (unicode61, no positions: the cheapest FTS5 form to keep on the capture path; a trigram
-- index cost about seven times as much to write). It narrows a search to the requests holding
-- every word of the query (the last one as a prefix); the exact text is then checked on those
-- rows only. Kept by triggers, so every capture, retention sweep, endpoint purge and cascade
-- updates it in the same transaction as the row itself. Bodies are indexed up to their
-- first 64 KiB (the rest is still stored and returned, only not searchable). The index is keyed
-- by the rowid of captured_requests, which VACUUM and VACUUM INTO (backups) keep.
CREATE VIRTUAL TABLE `captured_requests_search` USING fts5(
  doc,
  content = '',
  contentless_delete = 1,
  detail = none
);
--> statement-breakpoint
CREATE TRIGGER `captured_requests_search_insert` AFTER INSERT ON `captured_requests` BEGIN
  INSERT INTO `captured_requests_search` (rowid, doc) VALUES (
    new.rowid,
    new.path || '?' || new.query_string || char(10) || new.headers || char(10) ||
      coalesce(CAST(substr(new.body, 1, 65536) AS TEXT), '')
  );
END;
--> statement-breakpoint
CREATE TRIGGER `captured_requests_search_delete` AFTER DELETE ON `captured_requests` BEGIN
  DELETE FROM `captured_requests_search` WHERE rowid = old.rowid;
END;
--> statement-breakpoint
INSERT INTO `captured_requests_search` (rowid, doc)
  SELECT rowid, path || '?' || query_string || char(10) || headers || char(10) ||
    coalesce(CAST(substr(body, 1, 65536) AS TEXT), '')
  FROM `captured_requests`;
