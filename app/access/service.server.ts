// The access service: the app side of the doors (docs/mqtt.md), composed of
// modules with one job each (module.server.ts), built in dependency order by
// composeModules below:
//   decision-sender.server.ts  a decision published to its door
//   recording.server.ts        swipes and events recorded in batches, receipts
//   decisions.server.ts        swipes answered at once, before their commit
//                              (reads on statements of its own: decision-reads.server.ts)
//   sensor-readings.server.ts  the building sensors' readings
//   door-state.server.ts       the bridges' online state on their doors
//   door-alarms.server.ts      forced, held-open and offline doors' alarms
//   door-publisher.server.ts   each door's retained display and offline list,
//                              republished on changes and by a periodic sweep
//   access-groups.server.ts    the access groups' timetables, in memory for
//                              the decisions, reloaded by the door publisher
// What one module tells others (a grant, expired cards, a door's mode, a
// bridge's state) goes over the event bus (events.server.ts). This file owns
// the start-up order (checkpoint thread, embedded broker if any, the app's
// MQTT client, the modules, the subscriptions they ask for), the routing of
// each message to its module, and the graceful stop (what was received
// answered and recorded, client closed, broker closed, threads stopped).
import os from "node:os";
import type { IPublishPacket, MqttClient } from "mqtt";
import { randomToken } from "~/utils/crypto.server";
import { getEnv } from "~/utils/env.server";
import { withTimeout } from "~/utils/timeout";
import { APP_USERNAME, startEmbeddedBroker, type EmbeddedBroker } from "./broker.server";
import { AccessGroupsState } from "./access-groups.server";
import { startCheckpointer, type Checkpointer } from "./checkpointer.server";
import { openDecisionReads, type DecisionReads } from "./decision-reads.server";
import { DecisionSender } from "./decision-sender.server";
import { Decisions } from "./decisions.server";
import { DoorAlarms } from "./door-alarms.server";
import { DoorPublisher } from "./door-publisher.server";
import { DoorStates } from "./door-state.server";
import { AccessEventBus } from "./events.server";
import type { AccessContext, AccessCounters, AccessModule } from "./module.server";
import { connectAppClient, errorMessage } from "./mqtt.server";
import type { AccessNotifier } from "./notify.server";
import { Recording } from "./recording.server";
import { SensorReadings } from "./sensor-readings.server";

export type AccessServiceOptions = {
  /** External broker (mqtt://, mqtts://); unset: run the embedded broker. Default MQTT_URL. */
  mqttUrl?: string;
  mqttUsername?: string;
  mqttPassword?: string;
  /** MQTT version spoken to an external broker (the embedded one is 3.1.1). Default MQTT_PROTOCOL_VERSION. */
  protocolVersion?: 4 | 5;
  /** Default MQTT_CLIENT_ID, else coliving-access-<hostname>. Each instance needs its own. */
  clientId?: string;
  /** External broker only: share swipes and events with other instances ($share/<group>/…). */
  shareGroup?: string;
  /** Embedded broker listeners (port 0 picks a free port). Defaults from MQTT_HOST, MQTT_PORT, MQTT_TLS_*. */
  host?: string;
  port?: number;
  tlsPort?: number;
  tlsCert?: string;
  tlsKey?: string;
  prefix?: string;
  /** Safety net: expiry sweep and republish of what changed, this often. Default 60 s. */
  refreshIntervalMs?: number;
  /** Offline lists are republished this long after the first of a burst of changes. Default 250 ms. */
  credentialsDebounceMs?: number;
  /** The clock swipes are decided by (timetables). Default: the system's. */
  clock?: () => Date;
  /** How long start() waits for the first connection to an external broker. Default 10 s. */
  connectTimeoutMs?: number;
  /** A door whose bridge is offline this long raises the door_offline alarm. Default 2 minutes (tests shorten it). */
  doorOfflineAlarmMs?: number;
  /** How long one of a door's heldOpenSeconds lasts. Default 1000 (tests shorten it). */
  heldOpenSecondMs?: number;
  /** At most one reading per building sensor is stored this often (the latest of each interval). Default 5 s. */
  sensorReadingIntervalMs?: number;
  /**
   * WAL checkpoints in a thread of their own (checkpointer.server.ts), so no
   * commit of a batch pays for one. build/access.js turns it on; in-process
   * uses (tests, scripts) leave checkpoints to SQLite.
   */
  checkpointThread?: boolean;
  /**
   * Record the batches in a worker thread (recorder-thread.server.ts) that
   * loads this module: the bundle's URL. build/access.js passes its own; in-process
   * uses (tests, scripts) record on the calling thread.
   */
  recorderThread?: string | URL;
};

export type AccessServiceHandle = {
  /** The embedded broker's ports; null on an external broker (tlsPort: null without TLS). */
  mqttPort: number | null;
  mqttTlsPort: number | null;
  /** Counters since start (tests and the benchmark read them). */
  stats(): AccessCounters;
  /**
   * Applies a change notification to this service's door publisher (resolves
   * once the affected displays are republished): what the access process
   * does with the web process's notifications, and what a process running
   * the service itself hands to useAccessNotifier.
   */
  notifier: AccessNotifier;
  /** Runs the periodic sweep now (expiry, then every door's display and offline list); resolves once done. */
  sweep(): Promise<void>;
  stop(): Promise<void>;
};

const STOP_TIMEOUT_MS = 3000;

type Resolved = Required<
  Pick<
    AccessServiceOptions,
    "prefix" | "refreshIntervalMs" | "credentialsDebounceMs" | "connectTimeoutMs" | "sensorReadingIntervalMs" | "host" | "port" | "tlsPort"
  >
> &
  AccessServiceOptions & { protocolVersion: 4 | 5; clientId: string };

function resolveOptions(options: AccessServiceOptions): Resolved {
  const env = getEnv();
  const mqttUrl = options.mqttUrl ?? env.MQTT_URL;
  return {
    ...options,
    mqttUrl,
    mqttUsername: options.mqttUsername ?? env.MQTT_USERNAME,
    mqttPassword: options.mqttPassword ?? env.MQTT_PASSWORD,
    protocolVersion: mqttUrl ? (options.protocolVersion ?? (env.MQTT_PROTOCOL_VERSION === "4" ? 4 : 5)) : 4,
    clientId: options.clientId ?? env.MQTT_CLIENT_ID ?? `coliving-access-${os.hostname()}`.slice(0, 64),
    shareGroup: options.shareGroup ?? env.MQTT_SHARE_GROUP,
    host: options.host ?? env.MQTT_HOST,
    port: options.port ?? env.MQTT_PORT,
    tlsPort: options.tlsPort ?? env.MQTT_TLS_PORT,
    tlsCert: options.tlsCert ?? env.MQTT_TLS_CERT,
    tlsKey: options.tlsKey ?? env.MQTT_TLS_KEY,
    prefix: options.prefix ?? env.MQTT_TOPIC_PREFIX,
    refreshIntervalMs: options.refreshIntervalMs ?? 60_000,
    credentialsDebounceMs: options.credentialsDebounceMs ?? 250,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    sensorReadingIntervalMs: options.sensorReadingIntervalMs ?? 5000,
  };
}

/** The MQTT connection the service's client makes: to MQTT_URL, or to the broker it embeds. */
type Connection = { broker: EmbeddedBroker | null; url: string; username: string | undefined; password: string | undefined };

async function openConnection(options: Resolved): Promise<Connection> {
  if (options.mqttUrl) return { broker: null, url: options.mqttUrl, username: options.mqttUsername, password: options.mqttPassword };
  const password = randomToken(24);
  const broker = await startEmbeddedBroker({
    host: options.host,
    port: options.port,
    tlsPort: options.tlsPort,
    tlsCert: options.tlsCert,
    tlsKey: options.tlsKey,
    prefix: options.prefix,
    appPassword: password,
  });
  const listening = ["0.0.0.0", "::", ""].includes(options.host) ? "127.0.0.1" : options.host;
  console.info(
    `[access] embedded MQTT broker on ${options.host}:${broker.port}` + (broker.tlsPort !== null ? `, TLS on ${options.host}:${broker.tlsPort}` : ""),
  );
  if (options.shareGroup) console.warn("[access] MQTT_SHARE_GROUP is ignored by the embedded broker (one instance only)");
  return { broker, url: `mqtt://${listening.includes(":") ? `[${listening}]` : listening}:${broker.port}`, username: APP_USERNAME, password };
}

/**
 * The modules, each built after what it is handed; what they tell each other
 * goes over the event bus. In stop order: what hands work to the recording
 * stops before it does; the door states before the alarms they feed.
 */
function composeModules(context: AccessContext, options: Resolved, checkpointsElsewhere: boolean, reads: DecisionReads) {
  const events = new AccessEventBus();
  const groups = new AccessGroupsState();
  const sender = new DecisionSender(context);
  const recording = new Recording(context, { recorderThread: options.recorderThread, checkpointsElsewhere, sender, events });
  const decisions = new Decisions(context, { recording, groups, reads, sender, events });
  const sensorReadings = new SensorReadings(context, { intervalMs: options.sensorReadingIntervalMs, recording });
  const doorStates = new DoorStates(context, events);
  const alarms = new DoorAlarms(context, events, {
    doorOfflineAlarmMs: options.doorOfflineAlarmMs ?? 120_000,
    heldOpenSecondMs: options.heldOpenSecondMs ?? 1000,
  });
  const publisher = new DoorPublisher(context, events, {
    credentialsDebounceMs: options.credentialsDebounceMs,
    refreshIntervalMs: options.refreshIntervalMs,
    groups,
  });
  const modules: AccessModule[] = [decisions, sensorReadings, recording, doorStates, alarms, publisher];
  return { modules, publisher };
}

/**
 * Runs the composed modules on one MQTT client: subscribes to what they ask
 * for on every connection, routes each message to the module whose topic it
 * is, and stops them in order.
 */
class AccessService {
  private stopping = false;
  private wasConnected = false;
  /** Resolves after the first subscription: from then on every swipe and event reaches this service. */
  private markSubscribed!: () => void;
  private readonly subscribed = new Promise<void>((resolve) => (this.markSubscribed = resolve));
  private readonly counters: AccessCounters = { decisions: 0, events: 0, batches: 0 };
  private readonly client: MqttClient;
  /** In stop order. */
  private readonly modules: AccessModule[];
  private readonly publisher: DoorPublisher;

  constructor(
    private readonly options: Resolved,
    private readonly connection: Connection,
    private readonly checkpointer: Checkpointer | null,
    private readonly reads: DecisionReads,
  ) {
    const { broker, url, username, password } = connection;
    this.client = connectAppClient({
      url,
      username,
      password,
      clientId: options.clientId,
      protocolVersion: options.protocolVersion,
      // A kept session queues the bridges' offline events while this service restarts.
      clean: false,
    });
    const context: AccessContext = {
      client: this.client,
      prefix: options.prefix,
      protocolVersion: options.protocolVersion,
      broker,
      counters: this.counters,
      clock: options.clock ?? (() => new Date()),
      stopping: () => this.stopping,
    };
    ({ modules: this.modules, publisher: this.publisher } = composeModules(context, options, checkpointer !== null, reads));
  }

  async start(): Promise<AccessServiceHandle> {
    for (const module of this.modules) module.start?.();
    this.client.on("connect", () => this.handleConnect());
    this.client.on("message", (topic, payload, packet) => this.handleMessage(topic, payload, packet));
    this.client.on("error", (error) => console.warn(`[access] mqtt: ${error.message}`));
    this.client.on("close", () => {
      if (this.wasConnected && !this.stopping) console.warn("[access] mqtt: disconnected, reconnecting");
      this.wasConnected = false;
    });

    const ready = await withTimeout(this.subscribed, this.options.connectTimeoutMs, "first subscription").then(
      () => true,
      () => false,
    );
    if (!ready) console.warn(`[access] mqtt: no connection to ${this.connection.url} yet; retrying in the background`);

    const { broker } = this.connection;
    return {
      mqttPort: broker?.port ?? null,
      mqttTlsPort: broker?.tlsPort ?? null,
      stats: () => ({ ...this.counters }),
      notifier: { notify: (change) => this.publisher.applyChange(change) },
      sweep: () => this.publisher.sweep(),
      stop: () => this.stop(),
    };
  }

  /** `$share/<group>/` when instances share the work (external broker with MQTT_SHARE_GROUP). */
  private sharePrefix() {
    return this.options.shareGroup && this.options.mqttUrl ? `$share/${this.options.shareGroup}/` : "";
  }

  private handleConnect() {
    this.wasConnected = true;
    console.info(`[access] mqtt: connected as ${this.options.clientId}`);
    const share = this.sharePrefix();
    // Unshared filters (a door's retained state) reach every instance.
    const filters = Object.fromEntries(
      this.modules.flatMap((module) => module.subscriptions.map(({ filter, shared, qos = 1 }) => [(shared ? share : "") + filter, { qos }])),
    );
    this.client.subscribe(filters, (error, grants) => {
      // A refused filter (SUBACK 0x80, e.g. a broker ACL without the app's rights) comes as an error too.
      if (error) console.error(`[access] mqtt: subscribe failed: ${error.message}`);
      for (const grant of grants ?? []) {
        if (grant.qos >= 0x80) console.error(`[access] mqtt: the broker refused the subscription to ${grant.topic}`);
      }
      if (!error) {
        // The embedded broker has kept doors out until now (see broker.server.ts).
        this.connection.broker?.openToDoors();
        this.markSubscribed();
      }
      for (const module of this.modules) module.onConnect?.();
    });
  }

  private handleMessage(topic: string, payload: Buffer, packet: IPublishPacket) {
    for (const module of this.modules) {
      if (module.onMessage?.(topic, payload, packet)) return;
    }
  }

  private async stopModules() {
    for (const module of this.modules) await module.stop?.();
  }

  private async stop() {
    if (this.stopping) return;
    this.stopping = true;
    // Swipes already received are answered and recorded before the connection closes.
    await this.stopModules();
    try {
      await withTimeout(this.client.endAsync(false), STOP_TIMEOUT_MS, "mqtt disconnect");
    } catch (error) {
      console.warn(`[access] ${errorMessage(error)}; closing the connection`);
      await this.client.endAsync(true).catch(() => {});
    }
    await this.stopModules();
    await this.connection.broker?.close();
    for (const module of this.modules) await module.close?.();
    this.reads.close();
    await this.checkpointer?.stop();
    console.info("[access] stopped");
  }
}

/** Starts the access service (embedded broker unless MQTT_URL or options.mqttUrl is set). */
export async function startAccessService(options: AccessServiceOptions = {}): Promise<AccessServiceHandle> {
  const resolved = resolveOptions(options);
  const { DATABASE_URL } = getEnv();
  const checkpointer = resolved.checkpointThread ? startCheckpointer(DATABASE_URL) : null;
  const connection = await openConnection(resolved);
  return new AccessService(resolved, connection, checkpointer, openDecisionReads(DATABASE_URL)).start();
}
