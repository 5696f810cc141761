CREATE TABLE `dedup_shared_keys` (
	`source_id` text NOT NULL,
	`key` blob NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `dedup_shared_keys_expires_idx` ON `dedup_shared_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `rate_buckets` (
	`key` text PRIMARY KEY NOT NULL,
	`tokens` real NOT NULL,
	`updated_at` integer NOT NULL
);
