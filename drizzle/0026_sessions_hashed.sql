-- Sessions are stored as the SHA-256 of their id (the cookie keeps the id:
-- app/models/session.server.ts), so a backup holds no id a cookie could
-- carry. SQLite has no SHA-256 to convert the open sessions with: they end
-- here, and everyone signs in again once after this upgrade.
DELETE FROM `sessions`;
