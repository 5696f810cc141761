ALTER TABLE `debug_endpoints` ADD `request_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `debug_endpoints` ADD `cleared_through_id` text;--> statement-breakpoint
ALTER TABLE `debug_endpoints` ADD `deleted_at` text;--> statement-breakpoint
ALTER TABLE `debug_endpoints` ADD `drain_pending` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `debug_endpoints_drain_idx` ON `debug_endpoints` (`id`) WHERE "debug_endpoints"."drain_pending" = 1;--> statement-breakpoint
-- The counter starts exact: what each endpoint holds now (after this, capture's group commit,
-- retention, emptying and the drain keep it).
UPDATE `debug_endpoints` SET `request_count` = (
  SELECT count(*) FROM `captured_requests` WHERE `endpoint_id` = `debug_endpoints`.`id`
);
