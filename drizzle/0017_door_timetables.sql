CREATE TABLE `holidays` (
	`id` text PRIMARY KEY NOT NULL,
	`day` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `holidays_day_unique` ON `holidays` (`day`);--> statement-breakpoint
ALTER TABLE `doors` ADD `unlock_schedule` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `doors` ADD `unlock_on_holidays` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `doors` ADD `first_person_in` integer DEFAULT false NOT NULL;