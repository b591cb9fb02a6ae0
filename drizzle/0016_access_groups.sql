CREATE TABLE `access_group_doors` (
	`group_id` text NOT NULL,
	`door_id` text NOT NULL,
	`schedule` text DEFAULT '[]' NOT NULL,
	PRIMARY KEY(`group_id`, `door_id`),
	FOREIGN KEY (`group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `access_group_doors_door_idx` ON `access_group_doors` (`door_id`);--> statement-breakpoint
CREATE TABLE `access_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_groups_name_unique` ON `access_groups` (lower("name"));--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_access_groups` (
	`user_id` text NOT NULL,
	`group_id` text NOT NULL,
	PRIMARY KEY(`user_id`, `group_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_access_groups_group_idx` ON `user_access_groups` (`group_id`);--> statement-breakpoint
ALTER TABLE `card_permissions` ADD `schedule` text;--> statement-breakpoint
-- The access groups a fresh install starts with (editable in /admin/grupos), filled with the
-- doors present now: entrances are doors without a facility; 'Residentes' opens them always
-- and the gym and pool doors 06:00-23:00; 'Coworking' opens the entrances and the meeting
-- rooms Monday to Friday 08:00-20:00. New residents join 'Residentes'.
INSERT INTO `access_groups` (`id`, `name`) VALUES ('residentes', 'Residentes'), ('coworking', 'Coworking');--> statement-breakpoint
INSERT INTO `access_group_doors` (`group_id`, `door_id`, `schedule`)
  SELECT 'residentes', d.`id`, '[]' FROM `doors` d WHERE d.`facility_id` IS NULL;--> statement-breakpoint
INSERT INTO `access_group_doors` (`group_id`, `door_id`, `schedule`)
  SELECT 'residentes', d.`id`, '[{"days":[1,2,3,4,5,6,7],"from":"06:00","to":"23:00"}]'
  FROM `doors` d JOIN `facilities` f ON f.`id` = d.`facility_id` WHERE f.`type` IN ('gym', 'pool');--> statement-breakpoint
INSERT INTO `access_group_doors` (`group_id`, `door_id`, `schedule`)
  SELECT 'coworking', d.`id`, '[{"days":[1,2,3,4,5],"from":"08:00","to":"20:00"}]'
  FROM `doors` d LEFT JOIN `facilities` f ON f.`id` = d.`facility_id` WHERE f.`id` IS NULL OR f.`type` = 'meeting-room';--> statement-breakpoint
INSERT INTO `settings` (`key`, `value`) VALUES ('defaultAccessGroupId', '"residentes"');
