CREATE TABLE `status_page_components` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`kind` text NOT NULL,
	`target_id` text NOT NULL,
	`display_name` text,
	`display_order` integer DEFAULT 0 NOT NULL,
	`group_name` text,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_page_components_page` ON `status_page_components` (`status_page_id`);--> statement-breakpoint
CREATE TABLE `status_page_incident_updates` (
	`id` text PRIMARY KEY NOT NULL,
	`incident_id` text NOT NULL,
	`status` text NOT NULL,
	`message` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`incident_id`) REFERENCES `status_page_incidents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_page_incident_updates_incident` ON `status_page_incident_updates` (`incident_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `status_page_incidents` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`title` text NOT NULL,
	`impact` text NOT NULL,
	`status` text NOT NULL,
	`monitor_ids` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`resolved_at` text,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_page_incidents_page_created` ON `status_page_incidents` (`status_page_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `status_page_monitors` (
	`status_page_id` text NOT NULL,
	`monitor_id` text NOT NULL,
	`display_name` text,
	`display_order` integer DEFAULT 0 NOT NULL,
	`group_name` text,
	PRIMARY KEY(`status_page_id`, `monitor_id`),
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`monitor_id`) REFERENCES `monitors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `status_pages` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`description` text,
	`logo_url` text,
	`primary_color` text NOT NULL,
	`show_service_branding` integer DEFAULT 1 NOT NULL,
	`custom_domain` text,
	`groups` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `status_pages_slug_unique` ON `status_pages` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `status_pages_custom_domain_unique` ON `status_pages` (`custom_domain`);--> statement-breakpoint
CREATE INDEX `status_pages_org_created` ON `status_pages` (`organization_id`,`created_at`);