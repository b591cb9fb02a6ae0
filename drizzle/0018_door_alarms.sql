CREATE TABLE `door_alarms` (
	`id` text PRIMARY KEY NOT NULL,
	`door_id` text NOT NULL,
	`kind` text NOT NULL,
	`raised_at` integer NOT NULL,
	`cleared_at` integer,
	`notified_at` integer,
	`incident_id` text,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`incident_id`) REFERENCES `incidents`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `door_alarms_open_unique` ON `door_alarms` (`door_id`,`kind`) WHERE "door_alarms"."cleared_at" IS NULL;--> statement-breakpoint
CREATE INDEX `door_alarms_raised_idx` ON `door_alarms` (`raised_at`);--> statement-breakpoint
CREATE INDEX `door_alarms_cleared_idx` ON `door_alarms` (`cleared_at`);--> statement-breakpoint
CREATE INDEX `door_alarms_unnotified_idx` ON `door_alarms` (`notified_at`);--> statement-breakpoint
ALTER TABLE `doors` ADD `held_open_seconds` integer DEFAULT 30 NOT NULL;