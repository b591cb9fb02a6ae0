// build/access.js: the access service on its own. Two ways in:
// - forked by the web process (ACCESS_SERVICE=on, the default;
//   app/access/process.server.ts): options come over the IPC channel, and the
//   service stops when the web process tells it to or goes away;
// - `npm run start:access` (with ACCESS_SERVICE=off on the web side), for a
//   separate machine, normally against an external broker (MQTT_URL); without
//   MQTT_URL it runs the embedded broker itself. Several instances may share
//   the swipes of one broker with MQTT_SHARE_GROUP (docs/mqtt.md).
import path from "node:path";
import { getDb, migrateDatabase } from "~/utils/db.server";
import { getEnv } from "~/utils/env.server";
import { notifyAccessChange } from "./notify.server";
import { serveParent } from "./process.server";
import { startAccessService, type AccessServiceHandle } from "./service.server";

const env = getEnv();
await migrateDatabase(getDb(), path.resolve("drizzle"));

function announce() {
  console.info(
    `[access] ${env.BUILDING_NAME}: access service running` +
      (env.MQTT_URL ? ` on ${env.MQTT_URL.replace(/\/\/[^@/]*@/, "//")}` : "") +
      (env.MQTT_SHARE_GROUP ? ` (shared group ${env.MQTT_SHARE_GROUP})` : "") +
      ` (pid ${process.pid})`,
  );
}

/** SIGINT/SIGTERM (Ctrl+C reaches the whole process group): stop gracefully, then exit. */
function stopOnSignals(stop: () => Promise<void>) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.info(`[access] ${signal}: stopping`);
      setTimeout(() => process.exit(1), 10_000).unref();
      stop().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error("[access] stop failed", error);
          process.exit(1);
        },
      );
    });
  }
}

if (process.send) {
  let service: AccessServiceHandle | null = null;
  stopOnSignals(async () => service?.stop());
  await serveParent(async (options) => {
    service = await startAccessService({ ...options, checkpointThread: true });
    announce();
    return service;
  }, notifyAccessChange);
  process.exit(0);
} else {
  const service = await startAccessService({ checkpointThread: true });
  announce();
  stopOnSignals(() => service.stop());
}
