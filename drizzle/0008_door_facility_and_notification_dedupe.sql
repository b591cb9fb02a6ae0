-- drizzle-kit leaves ON DELETE out of ADD COLUMN: a deleted facility unlinks its doors.
ALTER TABLE `doors` ADD `facility_id` text REFERENCES facilities(id) ON DELETE set null;--> statement-breakpoint
CREATE INDEX `doors_facility_idx` ON `doors` (`facility_id`);--> statement-breakpoint
ALTER TABLE `notifications` ADD `dedupe_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_dedupe_key_unique` ON `notifications` (`dedupe_key`) WHERE "notifications"."dedupe_key" IS NOT NULL;