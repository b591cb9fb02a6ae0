// How the services tell the access service that doors, cards, permissions or
// users changed, so that it republishes the affected doors' retained display
// and offline list. One path per process, chosen once at boot
// (app/boot.server.ts) and handed over with useAccessNotifier:
//   - the web process that forked the access service (ACCESS_SERVICE=on):
//     over the IPC channel to that child (the notifier of startAccessProcess's
//     handle), which applies the change to its door publisher;
//   - a web process without it (ACCESS_SERVICE=off) with MQTT_URL: published
//     on {prefix}/app/changes (mqttAccessNotifier), which every access service
//     on that external broker reads (as a shared subscription with
//     MQTT_SHARE_GROUP, so one instance republishes each change);
//   - neither: nothing is sent, and the service's periodic refresh picks the
//     change up (the default, noAccessNotifier).
// A process that runs the service itself (tests, scripts) hands over the
// service's own notifier (startAccessService's handle), which applies the
// change to its door publisher directly.
import { randomUUID } from "node:crypto";
import type { MqttClient } from "mqtt";
import { withTimeout } from "~/utils/timeout";
import { changesTopic, type AccessChange } from "~/doors/contract";
import { connectAppClient, errorMessage } from "./mqtt.server";

export type { AccessChange };

export type AccessNotifier = {
  notify(change: AccessChange): Promise<void>;
  /** Closes what the notifier opened (graceful shutdown). */
  close?(): Promise<void>;
};

const NOTIFY_TIMEOUT_MS = 2000;

let warnedNoPath = false;

/** No path to an access service: the change reaches the doors at the service's next periodic refresh. */
export const noAccessNotifier: AccessNotifier = {
  async notify() {
    if (warnedNoPath) return;
    warnedNoPath = true;
    console.info("[access] no access service in this process and no MQTT_URL: door changes reach the doors at the service's next periodic refresh");
  },
};

let current: AccessNotifier = noAccessNotifier;

/** The path this process's notifications take from now on (boot chooses it; tests hand their own over). */
export function useAccessNotifier(notifier: AccessNotifier) {
  current = notifier;
}

/**
 * `doorIds` are door row ids. Cards and users are resolved to the doors they
 * have permissions on, so a removed permission or a deleted card must be
 * announced with its door ids (or `all`). Never throws and waits at most 2 s:
 * a change not delivered is picked up by the service's periodic refresh.
 */
export async function notifyAccessChange(change: AccessChange): Promise<void> {
  try {
    await withTimeout(current.notify(change), NOTIFY_TIMEOUT_MS, "change notification");
  } catch (error) {
    console.warn(`[access] change notification not delivered (${errorMessage(error)}); the periodic refresh will pick it up`);
  }
}

/** Closes the current notifier's own connection, if it has one (graceful shutdown). */
export async function closeAccessNotifier() {
  await current.close?.().catch(() => {});
}

export type MqttNotifierOptions = {
  url: string;
  username: string | undefined;
  password: string | undefined;
  protocolVersion: 4 | 5;
  prefix: string;
};

/** Publishes each change on the broker's changes topic, through a client connected on first use. */
export function mqttAccessNotifier(options: MqttNotifierOptions): AccessNotifier {
  let client: MqttClient | null = null;
  return {
    async notify(change) {
      client ??= connectAppClient({
        url: options.url,
        username: options.username,
        password: options.password,
        clientId: `coliving-notify-${randomUUID().slice(0, 8)}`,
        protocolVersion: options.protocolVersion,
        clean: true,
      });
      await client.publishAsync(changesTopic(options.prefix), JSON.stringify(change), { qos: 1 });
    },
    async close() {
      const open = client;
      client = null;
      await open?.endAsync();
    },
  };
}
