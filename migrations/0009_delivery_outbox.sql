CREATE TABLE `deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`organization_id` text,
	`subject_id` text NOT NULL,
	`destination_key` text NOT NULL,
	`webhook_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_retries` integer NOT NULL,
	`attempts_before_requeue` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`locked_until` integer,
	`last_status_code` integer,
	`last_error_type` text,
	`last_error_code` text,
	`last_error_message` text,
	`last_latency_ms` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deliveries_due_idx` ON `deliveries` (`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `deliveries_subject_idx` ON `deliveries` (`kind`,`subject_id`);--> statement-breakpoint
CREATE INDEX `deliveries_created_idx` ON `deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`url` text NOT NULL,
	`method` text NOT NULL,
	`status_code` integer,
	`response_headers` text NOT NULL,
	`response_body` text NOT NULL,
	`latency_ms` integer NOT NULL,
	`error_type` text,
	`error_code` text,
	`error_message` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`delivery_id`) REFERENCES `deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery_idx` ON `delivery_attempts` (`delivery_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `delivery_breakers` (
	`destination_key` text PRIMARY KEY NOT NULL,
	`phase` text NOT NULL,
	`state` text NOT NULL,
	`updated_at` text NOT NULL
);
