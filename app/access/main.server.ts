// build/access.js: the access service on its own. Two ways in:
// - forked by the web process (ACCESS_SERVICE=on, the default;
//   app/access/process.server.ts): options come over the IPC channel, and the
//   service stops when the web process tells it to or goes away;
// - `npm run start:access` (with ACCESS_SERVICE=off on the web side), for a
//   separate machine, normally against an external broker (MQTT_URL); without
//   MQTT_URL it runs the embedded broker itself. Several instances may share
//   the swipes of one broker with MQTT_SHARE_GROUP (docs/mqtt.md).
//
// The same bundle also runs in the access process's recorder thread
// (recorder-thread.server.ts), which records the batches of swipes.
import path from "node:path";
import { workerData } from "node:worker_threads";
import { getDb, migrateDatabase } from "~/utils/db.server";
import { getEnv } from "~/utils/env.server";
import { startProcessMetrics } from "~/utils/metrics.server";
import { serveParent } from "./process.server";
import { isRecorderThread, serveRecorderThread } from "./recorder-thread.server";
import { startAccessService, type AccessServiceHandle } from "./service.server";

function announce() {
  const env = getEnv();
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

// The worker threads of the access process: WAL checkpoints and batch recording.
const threads = { checkpointThread: true, recorderThread: new URL(import.meta.url) };

if (isRecorderThread(workerData)) {
  serveRecorderThread(workerData);
} else if (process.send) {
  // Its series reach GET /metrics through the web process (process.server.ts).
  startProcessMetrics("access");
  await migrateDatabase(getDb(), path.resolve("drizzle"));
  let service: AccessServiceHandle | null = null;
  stopOnSignals(async () => service?.stop());
  await serveParent(async (options) => {
    service = await startAccessService({ ...options, ...threads });
    announce();
    return service;
  });
  process.exit(0);
} else {
  await migrateDatabase(getDb(), path.resolve("drizzle"));
  const service = await startAccessService(threads);
  announce();
  stopOnSignals(() => service.stop());
}
