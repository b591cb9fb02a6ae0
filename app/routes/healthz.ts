import { pingDatabase } from "~/models/health.server";

// Liveness for load balancers and the test runner: the database answers.
export async function loader() {
  await pingDatabase();
  return new Response("ok", { headers: { "Cache-Control": "no-store" } });
}
