-- The access log's figures as counters (issue 27): rows per hour, door and
-- result; per card, door and result; per card and result, with the newest
-- row's time. Kept by the triggers below, backfilled from the rows already
-- logged. app/models/access-log-query.server.ts reads them. WITHOUT ROWID
-- (added by hand; drizzle-kit does not write it): each table is its primary
-- key's b-tree, so a range of it is read in one pass, with no lookup per row.
CREATE TABLE `access_log_card_doors` (
	`door_key` text NOT NULL,
	`card_number` text NOT NULL,
	`granted` integer NOT NULL,
	`attempts` integer NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`door_key`, `card_number`, `granted`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `access_log_cards` (
	`card_number` text NOT NULL,
	`granted` integer NOT NULL,
	`attempts` integer NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`card_number`, `granted`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `access_log_hours` (
	`hour` integer NOT NULL,
	`door_key` text NOT NULL,
	`granted` integer NOT NULL,
	`attempts` integer NOT NULL,
	PRIMARY KEY(`hour`, `door_key`, `granted`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `access_log_hours_door_idx` ON `access_log_hours` (`door_key`,`hour`);
--> statement-breakpoint
-- Triggers: the counters follow every change of access_logs in the same
-- transaction as the change. A deleted or moved row that was its key's newest
-- gives last_at the newest remaining one (an index seek); a key whose last row
-- went is deleted, so a count never stays at zero.
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
END;
--> statement-breakpoint
-- An update (a door's offline decision overriding the online one, a door's
-- deletion setting door_id to NULL) moves the row from its old key to its new one.
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
  INSERT INTO access_log_hours (hour, door_key, granted, attempts)
    VALUES (CAST(new.timestamp AS INTEGER) / 3600000, coalesce(new.door_id, ''), new.access_granted, 1)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1;
  INSERT INTO access_log_card_doors (door_key, card_number, granted, attempts, last_at)
    VALUES (coalesce(new.door_id, ''), new.card_number, new.access_granted, 1, new.timestamp)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1, last_at = max(last_at, excluded.last_at);
  INSERT INTO access_log_cards (card_number, granted, attempts, last_at)
    VALUES (new.card_number, new.access_granted, 1, new.timestamp)
    ON CONFLICT DO UPDATE SET attempts = attempts + 1, last_at = max(last_at, excluded.last_at);
END;
--> statement-breakpoint
-- The rows logged before this migration.
INSERT INTO access_log_hours (hour, door_key, granted, attempts)
  SELECT CAST(timestamp AS INTEGER) / 3600000, coalesce(door_id, ''), access_granted, count(*) FROM access_logs
  GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO access_log_card_doors (door_key, card_number, granted, attempts, last_at)
  SELECT coalesce(door_id, ''), card_number, access_granted, count(*), max(timestamp) FROM access_logs
  GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO access_log_cards (card_number, granted, attempts, last_at)
  SELECT card_number, access_granted, count(*), max(timestamp) FROM access_logs
  GROUP BY 1, 2;
