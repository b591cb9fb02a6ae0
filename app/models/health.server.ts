import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

/** Liveness: the database answers a query. */
export async function pingDatabase() {
  await getDb().run(sql`SELECT 1`);
}
