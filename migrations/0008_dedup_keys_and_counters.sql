CREATE TABLE `dedup_counters` (
	`source_id` text NOT NULL,
	`hour_start` integer NOT NULL,
	`total_requests` integer DEFAULT 0 NOT NULL,
	`duplicates_rejected` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`source_id`, `hour_start`)
);
--> statement-breakpoint
CREATE TABLE `dedup_keys` (
	`source_id` text NOT NULL,
	`key` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `dedup_keys_expires_idx` ON `dedup_keys` (`expires_at`);