ALTER TABLE `doors` ADD `facility_id` text REFERENCES facilities(id) ON DELETE set null;--> statement-breakpoint
CREATE INDEX `doors_facility_idx` ON `doors` (`facility_id`);