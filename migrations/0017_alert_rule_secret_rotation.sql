ALTER TABLE `alert_rules` ADD `previous_signing_secret` text;--> statement-breakpoint
ALTER TABLE `alert_rules` ADD `previous_secret_until` integer;