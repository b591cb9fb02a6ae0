DROP INDEX `access_logs_user_idx`;--> statement-breakpoint
CREATE INDEX `access_logs_user_idx` ON `access_logs` ("username" COLLATE NOCASE,`card_number`,`access_granted`,`timestamp`,`door_id`);