CREATE TABLE `api_key_usage_days` (
	`api_key_id` text NOT NULL,
	`date` text NOT NULL,
	`requests` integer NOT NULL,
	`errors` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `date`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `expires_at` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `rate_limit_per_minute` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `allowed_ips` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `last_ip` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `last_user_agent` text;