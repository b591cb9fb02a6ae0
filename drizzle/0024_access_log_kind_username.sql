DROP INDEX `access_logs_kind_idx`;--> statement-breakpoint
DROP INDEX `access_logs_kind_door_idx`;--> statement-breakpoint
CREATE INDEX `access_logs_kind_idx` ON `access_logs` (`credential_kind`,`timestamp`,`access_granted`,`card_number`,`username`);--> statement-breakpoint
CREATE INDEX `access_logs_kind_door_idx` ON `access_logs` (`credential_kind`,`door_id`,`timestamp`,`access_granted`,`card_number`,`username`);