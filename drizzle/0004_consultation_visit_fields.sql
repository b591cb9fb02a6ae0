ALTER TABLE `consultations` ADD `visit_date` text;--> statement-breakpoint
ALTER TABLE `consultations` ADD `visit_time` text;