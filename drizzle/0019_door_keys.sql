CREATE TABLE `door_key_doors` (
	`key_id` text NOT NULL,
	`door_id` text NOT NULL,
	PRIMARY KEY(`key_id`, `door_id`),
	FOREIGN KEY (`key_id`) REFERENCES `door_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `door_key_doors_door_idx` ON `door_key_doors` (`door_id`);--> statement-breakpoint
CREATE TABLE `door_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`reservation_id` text,
	`status` text DEFAULT 'active' NOT NULL,
	`pin` text NOT NULL,
	`qr_token` text NOT NULL,
	`qr_hash` text NOT NULL,
	`holder_label` text NOT NULL,
	`holder_first_name` text DEFAULT '' NOT NULL,
	`windows` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_until` integer NOT NULL,
	`entrances` integer DEFAULT false NOT NULL,
	`revoked_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`reservation_id`) REFERENCES `anonymous_reservations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `door_keys_pin_idx` ON `door_keys` (`pin`,`status`,`valid_until`);--> statement-breakpoint
CREATE UNIQUE INDEX `door_keys_qr_hash_unique` ON `door_keys` (`qr_hash`);--> statement-breakpoint
CREATE INDEX `door_keys_reservation_idx` ON `door_keys` (`reservation_id`);--> statement-breakpoint
CREATE INDEX `door_keys_status_idx` ON `door_keys` (`status`,`valid_until`);--> statement-breakpoint
ALTER TABLE `access_logs` ADD `credential_kind` text DEFAULT 'card' NOT NULL;--> statement-breakpoint
ALTER TABLE `access_logs` ADD `key_id` text REFERENCES door_keys(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `access_logs` ADD `holder` text;--> statement-breakpoint
CREATE INDEX `access_logs_kind_idx` ON `access_logs` (`credential_kind`,`timestamp`);--> statement-breakpoint
ALTER TABLE `doors` ADD `is_entrance` integer DEFAULT false NOT NULL;