DROP INDEX `deliveries_due_idx`;--> statement-breakpoint
CREATE INDEX `deliveries_org_due_idx` ON `deliveries` (`organization_id`,`next_attempt_at`,`id`,`locked_until`,`destination_key`);--> statement-breakpoint
CREATE INDEX `deliveries_due_idx` ON `deliveries` (`next_attempt_at`,`id`,`locked_until`,`destination_key`,`organization_id`);--> statement-breakpoint
DROP INDEX `issues_unclosed_opened_idx`;--> statement-breakpoint
CREATE INDEX `issues_unclosed_opened_idx` ON `issues` (`organization_id`,`opened_at`) WHERE status <> 'closed';