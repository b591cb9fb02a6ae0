// Runs before each test file: a private copy of the migrated base database
// and a private data directory, wired through the same env the app reads.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { TEST_ROOT } from "./test-db";

const dir = path.join(TEST_ROOT, "vitest", `${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
fs.mkdirSync(dir, { recursive: true });
fs.copyFileSync(path.join(TEST_ROOT, "vitest", "base.db"), path.join(dir, "app.db"));

process.env.NODE_ENV = "test";
process.env.DATABASE_URL = `file:${path.join(dir, "app.db")}`;
process.env.DATA_DIR = dir;
process.env.SESSION_SECRET = "test-session-secret-that-is-long-enough-123";
// One audit key for every test process: an archive one process made restores in another
// (the tests of the key file itself unset it).
process.env.AUDIT_KEY = "test-audit-key-that-is-long-enough-1234567";
process.env.ACCESS_SERVICE = "off";
// Cheap password hashes (2^10 instead of 2^15): tests create users by the hundred.
process.env.PASSWORD_HASH_COST = "10";
// The suites written before issue 40 book many stays per guest and address and
// expect each to hold at once (BOOKING_EMAIL_CONFIRMATION=off, "as today"):
// tests/integration/pending-holds.test.ts sets the house's defaults for itself.
process.env.BOOKING_EMAIL_CONFIRMATION = "off";
process.env.PENDING_PER_EMAIL = "1000";
process.env.PENDING_PER_ADDRESS = "1000";
delete process.env.SMTP_URL;
(globalThis as { __db?: unknown }).__db = undefined;
