ALTER TABLE `monitor_state_events` ADD `held_by` text;--> statement-breakpoint
ALTER TABLE `monitors` ADD `parent_id` text REFERENCES monitors(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `monitors` ADD `held_alert_id` text;--> statement-breakpoint
CREATE INDEX `monitors_parent` ON `monitors` (`parent_id`);