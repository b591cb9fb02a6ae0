// A scratch database for the data generators: migrated like the app's, in
// WAL mode, and tuned for speed over durability while it is being filled.
import path from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";

export async function openScratchDatabase(url) {
  const client = createClient({ url });
  await client.execute("PRAGMA journal_mode = WAL");
  await migrate(drizzle(client), { migrationsFolder: path.resolve("drizzle") });
  await client.execute("PRAGMA synchronous = OFF");
  return client;
}
