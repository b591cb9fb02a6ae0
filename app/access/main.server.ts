// `npm run start:access` (build/access.js): the access service on its own,
// normally against an external broker (MQTT_URL); without MQTT_URL it runs
// the embedded broker itself. Several instances may share the swipes of one
// broker with MQTT_SHARE_GROUP (docs/mqtt.md).
import path from "node:path";
import { getDb, migrateDatabase } from "~/utils/db.server";
import { getEnv } from "~/utils/env.server";
import { startAccessService } from "./service.server";

const env = getEnv();
await migrateDatabase(getDb(), path.resolve("drizzle"));
const service = await startAccessService();
console.info(
  `[access] ${env.BUILDING_NAME}: access service running` +
    (env.MQTT_URL ? ` on ${env.MQTT_URL.replace(/\/\/[^@/]*@/, "//")}` : "") +
    (env.MQTT_SHARE_GROUP ? ` (shared group ${env.MQTT_SHARE_GROUP})` : ""),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.info(`[access] ${signal}: stopping`);
    setTimeout(() => process.exit(1), 10_000).unref();
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("[access] stop failed", error);
        process.exit(1);
      },
    );
  });
}
