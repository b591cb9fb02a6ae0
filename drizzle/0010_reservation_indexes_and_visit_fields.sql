DROP INDEX `anonymous_reservations_created_idx`;--> statement-breakpoint
CREATE INDEX `anonymous_reservations_list_idx` ON `anonymous_reservations` (`created_at`,`status`,`end_date`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_status_end_idx` ON `anonymous_reservations` (`status`,`end_date`);--> statement-breakpoint
ALTER TABLE `consultations` ADD `visit_date` text;--> statement-breakpoint
ALTER TABLE `consultations` ADD `visit_time` text;