ALTER TABLE `door_keys` ADD `created_by` text REFERENCES users(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `door_keys` ADD `visitor_name` text;--> statement-breakpoint
ALTER TABLE `door_keys` ADD `visitor_email` text;--> statement-breakpoint
ALTER TABLE `door_keys` ADD `first_used_at` integer;--> statement-breakpoint
ALTER TABLE `door_keys` ADD `arrival_notified_at` integer;--> statement-breakpoint
CREATE INDEX `door_keys_created_by_idx` ON `door_keys` (`created_by`,`valid_until`);--> statement-breakpoint
CREATE INDEX `door_keys_arrival_idx` ON `door_keys` (`kind`,`arrival_notified_at`,`first_used_at`);