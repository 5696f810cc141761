CREATE TABLE `issue_samples` (
	`id` text PRIMARY KEY NOT NULL,
	`issue_id` text NOT NULL,
	`event_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`response_excerpt` text NOT NULL,
	`error_type` text NOT NULL,
	`error_code` text NOT NULL,
	`error_message` text NOT NULL,
	`occurred_at` text NOT NULL,
	FOREIGN KEY (`issue_id`) REFERENCES `issues`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `issue_samples_issue_idx` ON `issue_samples` (`issue_id`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `issues` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`bridge_id` text NOT NULL,
	`destination_id` text NOT NULL,
	`status` text NOT NULL,
	`error_type` text NOT NULL,
	`error_code` text NOT NULL,
	`error_message` text NOT NULL,
	`occurrence_count` integer NOT NULL,
	`first_occurrence_at` text NOT NULL,
	`last_occurrence_at` text NOT NULL,
	`opened_at` text NOT NULL,
	`resolved_at` text,
	`last_success_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`destination_id`) REFERENCES `destinations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `issues_unclosed_pattern_unique` ON `issues` (`destination_id`,`error_type`,`error_code`,`bridge_id`,`organization_id`) WHERE status <> 'closed';--> statement-breakpoint
CREATE INDEX `issues_pattern_idx` ON `issues` (`destination_id`,`error_type`,`error_code`,`status`);--> statement-breakpoint
CREATE INDEX `issues_org_idx` ON `issues` (`organization_id`,`last_occurrence_at`);--> statement-breakpoint
CREATE INDEX `issues_unclosed_opened_idx` ON `issues` (`opened_at`) WHERE status <> 'closed';--> statement-breakpoint
CREATE INDEX `issues_closed_resolved_idx` ON `issues` (`resolved_at`) WHERE status = 'closed';