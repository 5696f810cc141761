DROP INDEX `captured_requests_created_idx`;--> statement-breakpoint
CREATE INDEX `captured_requests_endpoint_created_idx` ON `captured_requests` (`endpoint_id`,`created_at`);