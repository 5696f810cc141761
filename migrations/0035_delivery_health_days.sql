CREATE TABLE `delivery_health_days` (
	`destination_id` text NOT NULL,
	`day` text NOT NULL,
	`organization_id` text NOT NULL,
	`bridge_id` text NOT NULL,
	`attempted` integer NOT NULL,
	`delivered` integer NOT NULL,
	`last_failure_at` integer,
	PRIMARY KEY(`destination_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `delivery_health_days_bridge_idx` ON `delivery_health_days` (`bridge_id`,`day`);--> statement-breakpoint
CREATE INDEX `delivery_health_days_day_idx` ON `delivery_health_days` (`day`);--> statement-breakpoint
-- The outcomes of the event deliveries still stored count from the start. A delivery that
-- ended with nothing sent (a transformation dropped it: delivered, no attempt) is not one.
INSERT INTO `delivery_health_days` (`destination_id`, `day`, `organization_id`, `bridge_id`, `attempted`, `delivered`, `last_failure_at`)
SELECT d.`destination_key`, substr(d.`updated_at`, 1, 10), dest.`organization_id`, dest.`bridge_id`,
       count(*), sum(d.`status` = 'delivered'), NULL
FROM `deliveries` d JOIN `destinations` dest ON dest.`id` = d.`destination_key`
WHERE d.`kind` = 'event' AND d.`next_attempt_at` IS NULL AND d.`attempts` > 0
  AND d.`status` IN ('delivered', 'failed')
GROUP BY d.`destination_key`, substr(d.`updated_at`, 1, 10);
--> statement-breakpoint
-- A deleted bridge's days have nothing left to show them (its API and its status page component
-- are gone); deleting an organization removes its bridges, so its days go too. A deleted
-- destination's days stay: they are part of its bridge's history.
CREATE TRIGGER `delivery_health_days_bridge_deleted` AFTER DELETE ON `bridges`
BEGIN
  DELETE FROM `delivery_health_days` WHERE `bridge_id` = OLD.`id`;
END;
