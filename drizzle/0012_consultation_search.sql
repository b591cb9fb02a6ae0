-- The admin's consultation search ("Nombre, email o mensaje..."): a trigram
-- full-text index over name, email and message, so "contains" is an index
-- lookup instead of a scan of every message. Trigrams match any substring of
-- three or more characters, ignoring case and accents (app/models/consultation.server.ts
-- falls back to LIKE for shorter searches). External content: the text stays
-- in `consultations`, the index follows its rowid through these triggers.
CREATE VIRTUAL TABLE `consultations_search` USING fts5(
  nombre, email, mensaje,
  content='consultations', content_rowid='rowid',
  tokenize='trigram remove_diacritics 1'
);
--> statement-breakpoint
CREATE TRIGGER `consultations_search_insert` AFTER INSERT ON `consultations` BEGIN
  INSERT INTO consultations_search(rowid, nombre, email, mensaje) VALUES (new.rowid, new.nombre, new.email, new.mensaje);
END;
--> statement-breakpoint
CREATE TRIGGER `consultations_search_delete` AFTER DELETE ON `consultations` BEGIN
  INSERT INTO consultations_search(consultations_search, rowid, nombre, email, mensaje) VALUES ('delete', old.rowid, old.nombre, old.email, old.mensaje);
END;
--> statement-breakpoint
CREATE TRIGGER `consultations_search_update` AFTER UPDATE OF nombre, email, mensaje ON `consultations` BEGIN
  INSERT INTO consultations_search(consultations_search, rowid, nombre, email, mensaje) VALUES ('delete', old.rowid, old.nombre, old.email, old.mensaje);
  INSERT INTO consultations_search(rowid, nombre, email, mensaje) VALUES (new.rowid, new.nombre, new.email, new.mensaje);
END;
--> statement-breakpoint
-- Consultations stored before this migration.
INSERT INTO consultations_search(consultations_search) VALUES ('rebuild');
