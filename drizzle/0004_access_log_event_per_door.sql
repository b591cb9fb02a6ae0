ALTER TABLE `access_logs` ADD `event_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `access_logs_door_event_idx` ON `access_logs` (`door_code`,`event_id`);