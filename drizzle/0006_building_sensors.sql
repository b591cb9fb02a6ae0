CREATE TABLE `building_sensors` (
	`id` text PRIMARY KEY NOT NULL,
	`sensor_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`secret_issued_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `building_sensors_sensor_id_unique` ON `building_sensors` (`sensor_id`);