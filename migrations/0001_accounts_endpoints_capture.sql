CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_org_idx` ON `api_keys` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `memberships` (
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `user_id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`email_key` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_key_unique` ON `users` (`email_key`);--> statement-breakpoint
CREATE TABLE `captured_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`query_string` text NOT NULL,
	`headers` text NOT NULL,
	`raw_headers` text NOT NULL,
	`body` blob NOT NULL,
	`content_type` text,
	`size` integer NOT NULL,
	`remote_ip` text,
	`status` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`endpoint_id`) REFERENCES `debug_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `captured_requests_endpoint_idx` ON `captured_requests` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE INDEX `captured_requests_created_idx` ON `captured_requests` (`created_at`);--> statement-breakpoint
CREATE TABLE `request_forwards` (
	`id` text PRIMARY KEY NOT NULL,
	`request_id` text NOT NULL,
	`url` text NOT NULL,
	`method` text NOT NULL,
	`status_code` integer,
	`response_headers` text,
	`response_body` text,
	`latency_ms` integer,
	`error` text,
	`attempt` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`request_id`) REFERENCES `captured_requests`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `request_forwards_request_idx` ON `request_forwards` (`request_id`,`id`);--> statement-breakpoint
CREATE INDEX `request_forwards_created_idx` ON `request_forwards` (`created_at`);--> statement-breakpoint
CREATE TABLE `debug_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`response_headers` text,
	`response_body` text,
	`response_delay_ms` integer DEFAULT 0 NOT NULL,
	`forward_url` text,
	`anonymous_token_hash` text,
	`expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `debug_endpoints_slug_unique` ON `debug_endpoints` (`slug`);--> statement-breakpoint
CREATE INDEX `debug_endpoints_org_idx` ON `debug_endpoints` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `debug_endpoints_expires_idx` ON `debug_endpoints` (`expires_at`);