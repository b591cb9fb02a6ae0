-- A facility's confirmed bookings never overlap: the database itself refuses
-- the write that would make two of them overlap, whatever the concurrency and
-- whichever process writes (SQLite runs one writer at a time, and a trigger
-- runs inside the statement that fires it). Intervals are half-open
-- [starts_at, ends_at), so back-to-back bookings are allowed.
-- app/models/facility-booking.server.ts recognises the error by its text.
CREATE TRIGGER `facility_bookings_no_overlap_insert`
BEFORE INSERT ON `facility_bookings`
WHEN NEW.`status` = 'confirmed'
BEGIN
  SELECT RAISE(ABORT, 'facility_booking_overlap')
  WHERE EXISTS (
    SELECT 1 FROM `facility_bookings` AS b
    WHERE b.`facility_id` = NEW.`facility_id`
      AND b.`status` = 'confirmed'
      AND b.`starts_at` < NEW.`ends_at`
      AND NEW.`starts_at` < b.`ends_at`
  );
END;
--> statement-breakpoint
CREATE TRIGGER `facility_bookings_no_overlap_update`
BEFORE UPDATE OF `status`, `facility_id`, `starts_at`, `ends_at` ON `facility_bookings`
WHEN NEW.`status` = 'confirmed'
BEGIN
  SELECT RAISE(ABORT, 'facility_booking_overlap')
  WHERE EXISTS (
    SELECT 1 FROM `facility_bookings` AS b
    WHERE b.`id` <> NEW.`id`
      AND b.`facility_id` = NEW.`facility_id`
      AND b.`status` = 'confirmed'
      AND b.`starts_at` < NEW.`ends_at`
      AND NEW.`starts_at` < b.`ends_at`
  );
END;
--> statement-breakpoint
-- An interval that ends before it starts is not a booking.
CREATE TRIGGER `facility_bookings_valid_interval`
BEFORE INSERT ON `facility_bookings`
WHEN NEW.`ends_at` <= NEW.`starts_at`
BEGIN
  SELECT RAISE(ABORT, 'facility_booking_invalid_interval');
END;
