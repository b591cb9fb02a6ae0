// For `npm run bridge -- --simulate --door <id>` on a developer's machine:
// makes sure the door exists in the local database and issues it a fresh
// bridge credential. Prints the credential as JSON on stdout.
import path from "node:path";

const doorCode = process.env.PROVISION_DOOR ?? "";
const { getDb, migrateDatabase } = await import("~/utils/db.server");
const { createDoor, getDoorByCode, issueBridgeCredential } = await import("~/models/door.server");

await migrateDatabase(getDb(), path.resolve("drizzle"));
const door = (await getDoorByCode(doorCode)) ?? (await createDoor({ doorId: doorCode, name: `Puerta ${doorCode}`, location: "Simulador" }));
const credential = await issueBridgeCredential(door.id);
process.stdout.write(`${JSON.stringify(credential)}\n`);
