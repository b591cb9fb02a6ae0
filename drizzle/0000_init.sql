CREATE TABLE `access_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`timestamp` integer NOT NULL,
	`card_id` text,
	`card_number` text NOT NULL,
	`door_id` text,
	`door_code` text NOT NULL,
	`door_name` text,
	`user_id` text,
	`username` text,
	`access_granted` integer NOT NULL,
	`reason` text NOT NULL,
	`is_anonymous` integer DEFAULT false NOT NULL,
	`offline` integer DEFAULT false NOT NULL,
	`source` text,
	`ip_address` text,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `access_logs_timestamp_idx` ON `access_logs` (`timestamp`);--> statement-breakpoint
CREATE INDEX `access_logs_granted_idx` ON `access_logs` (`access_granted`,`timestamp`);--> statement-breakpoint
CREATE INDEX `access_logs_door_idx` ON `access_logs` (`door_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `access_logs_card_idx` ON `access_logs` (`card_number`,`timestamp`);--> statement-breakpoint
CREATE INDEX `access_logs_card_id_idx` ON `access_logs` (`card_id`,`access_granted`);--> statement-breakpoint
CREATE INDEX `access_logs_user_idx` ON `access_logs` (`username`,`timestamp`);--> statement-breakpoint
CREATE TABLE `anonymous_reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`reservation_code` text NOT NULL,
	`guest_name` text NOT NULL,
	`guest_email` text NOT NULL,
	`guest_phone` text NOT NULL,
	`contact_preference` text DEFAULT 'email' NOT NULL,
	`reservation_type` text NOT NULL,
	`room_type` text,
	`start_date` text NOT NULL,
	`end_date` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`special_requests` text,
	`admin_notes` text,
	`ip_address` text,
	`confirmed_at` integer,
	`cancelled_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `anonymous_reservations_code_unique` ON `anonymous_reservations` (`reservation_code`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_status_idx` ON `anonymous_reservations` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_created_idx` ON `anonymous_reservations` (`created_at`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`last_used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user_idx` ON `api_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `api_tokens_expires_idx` ON `api_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `building_readings` (
	`id` text PRIMARY KEY NOT NULL,
	`temperature` real NOT NULL,
	`humidity` real NOT NULL,
	`wifi_status` text NOT NULL,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `building_readings_recorded_idx` ON `building_readings` (`recorded_at`);--> statement-breakpoint
CREATE TABLE `captcha_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`answer_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `captcha_challenges_expires_idx` ON `captcha_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `card_permissions` (
	`card_id` text NOT NULL,
	`door_id` text NOT NULL,
	`granted` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`card_id`, `door_id`),
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `card_permissions_door_idx` ON `card_permissions` (`door_id`);--> statement-breakpoint
CREATE TABLE `cards` (
	`id` text PRIMARY KEY NOT NULL,
	`card_number` text NOT NULL,
	`alias` text,
	`description` text,
	`card_type` text DEFAULT 'primary' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`is_anonymous` integer DEFAULT false NOT NULL,
	`user_id` text,
	`expires_at` integer,
	`last_used_at` integer,
	`total_access_attempts` integer DEFAULT 0 NOT NULL,
	`successful_accesses` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cards_card_number_unique` ON `cards` (`card_number`);--> statement-breakpoint
CREATE INDEX `cards_user_idx` ON `cards` (`user_id`);--> statement-breakpoint
CREATE INDEX `cards_status_idx` ON `cards` (`status`);--> statement-breakpoint
CREATE INDEX `cards_last_used_idx` ON `cards` (`last_used_at`);--> statement-breakpoint
CREATE INDEX `cards_created_idx` ON `cards` (`created_at`);--> statement-breakpoint
CREATE INDEX `cards_anonymous_idx` ON `cards` (`is_anonymous`);--> statement-breakpoint
CREATE INDEX `cards_expires_idx` ON `cards` (`expires_at`);--> statement-breakpoint
CREATE TABLE `consultations` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text DEFAULT 'consulta' NOT NULL,
	`nombre` text NOT NULL,
	`email` text NOT NULL,
	`telefono` text NOT NULL,
	`mensaje` text NOT NULL,
	`message_hash` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`admin_notes` text,
	`ip_address` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consultations_status_idx` ON `consultations` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `consultations_created_idx` ON `consultations` (`created_at`);--> statement-breakpoint
CREATE INDEX `consultations_duplicate_idx` ON `consultations` (`email`,`message_hash`,`created_at`);--> statement-breakpoint
CREATE TABLE `doors` (
	`id` text PRIMARY KEY NOT NULL,
	`door_id` text NOT NULL,
	`name` text NOT NULL,
	`location` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'active' NOT NULL,
	`use_custom_messages` integer DEFAULT false NOT NULL,
	`custom_status` text,
	`custom_message` text,
	`last_access_at` integer,
	`hardware` text,
	`bridge_secret_hash` text,
	`bridge_secret_issued_at` integer,
	`credentials_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `doors_door_id_unique` ON `doors` (`door_id`);--> statement-breakpoint
CREATE INDEX `doors_status_idx` ON `doors` (`status`);--> statement-breakpoint
CREATE TABLE `facilities` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`capacity` integer,
	`sort_order` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `facility_bookings` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`facility_id` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`duration_hours` integer NOT NULL,
	`notes` text,
	`status` text DEFAULT 'confirmed' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`facility_id`) REFERENCES `facilities`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `facility_bookings_user_idx` ON `facility_bookings` (`user_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `facility_bookings_facility_idx` ON `facility_bookings` (`facility_id`,`starts_at`);--> statement-breakpoint
CREATE TABLE `incidents` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`title` text NOT NULL,
	`type` text DEFAULT 'other' NOT NULL,
	`category` text,
	`status` text DEFAULT 'open' NOT NULL,
	`urgency` text DEFAULT 'medium' NOT NULL,
	`description` text,
	`location` text,
	`door_id` text,
	`door_name` text,
	`reported_by_id` text,
	`reported_by` text,
	`reporter_name` text,
	`floor` text,
	`photos` text,
	`reported_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`reported_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `incidents_status_idx` ON `incidents` (`status`,`reported_at`);--> statement-breakpoint
CREATE INDEX `incidents_type_idx` ON `incidents` (`type`,`reported_at`);--> statement-breakpoint
CREATE INDEX `incidents_urgency_idx` ON `incidents` (`urgency`,`reported_at`);--> statement-breakpoint
CREATE INDEX `incidents_door_idx` ON `incidents` (`door_id`,`reported_at`);--> statement-breakpoint
CREATE INDEX `incidents_reporter_idx` ON `incidents` (`reported_by_id`,`reported_at`);--> statement-breakpoint
CREATE INDEX `incidents_reported_idx` ON `incidents` (`reported_at`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`type` text DEFAULT 'info' NOT NULL,
	`title` text NOT NULL,
	`message` text NOT NULL,
	`read` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`,`read`,`created_at`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`reset_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`department` text,
	`phone` text,
	`role` text DEFAULT 'user' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`notes` text,
	`unit_number` text,
	`building_name` text,
	`avatar` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (lower("email"));--> statement-breakpoint
CREATE INDEX `users_role_idx` ON `users` (`role`);--> statement-breakpoint
CREATE INDEX `users_status_idx` ON `users` (`status`);