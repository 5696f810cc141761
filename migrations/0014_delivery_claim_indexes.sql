DROP INDEX `deliveries_due_idx`;--> statement-breakpoint
DROP INDEX `deliveries_subject_idx`;--> statement-breakpoint
CREATE INDEX `deliveries_key_due_idx` ON `deliveries` (`destination_key`,`next_attempt_at`,`id`,`locked_until`);--> statement-breakpoint
CREATE INDEX `deliveries_due_idx` ON `deliveries` (`next_attempt_at`,`id`,`locked_until`,`destination_key`);--> statement-breakpoint
CREATE INDEX `deliveries_subject_idx` ON `deliveries` (`kind`,`subject_id`,`created_at`,`id`);