CREATE TABLE `alert_firings` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`issue_id` text,
	`condition_key` text NOT NULL,
	`test` integer NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_firings_once_unique` ON `alert_firings` (`rule_id`,`issue_id`,`condition_key`);--> statement-breakpoint
CREATE INDEX `alert_firings_rule_idx` ON `alert_firings` (`rule_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`condition_type` text NOT NULL,
	`condition_value` real,
	`channel_type` text NOT NULL,
	`channel` text NOT NULL,
	`signing_secret` text,
	`enabled` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_rules_org_idx` ON `alert_rules` (`organization_id`,`created_at`);