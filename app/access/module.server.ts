// What the access service (service.server.ts) hands each of its modules, and
// what a module may offer back. The service owns the start-up and the stop
// (broker, the app's MQTT client, worker threads) and routes each message to
// the module whose topic it is; a module does one job (decisions, recording
// and receipts, door state, sensor readings, change publishing). A new kind
// of credential, door schedule or sensor arrives as one more module.
import type { IPublishPacket, MqttClient } from "mqtt";
import type { EmbeddedBroker } from "./broker.server";

export type AccessCounters = { decisions: number; events: number; batches: number };

export type AccessContext = {
  /** The app's MQTT client; connected and subscribed before any message reaches a module. */
  client: MqttClient;
  prefix: string;
  /** Spoken to the broker: 5 adds message expiry and correlation data to decisions. */
  protocolVersion: 4 | 5;
  /** The embedded broker, or null on an external one. */
  broker: EmbeddedBroker | null;
  /** Counters since start (tests and the benchmark read them through stats()). */
  counters: AccessCounters;
  /** The clock swipes are decided by (tests move it to check timetables). */
  clock(): Date;
  /** True once the service is stopping (a failed publish then is not worth a warning). */
  stopping(): boolean;
};

/**
 * A topic filter a module needs; `shared` ones are split among instances with
 * MQTT_SHARE_GROUP. QoS 1 unless it says 0 (a message the broker may drop
 * when this service is away or slow, for which it then sends no acknowledgement).
 */
export type ModuleSubscription = { filter: string; shared: boolean; qos?: 0 | 1 };

export interface AccessModule {
  readonly subscriptions: readonly ModuleSubscription[];
  /** Once, before the client connects. */
  start?(): void;
  /** After every (re)connection, once the subscriptions are made. */
  onConnect?(): void;
  /** A message on a subscribed topic: true when it was this module's. */
  onMessage?(topic: string, payload: Buffer, packet: IPublishPacket): boolean;
  /**
   * On stop: finishes what it received and takes on nothing that would
   * outlive the connection. Called while the client is connected and again
   * once it has closed (messages that arrived in between).
   */
  stop?(): Promise<void>;
  /** After the client has closed: releases threads and timers. */
  close?(): Promise<void>;
}

/** A message's JSON, or undefined when it is not JSON. */
export function parseJsonPayload(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString("utf8"));
  } catch {
    return undefined;
  }
}
