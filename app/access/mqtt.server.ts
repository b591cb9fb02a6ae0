// The app's own MQTT connections (the access service's client and the change
// notifier's): one place for the options every app client needs.
import type { Socket } from "node:net";
import mqtt, { type MqttClient } from "mqtt";

export type AppClientOptions = {
  url: string;
  username: string | undefined;
  password: string | undefined;
  clientId: string;
  protocolVersion: 4 | 5;
  /** false keeps the session (and the QoS 1 messages queued for it) across reconnections. */
  clean: boolean;
};

export function connectAppClient(options: AppClientOptions): MqttClient {
  const client = mqtt.connect(options.url, {
    clientId: options.clientId,
    username: options.username,
    password: options.password,
    protocolVersion: options.protocolVersion,
    clean: options.clean,
    keepalive: 30,
    connectTimeout: 10_000,
    reconnectPeriod: 1000,
    // Subscriptions are renewed by their owner on every connect.
    resubscribe: false,
  });
  // MQTT.js leaves Nagle on: a QoS 1 round trip would then wait 40-90 ms for delayed ACKs.
  client.on("connect", () => (client.stream as Partial<Socket>).setNoDelay?.(true));
  return client;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
