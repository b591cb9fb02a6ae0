// Test databases are real libSQL files: one migrated base, copied per test file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateDatabase, openDatabase } from "~/utils/db.server";

export const TEST_ROOT = path.join(os.tmpdir(), "coliving-tests");

export async function createMigratedBase(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const db = openDatabase(`file:${file}`);
  await migrateDatabase(db, path.resolve("drizzle"));
  // Fold the WAL into the main file so a plain copy carries everything.
  await db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  db.$client.close();
}
