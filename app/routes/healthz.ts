import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

// Liveness for load balancers and the test runner: the database answers.
export async function loader() {
  await getDb().run(sql`SELECT 1`);
  return new Response("ok", { headers: { "Cache-Control": "no-store" } });
}
