CREATE TABLE `monitor_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`monitor_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`status` text NOT NULL,
	`status_code` integer,
	`response_time_ms` integer,
	`error` text,
	`checked_at` text NOT NULL,
	`tls_days_remaining` integer,
	FOREIGN KEY (`monitor_id`) REFERENCES `monitors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `monitor_checks_monitor_time` ON `monitor_checks` (`monitor_id`,`checked_at`);--> statement-breakpoint
CREATE INDEX `monitor_checks_org_time` ON `monitor_checks` (`organization_id`,`checked_at`);--> statement-breakpoint
CREATE TABLE `monitor_rollups` (
	`monitor_id` text NOT NULL,
	`period` text NOT NULL,
	`bucket_start` integer NOT NULL,
	`checks` integer DEFAULT 0 NOT NULL,
	`up` integer DEFAULT 0 NOT NULL,
	`down` integer DEFAULT 0 NOT NULL,
	`degraded` integer DEFAULT 0 NOT NULL,
	`response_sum` integer DEFAULT 0 NOT NULL,
	`response_count` integer DEFAULT 0 NOT NULL,
	`response_min` integer,
	`response_max` integer,
	`histogram` text DEFAULT '[0,0,0,0,0,0,0,0,0,0]' NOT NULL,
	PRIMARY KEY(`monitor_id`, `period`, `bucket_start`),
	FOREIGN KEY (`monitor_id`) REFERENCES `monitors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `monitor_state_events` (
	`id` text PRIMARY KEY NOT NULL,
	`monitor_id` text NOT NULL,
	`from_state` text NOT NULL,
	`to_state` text NOT NULL,
	`at` text NOT NULL,
	`reason` text,
	FOREIGN KEY (`monitor_id`) REFERENCES `monitors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `monitor_state_events_monitor_at` ON `monitor_state_events` (`monitor_id`,`at`);--> statement-breakpoint
CREATE TABLE `monitors` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`settings` text NOT NULL,
	`interval_seconds` integer NOT NULL,
	`timeout_seconds` integer NOT NULL,
	`retries` integer DEFAULT 0 NOT NULL,
	`push_token` text,
	`paused` integer DEFAULT 0 NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`phase_ms` integer NOT NULL,
	`next_check_at` integer,
	`locked_until` integer,
	`last_checked_at` text,
	`last_response_ms` integer,
	`checks_up` integer DEFAULT 0 NOT NULL,
	`checks_down` integer DEFAULT 0 NOT NULL,
	`checks_degraded` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `monitors_push_token_unique` ON `monitors` (`push_token`);--> statement-breakpoint
CREATE INDEX `monitors_due` ON `monitors` (`next_check_at`);--> statement-breakpoint
CREATE INDEX `monitors_org_due` ON `monitors` (`organization_id`,`next_check_at`);--> statement-breakpoint
CREATE INDEX `monitors_org_created` ON `monitors` (`organization_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `alert_rules` ADD `condition_monitor_ids` text;