CREATE TABLE `dedup_key_log` (
	`id` integer PRIMARY KEY NOT NULL,
	`source_id` text NOT NULL,
	`key` blob NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
-- The unexpired keys move over (hex text → the 32 bytes), oldest expiry first so the log stays
-- in roughly the order a sweep meets them; expired ones are left behind with the old table.
INSERT INTO `dedup_key_log` (`source_id`, `key`, `expires_at`)
	SELECT `source_id`, unhex(`key`), `expires_at` FROM `dedup_keys`
	WHERE `expires_at` > CAST(unixepoch('subsec') * 1000 AS INTEGER) AND length(`key`) = 64
	ORDER BY `expires_at`;
--> statement-breakpoint
DROP TABLE `dedup_keys`;
