-- Pending holds (issue 40, point 5): when a pending stay began to hold, when it
-- lapses, its email link token (hashed) and when a lapsed one was released.
ALTER TABLE `anonymous_reservations` ADD `held_since` integer;--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `email_token_hash` text;--> statement-breakpoint
ALTER TABLE `anonymous_reservations` ADD `lapsed_at` integer;--> statement-breakpoint
CREATE INDEX `anonymous_reservations_expiry_idx` ON `anonymous_reservations` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_email_idx` ON `anonymous_reservations` (lower("guest_email"),`status`);--> statement-breakpoint
CREATE INDEX `anonymous_reservations_ip_idx` ON `anonymous_reservations` (`ip_address`,`created_at`);--> statement-breakpoint
-- Issue 40: a confirmed stay holds its place; a pending one until
-- `expires_at`, unless it awaits its guest's email (a link token in
-- `email_token_hash` and no `held_since` yet: then it holds nothing). The
-- stays booked before this migration held at once: they keep holding, the
-- pending ones for 72 hours from now (PENDING_HOLD_HOURS' default).
UPDATE `anonymous_reservations` SET `held_since` = coalesce(`confirmed_at`, `created_at`) WHERE `status` IN ('pending', 'confirmed');
--> statement-breakpoint
UPDATE `anonymous_reservations` SET `expires_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) + 72 * 3600000 WHERE `status` = 'pending';
--> statement-breakpoint
-- The inventory's triggers (drizzle/0013_rooms_inventory.sql) count only the
-- stays that hold at the statement's instant, by the database's clock, so a
-- lapsed hold stops counting at once whenever the release job runs
-- (app/models/reservation.server.ts, holdsSql, says the same).
DROP TRIGGER `anonymous_reservations_rooms_full_insert`;
--> statement-breakpoint
DROP TRIGGER `anonymous_reservations_rooms_full_update`;
--> statement-breakpoint
DROP TRIGGER `anonymous_reservations_sala_insert`;
--> statement-breakpoint
DROP TRIGGER `anonymous_reservations_sala_update`;
--> statement-breakpoint
DROP TRIGGER `facility_bookings_guest_sala_insert`;
--> statement-breakpoint
DROP TRIGGER `facility_bookings_guest_sala_update`;
--> statement-breakpoint
CREATE TRIGGER `anonymous_reservations_rooms_full_insert`
BEFORE INSERT ON `anonymous_reservations`
WHEN NEW.`reservation_type` = 'habitacion'
  AND (NEW.`status` = 'confirmed' OR (NEW.`status` = 'pending' AND (NEW.`held_since` IS NOT NULL OR NEW.`email_token_hash` IS NULL)
    AND (NEW.`expires_at` IS NULL OR NEW.`expires_at` > unixepoch('subsec') * 1000)))
BEGIN
  SELECT RAISE(ABORT, 'reservation_rooms_full')
  WHERE (SELECT count(*) FROM `rooms` WHERE `room_type` = NEW.`room_type` AND `status` = 'available') <= (
    SELECT max((
      SELECT count(*) FROM `anonymous_reservations` AS s
      WHERE s.`reservation_type` = 'habitacion' AND s.`room_type` = NEW.`room_type`
        AND s.`status` IN ('pending', 'confirmed')
        AND (s.`status` = 'confirmed' OR ((s.`held_since` IS NOT NULL OR s.`email_token_hash` IS NULL) AND (s.`expires_at` IS NULL OR s.`expires_at` > unixepoch('subsec') * 1000)))
        AND s.`end_date` > nights.`night` AND s.`start_date` <= nights.`night`
    ))
    FROM (
      SELECT NEW.`start_date` AS `night`
      UNION
      SELECT o.`start_date` FROM `anonymous_reservations` AS o
      WHERE o.`reservation_type` = 'habitacion' AND o.`room_type` = NEW.`room_type`
        AND o.`status` IN ('pending', 'confirmed')
        AND (o.`status` = 'confirmed' OR ((o.`held_since` IS NOT NULL OR o.`email_token_hash` IS NULL) AND (o.`expires_at` IS NULL OR o.`expires_at` > unixepoch('subsec') * 1000)))
        AND o.`end_date` > NEW.`start_date` AND o.`start_date` > NEW.`start_date` AND o.`start_date` < NEW.`end_date`
    ) AS nights
  );
END;
--> statement-breakpoint
-- The same when a row begins to hold (its email confirmed, the house confirms
-- a stay that did not hold, a new status) or a holding row changes its type
-- or nights.
CREATE TRIGGER `anonymous_reservations_rooms_full_update`
BEFORE UPDATE OF `status`, `reservation_type`, `room_type`, `start_date`, `end_date`, `held_since`, `expires_at`, `email_token_hash` ON `anonymous_reservations`
WHEN NEW.`reservation_type` = 'habitacion'
  AND (NEW.`status` = 'confirmed' OR (NEW.`status` = 'pending' AND (NEW.`held_since` IS NOT NULL OR NEW.`email_token_hash` IS NULL)
    AND (NEW.`expires_at` IS NULL OR NEW.`expires_at` > unixepoch('subsec') * 1000)))
  AND (NOT (OLD.`status` = 'confirmed' OR (OLD.`status` = 'pending' AND (OLD.`held_since` IS NOT NULL OR OLD.`email_token_hash` IS NULL)
      AND (OLD.`expires_at` IS NULL OR OLD.`expires_at` > unixepoch('subsec') * 1000)))
    OR OLD.`reservation_type` <> NEW.`reservation_type`
    OR OLD.`room_type` IS NOT NEW.`room_type` OR OLD.`start_date` <> NEW.`start_date` OR OLD.`end_date` <> NEW.`end_date`)
BEGIN
  SELECT RAISE(ABORT, 'reservation_rooms_full')
  WHERE (SELECT count(*) FROM `rooms` WHERE `room_type` = NEW.`room_type` AND `status` = 'available') <= (
    SELECT max((
      SELECT count(*) FROM `anonymous_reservations` AS s
      WHERE s.`id` <> NEW.`id` AND s.`reservation_type` = 'habitacion' AND s.`room_type` = NEW.`room_type`
        AND s.`status` IN ('pending', 'confirmed')
        AND (s.`status` = 'confirmed' OR ((s.`held_since` IS NOT NULL OR s.`email_token_hash` IS NULL) AND (s.`expires_at` IS NULL OR s.`expires_at` > unixepoch('subsec') * 1000)))
        AND s.`end_date` > nights.`night` AND s.`start_date` <= nights.`night`
    ))
    FROM (
      SELECT NEW.`start_date` AS `night`
      UNION
      SELECT o.`start_date` FROM `anonymous_reservations` AS o
      WHERE o.`id` <> NEW.`id` AND o.`reservation_type` = 'habitacion' AND o.`room_type` = NEW.`room_type`
        AND o.`status` IN ('pending', 'confirmed')
        AND (o.`status` = 'confirmed' OR ((o.`held_since` IS NOT NULL OR o.`email_token_hash` IS NULL) AND (o.`expires_at` IS NULL OR o.`expires_at` > unixepoch('subsec') * 1000)))
        AND o.`end_date` > NEW.`start_date` AND o.`start_date` > NEW.`start_date` AND o.`start_date` < NEW.`end_date`
    ) AS nights
  );
END;
--> statement-breakpoint
-- Meeting-room stays: one that holds has a sala for whole days that no other
-- holding stay and no resident's booking has. One awaiting its guest's email
-- has no sala yet; it takes one when it begins to hold.
CREATE TRIGGER `anonymous_reservations_sala_insert`
BEFORE INSERT ON `anonymous_reservations`
WHEN NEW.`reservation_type` = 'sala'
  AND (NEW.`status` = 'confirmed' OR (NEW.`status` = 'pending' AND (NEW.`held_since` IS NOT NULL OR NEW.`email_token_hash` IS NULL)
    AND (NEW.`expires_at` IS NULL OR NEW.`expires_at` > unixepoch('subsec') * 1000)))
BEGIN
  SELECT RAISE(ABORT, 'reservation_salas_full')
  WHERE NEW.`sala_id` IS NULL OR NEW.`held_from` IS NULL OR NEW.`held_to` IS NULL OR NEW.`held_to` <= NEW.`held_from`;
  SELECT RAISE(ABORT, 'reservation_sala_taken')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`sala_id` = NEW.`sala_id` AND s.`status` IN ('pending', 'confirmed')
      AND (s.`status` = 'confirmed' OR ((s.`held_since` IS NOT NULL OR s.`email_token_hash` IS NULL) AND (s.`expires_at` IS NULL OR s.`expires_at` > unixepoch('subsec') * 1000)))
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
BEFORE UPDATE OF `sala_id`, `status`, `held_from`, `held_to`, `held_since`, `expires_at`, `email_token_hash` ON `anonymous_reservations`
WHEN NEW.`sala_id` IS NOT NULL
  AND (NEW.`status` = 'confirmed' OR (NEW.`status` = 'pending' AND (NEW.`held_since` IS NOT NULL OR NEW.`email_token_hash` IS NULL)
    AND (NEW.`expires_at` IS NULL OR NEW.`expires_at` > unixepoch('subsec') * 1000)))
BEGIN
  SELECT RAISE(ABORT, 'reservation_salas_full')
  WHERE NEW.`held_from` IS NULL OR NEW.`held_to` IS NULL OR NEW.`held_to` <= NEW.`held_from`;
  SELECT RAISE(ABORT, 'reservation_sala_taken')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`id` <> NEW.`id` AND s.`sala_id` = NEW.`sala_id` AND s.`status` IN ('pending', 'confirmed')
      AND (s.`status` = 'confirmed' OR ((s.`held_since` IS NOT NULL OR s.`email_token_hash` IS NULL) AND (s.`expires_at` IS NULL OR s.`expires_at` > unixepoch('subsec') * 1000)))
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
-- ...and a resident cannot book a sala on a day a holding guest's stay has it.
CREATE TRIGGER `facility_bookings_guest_sala_insert`
BEFORE INSERT ON `facility_bookings`
WHEN NEW.`status` = 'confirmed'
BEGIN
  SELECT RAISE(ABORT, 'facility_booking_guest_sala')
  WHERE EXISTS (
    SELECT 1 FROM `anonymous_reservations` AS s
    WHERE s.`sala_id` = NEW.`facility_id` AND s.`status` IN ('pending', 'confirmed')
      AND (s.`status` = 'confirmed' OR ((s.`held_since` IS NOT NULL OR s.`email_token_hash` IS NULL) AND (s.`expires_at` IS NULL OR s.`expires_at` > unixepoch('subsec') * 1000)))
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
      AND (s.`status` = 'confirmed' OR ((s.`held_since` IS NOT NULL OR s.`email_token_hash` IS NULL) AND (s.`expires_at` IS NULL OR s.`expires_at` > unixepoch('subsec') * 1000)))
      AND s.`held_from` < NEW.`ends_at` AND NEW.`starts_at` < s.`held_to`
  );
END;
