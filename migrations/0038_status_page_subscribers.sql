CREATE TABLE `status_page_mails` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`subscriber_id` text,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscriber_id`) REFERENCES `status_page_subscribers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `status_page_mails_org_created` ON `status_page_mails` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `status_page_maintenance_notices` (
	`status_page_id` text NOT NULL,
	`window_id` text NOT NULL,
	`starts_at` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`status_page_id`, `window_id`, `starts_at`),
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `status_page_subscribers` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`email` text NOT NULL,
	`link_base` text NOT NULL,
	`confirmed_at` text,
	`confirmation_sent_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `status_page_subscribers_page_email` ON `status_page_subscribers` (`status_page_id`,`email`);--> statement-breakpoint
CREATE INDEX `status_page_subscribers_page_created` ON `status_page_subscribers` (`status_page_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `status_page_subscribers_email` ON `status_page_subscribers` (`email`,`confirmation_sent_at`);--> statement-breakpoint
ALTER TABLE `status_pages` ADD `allow_subscribers` integer DEFAULT 0 NOT NULL;