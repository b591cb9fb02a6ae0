DROP INDEX `access_logs_card_idx`;--> statement-breakpoint
DROP INDEX `access_logs_user_idx`;--> statement-breakpoint
CREATE INDEX `access_logs_door_granted_idx` ON `access_logs` (`door_id`,`access_granted`,`timestamp`);--> statement-breakpoint
CREATE INDEX `access_logs_door_card_idx` ON `access_logs` (`door_id`,`card_number`,`access_granted`,`timestamp`);--> statement-breakpoint
CREATE INDEX `access_logs_card_idx` ON `access_logs` (`card_number`,`access_granted`,`timestamp`,`door_id`);--> statement-breakpoint
CREATE INDEX `access_logs_user_idx` ON `access_logs` ("username" COLLATE NOCASE,`timestamp`,`access_granted`,`door_id`,`card_number`);