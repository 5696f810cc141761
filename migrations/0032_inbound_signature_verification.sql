ALTER TABLE `captured_requests` ADD `verification_status` text;--> statement-breakpoint
ALTER TABLE `captured_requests` ADD `verification_reason` text;--> statement-breakpoint
ALTER TABLE `dedup_counters` ADD `rejected_unverified` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `debug_endpoints` ADD `verification` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `verification` text;