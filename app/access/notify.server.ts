// Tells the access service that doors, cards, permissions or users changed, so
// it republishes the affected doors' retained display and offline list. Works
// from any process: through the access service's own client when it runs in
// this process, otherwise through a lazily connected client on MQTT_URL.
// Never throws: without a broker the change is picked up by the service's
// periodic refresh (docs/mqtt.md, "Change notifications").
import { randomUUID } from "node:crypto";
import type { MqttClient } from "mqtt";
import { getEnv } from "~/utils/env.server";
import { changesTopic, type AccessChange } from "~/doors/contract";
import { connectAppClient, errorMessage } from "./mqtt.server";
import { withTimeout } from "~/utils/timeout";

export type { AccessChange };

const NOTIFY_TIMEOUT_MS = 2000;

type ChangePublisher = (change: AccessChange) => Promise<void>;

let inProcessPublisher: ChangePublisher | null = null;
let remoteClient: MqttClient | null = null;
let warnedNoBroker = false;

/**
 * Called by the access service running in this process: notifications go
 * through its client. Null stops that (tests use it to play a process without
 * the service); the service's own stop only removes its own publisher.
 */
export function setInProcessChangePublisher(publisher: ChangePublisher | null, previous?: ChangePublisher) {
  if (previous && inProcessPublisher !== previous) return;
  inProcessPublisher = publisher;
}

/**
 * `doorIds` are door row ids. Cards and users are resolved to the doors they
 * have permissions on, so a removed permission or a deleted card must be
 * announced with its door ids (or `all`).
 */
export async function notifyAccessChange(change: AccessChange): Promise<void> {
  try {
    if (inProcessPublisher) {
      await withTimeout(inProcessPublisher(change), NOTIFY_TIMEOUT_MS, "change notification");
      return;
    }
    const env = getEnv();
    if (!env.MQTT_URL) {
      if (!warnedNoBroker) {
        warnedNoBroker = true;
        console.info("[access] no access service in this process and no MQTT_URL: door changes reach the doors at the service's next periodic refresh");
      }
      return;
    }
    remoteClient ??= connectAppClient({
      url: env.MQTT_URL,
      username: env.MQTT_USERNAME,
      password: env.MQTT_PASSWORD,
      clientId: `coliving-notify-${randomUUID().slice(0, 8)}`,
      protocolVersion: env.MQTT_PROTOCOL_VERSION === "4" ? 4 : 5,
      clean: true,
    });
    await withTimeout(
      remoteClient.publishAsync(changesTopic(env.MQTT_TOPIC_PREFIX), JSON.stringify(change), { qos: 1 }),
      NOTIFY_TIMEOUT_MS,
      "change notification",
    );
  } catch (error) {
    console.warn(`[access] change notification not delivered (${errorMessage(error)}); the periodic refresh will pick it up`);
  }
}

/** Closes the notifier's own connection (graceful shutdown). */
export async function closeAccessNotifier() {
  const client = remoteClient;
  remoteClient = null;
  await client?.endAsync().catch(() => {});
}
