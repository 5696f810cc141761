CREATE TABLE `bridges` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`source_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bridges_org_idx` ON `bridges` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bridges_source_idx` ON `bridges` (`source_id`);--> statement-breakpoint
CREATE TABLE `destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`bridge_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`priority` text NOT NULL,
	`url` text,
	`method` text,
	`headers` text,
	`max_retries` integer NOT NULL,
	`webhook_url` text,
	`bot_token` text,
	`chat_id` text,
	`filters` text NOT NULL,
	`transformation_id` text,
	`signing_secret` text,
	`previous_signing_secret` text,
	`previous_secret_until` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`bridge_id`) REFERENCES `bridges`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `destinations_bridge_idx` ON `destinations` (`bridge_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`source_id` text NOT NULL,
	`bridge_id` text,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`query_string` text NOT NULL,
	`headers` text NOT NULL,
	`raw_headers` text NOT NULL,
	`body` blob NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_org_created_idx` ON `events` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_source_idx` ON `events` (`source_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`slug` text NOT NULL,
	`deduplication_config` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_slug_unique` ON `sources` (`slug`);--> statement-breakpoint
CREATE INDEX `sources_org_idx` ON `sources` (`organization_id`,`created_at`);