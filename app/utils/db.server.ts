import fs from "node:fs";
import path from "node:path";
import { createClient, type Client } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "~/db/schema";
import { getEnv } from "./env.server";

export type Database = LibSQLDatabase<typeof schema> & { $client: Client };

export function openDatabase(url: string, authToken?: string): Database {
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length);
    if (file && file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  }
  // timeout = busy timeout of the embedded file database: writers from other
  // processes (a second app, the access service) wait instead of failing.
  const client = createClient({ url, authToken, timeout: 5000 });
  return drizzle(client, { schema });
}

/** Applies drizzle/ migrations; WAL lets readers run beside the single writer. */
export async function migrateDatabase(database: Database, migrationsFolder = "drizzle") {
  await database.$client.execute("PRAGMA journal_mode = WAL").catch(() => {
    // remote libSQL servers manage their own journal
  });
  await database.$client.execute("PRAGMA foreign_keys = ON").catch(() => {});
  await migrate(database, { migrationsFolder });
}

/**
 * How far the process-wide connection lets the WAL grow before one of its own
 * commits copies it back into the database (SQLite's automatic checkpoint;
 * its default is 1,000 pages). The access service's recorder thread raises it
 * because a thread of its own runs the checkpoints (docs/decisions/0004).
 * A pragma is per connection: this holds for a process that runs one database
 * call at a time, whose pool then keeps a single connection.
 */
export async function setWalAutoCheckpoint(pages: number) {
  await getDb().$client.execute(`PRAGMA wal_autocheckpoint = ${Math.trunc(pages)}`);
}

const globalForDb = globalThis as unknown as { __db?: Database };

/** The process-wide database, opened on first use from DATABASE_URL. */
export function getDb(): Database {
  if (!globalForDb.__db) {
    const env = getEnv();
    globalForDb.__db = openDatabase(env.DATABASE_URL, env.DATABASE_AUTH_TOKEN);
  }
  return globalForDb.__db;
}

/**
 * A write refused by a unique index. `target` names the index or a column it
 * covers ("doors.door_id", "reservation_code").
 */
export function isUniqueViolation(error: unknown, target: string): boolean {
  const text = `${String((error as { cause?: unknown })?.cause ?? "")} ${(error as Error)?.message ?? ""}`;
  return text.includes("UNIQUE constraint failed") && text.includes(target);
}
