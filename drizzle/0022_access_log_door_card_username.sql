DROP INDEX `access_logs_door_card_idx`;--> statement-breakpoint
CREATE INDEX `access_logs_door_card_idx` ON `access_logs` (`door_id`,`card_number`,`access_granted`,`timestamp`,`username`);