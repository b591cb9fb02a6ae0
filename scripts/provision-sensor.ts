// Issues a building sensor a fresh MQTT credential in the local database
// (created when new); `npm run sensor -- --provision <sensorId>` runs it.
// Prints the credential as JSON on stdout.
import path from "node:path";

const sensorId = process.env.PROVISION_SENSOR ?? "";
const { getDb, migrateDatabase } = await import("~/utils/db.server");
const { provisionBuildingSensor } = await import("~/services/building-sensors.server");

await migrateDatabase(getDb(), path.resolve("drizzle"));
const credential = await provisionBuildingSensor(sensorId);
process.stdout.write(`${JSON.stringify(credential)}\n`);
