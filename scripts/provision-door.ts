// For `npm run bridge -- --simulate --door <code>` on a developer's machine:
// makes sure the door exists in the local database and issues it a fresh
// bridge credential. Prints the credential as JSON on stdout.
import path from "node:path";

const doorCode = process.env.PROVISION_DOOR ?? "";
const { getDb, migrateDatabase } = await import("~/utils/db.server");
const { provisionDoor } = await import("~/services/doors.server");

await migrateDatabase(getDb(), path.resolve("drizzle"));
const { credential } = await provisionDoor(doorCode);
process.stdout.write(`${JSON.stringify(credential)}\n`);
