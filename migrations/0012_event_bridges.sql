CREATE TABLE `event_bridges` (
	`event_id` text NOT NULL,
	`bridge_id` text NOT NULL,
	PRIMARY KEY(`event_id`, `bridge_id`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bridge_id`) REFERENCES `bridges`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_bridges_bridge_idx` ON `event_bridges` (`bridge_id`,`event_id`);--> statement-breakpoint
-- Events stored before this table named one bridge each: keep that one where it still exists.
INSERT INTO `event_bridges` (`event_id`, `bridge_id`)
  SELECT `events`.`id`, `events`.`bridge_id` FROM `events`
  JOIN `bridges` ON `bridges`.`id` = `events`.`bridge_id`;--> statement-breakpoint
ALTER TABLE `events` DROP COLUMN `bridge_id`;