CREATE TABLE `maintenance_windows` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`monitor_ids` text NOT NULL,
	`starts_at` text,
	`ends_at` text,
	`cron` text,
	`duration_minutes` integer,
	`timezone` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `maintenance_windows_org_created` ON `maintenance_windows` (`organization_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `monitor_checks` ADD `maintenance` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `monitor_rollups` ADD `maintenance` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `monitors` ADD `checks_maintenance` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `monitors` ADD `maintenance_from` text;