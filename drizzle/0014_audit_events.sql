-- The audit trail (docs/audit.md): the events and the purge's control row.
CREATE TABLE `audit_control` (
	`id` integer PRIMARY KEY NOT NULL,
	`purge_below` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`actor_id` text,
	`actor_username` text NOT NULL,
	`actor_role` text NOT NULL,
	`ip` text,
	`action` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text,
	`summary` text NOT NULL,
	`before` text,
	`after` text,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_at_idx` ON `audit_events` (`at`);--> statement-breakpoint
CREATE INDEX `audit_events_actor_idx` ON `audit_events` ("actor_username" COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `audit_events_entity_idx` ON `audit_events` (`entity_type`,`entity_id`);--> statement-breakpoint
CREATE INDEX `audit_events_action_idx` ON `audit_events` (`action`);--> statement-breakpoint
-- The audit trail is append-only (docs/audit.md): the database itself refuses
-- to change an event, and to delete one unless the retention purge has set
-- `audit_control.purge_below` above its id inside the purge's transaction.
INSERT INTO `audit_control` (`id`, `purge_below`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `audit_events_no_update`
BEFORE UPDATE ON `audit_events`
BEGIN
  SELECT RAISE(ABORT, 'audit_events_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_events_no_delete`
BEFORE DELETE ON `audit_events`
WHEN OLD.`id` >= COALESCE((SELECT `purge_below` FROM `audit_control` WHERE `id` = 1), 0)
BEGIN
  SELECT RAISE(ABORT, 'audit_events_append_only');
END;
--> statement-breakpoint
-- The purge's bound never reaches an event of the last 28 days (the shortest
-- retention is one month), and the control row stays.
CREATE TRIGGER `audit_control_bound`
BEFORE UPDATE OF `purge_below` ON `audit_control`
WHEN NEW.`purge_below` > COALESCE(
  (SELECT MIN(`id`) FROM `audit_events` WHERE `at` >= unixepoch('subsec') * 1000 - 28 * 86400000),
  (SELECT MAX(`id`) + 1 FROM `audit_events`),
  0
)
BEGIN
  SELECT RAISE(ABORT, 'audit_purge_bound');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_control_no_delete`
BEFORE DELETE ON `audit_control`
BEGIN
  SELECT RAISE(ABORT, 'audit_events_append_only');
END;
