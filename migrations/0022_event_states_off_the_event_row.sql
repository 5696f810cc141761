CREATE TABLE `event_states` (
	`event_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`open_deliveries` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Every event keeps its status; the open count is its deliveries that have not ended yet.
INSERT INTO `event_states` (`event_id`, `status`, `open_deliveries`)
SELECT e.`id`, e.`status`,
  (SELECT count(*) FROM `deliveries` d
    WHERE d.`kind` = 'event' AND d.`subject_id` = e.`id` AND d.`status` NOT IN ('delivered', 'failed'))
FROM `events` e;--> statement-breakpoint
ALTER TABLE `events` DROP COLUMN `status`;