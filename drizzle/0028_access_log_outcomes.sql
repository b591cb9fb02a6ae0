-- Issue 40, points 15 and 17. access_granted holds the row's outcome: 0
-- denied, 1 granted, 2 a door alarm (source 'alarm': never a grant or a
-- denial), 3 a denial resolved by approving its card (resolved_at, set by
-- DELETE /api/logs/cleanup and the log's approval, which no longer delete).
-- In that column the indexes that hold it stay covering, and the counters
-- (migrations 0015, 0025), keyed by it, are kept per outcome as they are;
-- access_log_card_last now keeps each card's newest grant or denial only.
-- The log is append-only like the audit trail: deletes are refused except
-- for rows older than access_log_control.purge_before, which the retention
-- purge raises inside its own transaction and sets back to 0 before it
-- commits; a row's identity (id, event, time, card, door code, source) is
-- never rewritten, a resolution stays, and an alarm or resolved row keeps its
-- outcome (a later change of it is ignored, so no writer's batch fails).
CREATE TABLE `access_log_control` (
	`id` integer PRIMARY KEY NOT NULL,
	`purge_before` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `access_log_control` (`id`, `purge_before`) VALUES (1, 0);
--> statement-breakpoint
ALTER TABLE `access_logs` ADD `resolved_at` integer;
--> statement-breakpoint
DROP TRIGGER `access_log_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `access_log_counts_delete`;
--> statement-breakpoint
DROP TRIGGER `access_log_counts_update`;
--> statement-breakpoint
CREATE TRIGGER `access_log_counts_insert` AFTER INSERT ON `access_logs` BEGIN
  INSERT INTO access_log_hours (hour, door_key, granted, attempts)
    VALUES (CAST(new.timestamp AS INTEGER) / 3600000, coalesce(new.door_id, ''), new.access_granted, 1)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1;
  INSERT INTO access_log_card_doors (door_key, card_number, granted, attempts, last_at)
    VALUES (coalesce(new.door_id, ''), new.card_number, new.access_granted, 1, new.timestamp)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1, last_at = max(last_at, excluded.last_at);
  INSERT INTO access_log_cards (card_number, granted, attempts, last_at)
    VALUES (new.card_number, new.access_granted, 1, new.timestamp)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1, last_at = max(last_at, excluded.last_at);
  INSERT INTO access_log_card_last (card_number, last_at)
    SELECT new.card_number, new.timestamp WHERE new.access_granted IN (0, 1)
    ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at);
END;
--> statement-breakpoint
CREATE TRIGGER `access_log_counts_delete` AFTER DELETE ON `access_logs` BEGIN
  UPDATE access_log_hours SET attempts = attempts - 1
    WHERE hour = CAST(old.timestamp AS INTEGER) / 3600000 AND door_key = coalesce(old.door_id, '') AND granted = old.access_granted;
  DELETE FROM access_log_hours
    WHERE hour = CAST(old.timestamp AS INTEGER) / 3600000 AND door_key = coalesce(old.door_id, '') AND granted = old.access_granted AND attempts <= 0;
  UPDATE access_log_card_doors SET attempts = attempts - 1,
      last_at = CASE WHEN old.timestamp < last_at THEN last_at ELSE coalesce((
        SELECT max(timestamp) FROM access_logs
        WHERE door_id IS old.door_id AND card_number = old.card_number AND access_granted = old.access_granted), 0) END
    WHERE door_key = coalesce(old.door_id, '') AND card_number = old.card_number AND granted = old.access_granted;
  DELETE FROM access_log_card_doors
    WHERE door_key = coalesce(old.door_id, '') AND card_number = old.card_number AND granted = old.access_granted AND attempts <= 0;
  UPDATE access_log_cards SET attempts = attempts - 1,
      last_at = CASE WHEN old.timestamp < last_at THEN last_at ELSE coalesce((
        SELECT max(timestamp) FROM access_logs WHERE card_number = old.card_number AND access_granted = old.access_granted), 0) END
    WHERE card_number = old.card_number AND granted = old.access_granted;
  DELETE FROM access_log_cards WHERE card_number = old.card_number AND granted = old.access_granted AND attempts <= 0;
  DELETE FROM access_log_card_last
    WHERE card_number = old.card_number AND NOT EXISTS (SELECT 1 FROM access_log_cards WHERE card_number = old.card_number AND granted IN (0, 1));
  UPDATE access_log_card_last SET last_at = (SELECT max(last_at) FROM access_log_cards WHERE card_number = old.card_number AND granted IN (0, 1))
    WHERE card_number = old.card_number AND last_at <= old.timestamp;
END;
--> statement-breakpoint
-- An update (an offline decision overriding the online one, a door's deletion
-- setting door_id to NULL, a denial resolved) moves the row from its old key to its new one.
CREATE TRIGGER `access_log_counts_update` AFTER UPDATE OF timestamp, door_id, card_number, access_granted ON `access_logs` BEGIN
  UPDATE access_log_hours SET attempts = attempts - 1
    WHERE hour = CAST(old.timestamp AS INTEGER) / 3600000 AND door_key = coalesce(old.door_id, '') AND granted = old.access_granted;
  DELETE FROM access_log_hours
    WHERE hour = CAST(old.timestamp AS INTEGER) / 3600000 AND door_key = coalesce(old.door_id, '') AND granted = old.access_granted AND attempts <= 0;
  UPDATE access_log_card_doors SET attempts = attempts - 1,
      last_at = CASE WHEN old.timestamp < last_at THEN last_at ELSE coalesce((
        SELECT max(timestamp) FROM access_logs
        WHERE door_id IS old.door_id AND card_number = old.card_number AND access_granted = old.access_granted), 0) END
    WHERE door_key = coalesce(old.door_id, '') AND card_number = old.card_number AND granted = old.access_granted;
  DELETE FROM access_log_card_doors
    WHERE door_key = coalesce(old.door_id, '') AND card_number = old.card_number AND granted = old.access_granted AND attempts <= 0;
  UPDATE access_log_cards SET attempts = attempts - 1,
      last_at = CASE WHEN old.timestamp < last_at THEN last_at ELSE coalesce((
        SELECT max(timestamp) FROM access_logs WHERE card_number = old.card_number AND access_granted = old.access_granted), 0) END
    WHERE card_number = old.card_number AND granted = old.access_granted;
  DELETE FROM access_log_cards WHERE card_number = old.card_number AND granted = old.access_granted AND attempts <= 0;
  DELETE FROM access_log_card_last
    WHERE card_number = old.card_number AND NOT EXISTS (SELECT 1 FROM access_log_cards WHERE card_number = old.card_number AND granted IN (0, 1));
  UPDATE access_log_card_last SET last_at = (SELECT max(last_at) FROM access_log_cards WHERE card_number = old.card_number AND granted IN (0, 1))
    WHERE card_number = old.card_number AND last_at <= old.timestamp;
  INSERT INTO access_log_hours (hour, door_key, granted, attempts)
    VALUES (CAST(new.timestamp AS INTEGER) / 3600000, coalesce(new.door_id, ''), new.access_granted, 1)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1;
  INSERT INTO access_log_card_doors (door_key, card_number, granted, attempts, last_at)
    VALUES (coalesce(new.door_id, ''), new.card_number, new.access_granted, 1, new.timestamp)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1, last_at = max(last_at, excluded.last_at);
  INSERT INTO access_log_cards (card_number, granted, attempts, last_at)
    VALUES (new.card_number, new.access_granted, 1, new.timestamp)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1, last_at = max(last_at, excluded.last_at);
  INSERT INTO access_log_card_last (card_number, last_at)
    SELECT new.card_number, new.timestamp WHERE new.access_granted IN (0, 1)
    ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at);
END;
--> statement-breakpoint
-- The alarms logged so far: their own outcome (the trigger above moves their counters).
UPDATE access_logs SET access_granted = 2 WHERE source = 'alarm' AND access_granted = 0;
--> statement-breakpoint
DELETE FROM `access_log_card_last`;
--> statement-breakpoint
INSERT INTO `access_log_card_last` (card_number, last_at)
  SELECT card_number, max(last_at) FROM access_log_cards WHERE granted IN (0, 1) GROUP BY card_number;
--> statement-breakpoint
CREATE TRIGGER `access_logs_no_delete`
BEFORE DELETE ON `access_logs`
WHEN OLD.`timestamp` >= COALESCE((SELECT `purge_before` FROM `access_log_control` WHERE `id` = 1), 0)
BEGIN
  SELECT RAISE(ABORT, 'access_logs_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `access_logs_no_rewrite`
BEFORE UPDATE OF `id`, `event_id`, `timestamp`, `card_number`, `door_code`, `source` ON `access_logs`
WHEN NEW.`id` IS NOT OLD.`id` OR NEW.`event_id` IS NOT OLD.`event_id` OR NEW.`timestamp` IS NOT OLD.`timestamp`
  OR NEW.`card_number` IS NOT OLD.`card_number` OR NEW.`door_code` IS NOT OLD.`door_code` OR NEW.`source` IS NOT OLD.`source`
BEGIN
  SELECT RAISE(ABORT, 'access_logs_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `access_logs_resolution_stays`
BEFORE UPDATE OF `resolved_at` ON `access_logs`
WHEN OLD.`resolved_at` IS NOT NULL AND NEW.`resolved_at` IS NOT OLD.`resolved_at`
BEGIN
  SELECT RAISE(ABORT, 'access_logs_append_only');
END;
--> statement-breakpoint
-- A resolved denial or an alarm keeps its outcome: a door's late offline
-- decision for that swipe changes nothing (IGNORE skips that row only).
CREATE TRIGGER `access_logs_outcome_stays`
BEFORE UPDATE OF `access_granted` ON `access_logs`
WHEN OLD.`access_granted` IN (2, 3) AND NEW.`access_granted` IS NOT OLD.`access_granted`
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
-- The purge's bound is never in the future, and the control row stays.
CREATE TRIGGER `access_log_control_bound`
BEFORE UPDATE OF `purge_before` ON `access_log_control`
WHEN NEW.`purge_before` > unixepoch('subsec') * 1000
BEGIN
  SELECT RAISE(ABORT, 'access_log_purge_bound');
END;
--> statement-breakpoint
CREATE TRIGGER `access_log_control_no_delete`
BEFORE DELETE ON `access_log_control`
BEGIN
  SELECT RAISE(ABORT, 'access_logs_append_only');
END;
