CREATE TABLE `capture_refusals` (
	`endpoint_id` text PRIMARY KEY NOT NULL,
	`rate_limited` integer DEFAULT 0 NOT NULL,
	`too_large` integer DEFAULT 0 NOT NULL,
	`last_refused_at` text,
	FOREIGN KEY (`endpoint_id`) REFERENCES `debug_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
