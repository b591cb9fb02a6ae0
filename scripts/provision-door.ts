// For `npm run bridge -- --simulate --door <code>` on a developer's machine:
// makes sure the door exists in the app's database (scripts/lib/app-database.ts:
// the app's DATABASE_URL, never a new database) and issues it a fresh bridge
// credential. Prints one JSON line on stdout:
//   {"ok": true, "credential": {"username", "password"}, "database": "<url>"}
//   {"ok": false, "message": "<what went wrong, in plain words>"}   (exit status 1)
import { closeAccessNotifier } from "~/access/notify.server";
import { requireAppDatabase } from "./lib/app-database";

const doorCode = process.env.PROVISION_DOOR ?? "";

try {
  const database = requireAppDatabase();
  const { provisionDoor } = await import("~/services/doors.server");
  const { credential } = await provisionDoor(doorCode).catch((error: unknown) => {
    throw new Error(`could not provision door "${doorCode}" in the app's database at ${database}: ${(error as Error).message}`);
  });
  process.stdout.write(`${JSON.stringify({ ok: true, credential, database })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ ok: false, message: (error as Error).message })}\n`);
  process.exitCode = 1;
} finally {
  // With MQTT_URL the change notification opened a connection: close it, or this process would not end.
  await closeAccessNotifier();
}
