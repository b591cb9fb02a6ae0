-- Alarm storms (issue 40, point 4): an alarm raised within the repeat window
-- of the notified one of its door and kind is its repeat (repeat_of), with no
-- notice or incident of its own; the notified one counts them (repeats).
ALTER TABLE `door_alarms` ADD `repeat_of` text REFERENCES door_alarms(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `door_alarms` ADD `repeats` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `door_alarms_door_kind_raised_idx` ON `door_alarms` (`door_id`,`kind`,`raised_at`);
