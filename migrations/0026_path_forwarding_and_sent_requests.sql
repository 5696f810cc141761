ALTER TABLE `delivery_attempts` ADD `sent_request` text;--> statement-breakpoint
ALTER TABLE `destinations` ADD `path_forwarding` integer DEFAULT true NOT NULL;