-- The house's rooms (issue 28), guests' stays tied to them, and the rules the
-- database itself keeps, whatever the concurrency and whichever process writes
-- (SQLite runs one writer at a time, and a trigger runs inside the statement
-- that fires it). app/models/reservation.server.ts and
-- app/models/facility-booking.server.ts recognise the errors by their text.
CREATE TABLE `rooms` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`floor` integer NOT NULL,
	`room_type` text NOT NULL,
	`door_id` text,
	`status` text DEFAULT 'available' NOT NULL,
	`notes` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`door_id`) REFERENCES `doors`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rooms_name_unique` ON `rooms` (lower("name"));--> statement-breakpoint
CREATE INDEX `rooms_type_idx` ON `rooms` (`room_type`,`status`);--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `room_id` text REFERENCES rooms(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `sala_id` text REFERENCES facilities(id);--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `held_from` integer;--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `held_to` integer;--> statement-breakpoint
CREATE INDEX `anonymous_reservations_stay_idx` ON `anonymous_reservations` (`reservation_type`,`room_type`,`status`,`end_date`,`start_date`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_room_idx` ON `anonymous_reservations` (`room_id`,`end_date`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_sala_idx` ON `anonymous_reservations` (`sala_id`,`held_to`);--> statement-breakpoint
-- A first inventory, so a new install takes bookings at once (the admin edits it
-- at /admin/habitaciones): 4 individual rooms on the first floor, 4 doubles on
-- the second, 2 suites on the third.
INSERT INTO `rooms` (`id`, `name`, `floor`, `room_type`) VALUES
  ('room-101', '101', 1, 'individual'),
  ('room-102', '102', 1, 'individual'),
  ('room-103', '103', 1, 'individual'),
  ('room-104', '104', 1, 'individual'),
  ('room-201', '201', 2, 'doble'),
  ('room-202', '202', 2, 'doble'),
  ('room-203', '203', 2, 'doble'),
  ('room-204', '204', 2, 'doble'),
  ('room-301', '301', 3, 'suite'),
  ('room-302', '302', 3, 'suite');
--> statement-breakpoint
-- Room stays: the pending and confirmed stays of a type never need more rooms
-- on any night than there are rooms of that type in service. Nights are
-- half-open, [start_date, end_date): a stay may start the day another ends.
-- The busiest night of the new stay is its first or one on which another stay
-- starts, so only those nights are counted.
CREATE TRIGGER `anonymous_reservations_rooms_full_insert`
BEFORE INSERT ON `anonymous_reservations`
WHEN NEW.`reservation_type` = 'habitacion' AND NEW.`status` IN ('pending', 'confirmed')
BEGIN
  SELECT RAISE(ABORT, 'reservation_rooms_full')
  WHERE (SELECT count(*) FROM `rooms` WHERE `room_type` = NEW.`room_type` AND `status` = 'available') <= (
    SELECT max((
      SELECT count(*) FROM `anonymous_reservations` AS s
      WHERE s.`reservation_type` = 'habitacion' AND s.`room_type` = NEW.`room_type`
        AND s.`status` IN ('pending', 'confirmed')
        AND s.`end_date` > nights.`night` AND s.`start_date` <= nights.`night`
    ))
    FROM (
      SELECT NEW.`start_date` AS `night`
      UNION
      SELECT o.`start_date` FROM `anonymous_reservations` AS o
      WHERE o.`reservation_type` = 'habitacion' AND o.`room_type` = NEW.`room_type`
        AND o.`status` IN ('pending', 'confirmed')
        AND o.`end_date` > NEW.`start_date` AND o.`start_date` > NEW.`start_date` AND o.`start_date` < NEW.`end_date`
    ) AS nights
  );
END;
--> statement-breakpoint
-- The same when a row becomes an open stay or changes its type or nights
-- (the app never does; a confirmation changes neither).
CREATE TRIGGER `anonymous_reservations_rooms_full_update`
BEFORE UPDATE OF `status`, `reservation_type`, `room_type`, `start_date`, `end_date` ON `anonymous_reservations`
WHEN NEW.`reservation_type` = 'habitacion' AND NEW.`status` IN ('pending', 'confirmed')
  AND (OLD.`status` NOT IN ('pending', 'confirmed') OR OLD.`reservation_type` <> NEW.`reservation_type`
    OR OLD.`room_type` IS NOT NEW.`room_type` OR OLD.`start_date` <> NEW.`start_date` OR OLD.`end_date` <> NEW.`end_date`)
BEGIN
  SELECT RAISE(ABORT, 'reservation_rooms_full')
  WHERE (SELECT count(*) FROM `rooms` WHERE `room_type` = NEW.`room_type` AND `status` = 'available') <= (
    SELECT max((
      SELECT count(*) FROM `anonymous_reservations` AS s
      WHERE s.`id` <> NEW.`id` AND s.`reservation_type` = 'habitacion' AND s.`room_type` = NEW.`room_type`
        AND s.`status` IN ('pending', 'confirmed')
        AND s.`end_date` > nights.`night` AND s.`start_date` <= nights.`night`
    ))
    FROM (
      SELECT NEW.`start_date` AS `night`
      UNION
      SELECT o.`start_date` FROM `anonymous_reservations` AS o
      WHERE o.`id` <> NEW.`id` AND o.`reservation_type` = 'habitacion' AND o.`room_type` = NEW.`room_type`
        AND o.`status` IN ('pending', 'confirmed')
        AND o.`end_date` > NEW.`start_date` AND o.`start_date` > NEW.`start_date` AND o.`start_date` < NEW.`end_date`
    ) AS nights
  );
END;
--> statement-breakpoint
-- A room is never given to two open stays on the same night, and only to a
-- stay of its type while it is in service.
CREATE TRIGGER `anonymous_reservations_room_taken_insert`
BEFORE INSERT ON `anonymous_reservations`
WHEN NEW.`room_id` IS NOT NULL AND NEW.`status` IN ('pending', 'confirmed')
BEGIN
  SELECT RAISE(ABORT, 'reservation_room_unfit')
  WHERE NOT EXISTS (SELECT 1 FROM `rooms` WHERE `id` = NEW.`room_id` AND `room_type` = NEW.`room_type` AND `status` = 'available');
  SELECT RAISE(ABORT, 'reservation_room_taken')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`room_id` = NEW.`room_id` AND s.`status` IN ('pending', 'confirmed')
      AND s.`start_date` < NEW.`end_date` AND NEW.`start_date` < s.`end_date`
  );
END;
--> statement-breakpoint
CREATE TRIGGER `anonymous_reservations_room_taken_update`
BEFORE UPDATE OF `room_id`, `status`, `room_type`, `start_date`, `end_date` ON `anonymous_reservations`
WHEN NEW.`room_id` IS NOT NULL AND NEW.`status` IN ('pending', 'confirmed')
BEGIN
  SELECT RAISE(ABORT, 'reservation_room_unfit')
  WHERE (OLD.`room_id` IS NOT NEW.`room_id` OR OLD.`status` <> NEW.`status`)
    AND NOT EXISTS (SELECT 1 FROM `rooms` WHERE `id` = NEW.`room_id` AND `room_type` = NEW.`room_type` AND `status` = 'available');
  SELECT RAISE(ABORT, 'reservation_room_taken')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`id` <> NEW.`id` AND s.`room_id` = NEW.`room_id` AND s.`status` IN ('pending', 'confirmed')
      AND s.`start_date` < NEW.`end_date` AND NEW.`start_date` < s.`end_date`
  );
END;
--> statement-breakpoint
-- Meeting-room stays: each open one holds a sala for whole days,
-- [held_from, held_to), the sala neither held by another guest nor booked by
-- a resident on any of those days. Residents' facility bookings and guests'
-- salas are one calendar.
CREATE TRIGGER `anonymous_reservations_sala_insert`
BEFORE INSERT ON `anonymous_reservations`
WHEN NEW.`reservation_type` = 'sala' AND NEW.`status` IN ('pending', 'confirmed')
BEGIN
  SELECT RAISE(ABORT, 'reservation_salas_full')
  WHERE NEW.`sala_id` IS NULL OR NEW.`held_from` IS NULL OR NEW.`held_to` IS NULL OR NEW.`held_to` <= NEW.`held_from`;
  SELECT RAISE(ABORT, 'reservation_sala_taken')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`sala_id` = NEW.`sala_id` AND s.`status` IN ('pending', 'confirmed')
      AND s.`held_from` < NEW.`held_to` AND NEW.`held_from` < s.`held_to`
  );
  SELECT RAISE(ABORT, 'reservation_sala_resident')
  WHERE EXISTS (
    SELECT 1 FROM `facility_bookings` AS b
    WHERE b.`facility_id` = NEW.`sala_id` AND b.`status` = 'confirmed'
      AND b.`starts_at` < NEW.`held_to` AND NEW.`held_from` < b.`ends_at`
  );
END;
--> statement-breakpoint
CREATE TRIGGER `anonymous_reservations_sala_update`
BEFORE UPDATE OF `sala_id`, `status`, `held_from`, `held_to` ON `anonymous_reservations`
WHEN NEW.`sala_id` IS NOT NULL AND NEW.`status` IN ('pending', 'confirmed')
BEGIN
  SELECT RAISE(ABORT, 'reservation_salas_full')
  WHERE NEW.`held_from` IS NULL OR NEW.`held_to` IS NULL OR NEW.`held_to` <= NEW.`held_from`;
  SELECT RAISE(ABORT, 'reservation_sala_taken')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`id` <> NEW.`id` AND s.`sala_id` = NEW.`sala_id` AND s.`status` IN ('pending', 'confirmed')
      AND s.`held_from` < NEW.`held_to` AND NEW.`held_from` < s.`held_to`
  );
  SELECT RAISE(ABORT, 'reservation_sala_resident')
  WHERE EXISTS (
    SELECT 1 FROM `facility_bookings` AS b
    WHERE b.`facility_id` = NEW.`sala_id` AND b.`status` = 'confirmed'
      AND b.`starts_at` < NEW.`held_to` AND NEW.`held_from` < b.`ends_at`
  );
END;
--> statement-breakpoint
-- ...and a resident cannot book a sala on a day a guest holds it.
CREATE TRIGGER `facility_bookings_guest_sala_insert`
BEFORE INSERT ON `facility_bookings`
WHEN NEW.`status` = 'confirmed'
BEGIN
  SELECT RAISE(ABORT, 'facility_booking_guest_sala')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`sala_id` = NEW.`facility_id` AND s.`status` IN ('pending', 'confirmed')
      AND s.`held_from` < NEW.`ends_at` AND NEW.`starts_at` < s.`held_to`
  );
END;
--> statement-breakpoint
CREATE TRIGGER `facility_bookings_guest_sala_update`
BEFORE UPDATE OF `status`, `facility_id`, `starts_at`, `ends_at` ON `facility_bookings`
WHEN NEW.`status` = 'confirmed'
BEGIN
  SELECT RAISE(ABORT, 'facility_booking_guest_sala')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`sala_id` = NEW.`facility_id` AND s.`status` IN ('pending', 'confirmed')
      AND s.`held_from` < NEW.`ends_at` AND NEW.`starts_at` < s.`held_to`
  );
END;
