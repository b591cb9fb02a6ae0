// The access service: the app side of the doors (docs/mqtt.md). It owns the
// start-up order (embedded broker if any, then the app's MQTT client, then the
// subscriptions and the retained state of every door) and the graceful stop
// (pending swipes answered, client closed, broker closed).
//
// Swipes are answered as they arrive, on what is committed with whatever is
// received but not yet committed planned first, and the decisions go out at
// once (decide()). Then swipes and door events are recorded in batches
// (record-batch.server.ts): whatever was answered while the previous batch
// was being written goes into the next one, and each committed batch sends
// the doors a receipt, so their bridges drop what they kept of it. A quiet
// door gets a batch of one at once; a busy building shares each transaction
// and its fsync. build/access.js records in a thread of its own
// (recorder-thread.server.ts), so this thread keeps reading swipes and
// sending decisions while a batch commits; recorded on this thread (tests,
// scripts), commits under load are spaced by a short pause instead. The
// doors' retained display and offline lists are
// door-publisher.server.ts's.
import os from "node:os";
import type { IPublishPacket, MqttClient } from "mqtt";
import { insertBuildingReading } from "~/models/building-reading.server";
import { recordBridgeState } from "~/models/door.server";
import { randomToken } from "~/utils/crypto.server";
import { getEnv } from "~/utils/env.server";
import { APP_USERNAME, startEmbeddedBroker, type EmbeddedBroker } from "./broker.server";
import {
  accessChangeSchema,
  bridgeStateSchema,
  buildingConditionsSchema,
  canonicalCardId,
  changesTopic,
  doorTopic,
  doorEventSchema,
  parseDoorTopic,
  parseSensorTopic,
  receiptMessages,
  sensorTopic,
  swipeIdSchema,
  swipeSchema,
  type AccessChange,
  type DecisionMessage,
} from "~/doors/contract";
import { startCheckpointer, type Checkpointer } from "./checkpointer.server";
import { DoorPublisher } from "./door-publisher.server";
import { connectAppClient, errorMessage } from "./mqtt.server";
import { withTimeout } from "~/utils/timeout";
import { setInProcessChangePublisher } from "./notify.server";
import { decideAccessBatch, recordAccessBatch, swipeAnswers, type AccessInput, type SwipeAnswer, type SwipeDecision } from "./record-batch.server";
import { startRecorderThread, type RecorderThread } from "./recorder-thread.server";
import { UNLOCK_MS } from "~/doors/rules";

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
  /** How long start() waits for the first connection to an external broker. Default 10 s. */
  connectTimeoutMs?: number;
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
  stats(): { decisions: number; events: number; batches: number };
  stop(): Promise<void>;
};

/** Largest batch recorded in one transaction. */
const MAX_BATCH = 500;
/**
 * Recording on the service's own thread, commits under load are at least this
 * far apart (each holds the thread for its fsync); see flush(). With the
 * recorder thread, the next batch starts as soon as the last one is done.
 */
const MIN_COMMIT_INTERVAL_MS = 8;
/** MQTT 5: a decision nobody read within this is useless (the bridge decided offline long ago). */
const DECISION_EXPIRY_S = 10;
const STOP_TIMEOUT_MS = 3000;

/** answer: the decision published for a swipe, before its commit. */
type Queued = { input: AccessInput; correlationData?: Buffer; answer?: SwipeAnswer };

type Resolved = Required<
  Pick<AccessServiceOptions, "prefix" | "refreshIntervalMs" | "credentialsDebounceMs" | "connectTimeoutMs" | "host" | "port" | "tlsPort">
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
  };
}

class AccessService {
  private broker: EmbeddedBroker | null = null;
  private client!: MqttClient;
  private stopped = false;
  /** Received, not yet answered. */
  private readonly undecided: Queued[] = [];
  private deciding: Promise<void> | null = null;
  /** Answered (swipes) or received (events), waiting for their batch. */
  private readonly queue: Queued[] = [];
  /** The batch being recorded. */
  private recording: Queued[] = [];
  private flushing: Promise<void> | null = null;
  private lastCommitAt = -Infinity;
  private publisher!: DoorPublisher;
  /** Bridge states and sensor readings, written one after another (awaited on stop). */
  private sideWrites: Promise<void> = Promise.resolve();
  private refreshTimer: NodeJS.Timeout | null = null;
  private checkpointer: Checkpointer | null = null;
  private recorder: RecorderThread | null = null;
  private readonly commitSpacingMs: number;
  private wasConnected = false;
  /** Resolves after the first subscription: from then on every swipe and event reaches this service. */
  private markSubscribed!: () => void;
  private readonly subscribed = new Promise<void>((resolve) => (this.markSubscribed = resolve));
  private readonly counters = { decisions: 0, events: 0, batches: 0 };

  constructor(private readonly options: Resolved) {
    this.commitSpacingMs = options.recorderThread ? 0 : MIN_COMMIT_INTERVAL_MS;
  }

  async start(): Promise<AccessServiceHandle> {
    const { options } = this;
    if (options.checkpointThread) this.checkpointer = startCheckpointer(getEnv().DATABASE_URL);
    if (options.recorderThread) {
      this.recorder = startRecorderThread(options.recorderThread, { checkpointsElsewhere: this.checkpointer !== null });
    }
    let url: string;
    let username = options.mqttUsername;
    let password = options.mqttPassword;
    if (options.mqttUrl) {
      url = options.mqttUrl;
    } else {
      password = randomToken(24);
      username = APP_USERNAME;
      this.broker = await startEmbeddedBroker({
        host: options.host,
        port: options.port,
        tlsPort: options.tlsPort,
        tlsCert: options.tlsCert,
        tlsKey: options.tlsKey,
        prefix: options.prefix,
        appPassword: password,
      });
      const listening = ["0.0.0.0", "::", ""].includes(options.host) ? "127.0.0.1" : options.host;
      url = `mqtt://${listening.includes(":") ? `[${listening}]` : listening}:${this.broker.port}`;
      console.info(
        `[access] embedded MQTT broker on ${options.host}:${this.broker.port}` +
          (this.broker.tlsPort !== null ? `, TLS on ${options.host}:${this.broker.tlsPort}` : ""),
      );
      if (options.shareGroup) console.warn("[access] MQTT_SHARE_GROUP is ignored by the embedded broker (one instance only)");
    }

    this.client = connectAppClient({
      url,
      username,
      password,
      clientId: options.clientId,
      protocolVersion: options.protocolVersion,
      // A kept session queues the bridges' offline events while this service restarts.
      clean: false,
    });
    this.publisher = new DoorPublisher({
      client: this.client,
      prefix: options.prefix,
      credentialsDebounceMs: options.credentialsDebounceMs,
      revalidateDoors: async (doorCodes) => this.broker?.revalidateDoors(doorCodes),
    });
    this.client.on("connect", () => this.handleConnect());
    this.client.on("message", (topic, payload, packet) => this.handleMessage(topic, payload, packet));
    this.client.on("error", (error) => console.warn(`[access] mqtt: ${error.message}`));
    this.client.on("close", () => {
      if (this.wasConnected && !this.stopped) console.warn("[access] mqtt: disconnected, reconnecting");
      this.wasConnected = false;
    });
    setInProcessChangePublisher(this.publishChange);

    const ready = await withTimeout(this.subscribed, options.connectTimeoutMs, "first subscription").then(
      () => true,
      () => false,
    );
    if (!ready) console.warn(`[access] mqtt: no connection to ${url} yet; retrying in the background`);
    this.refreshTimer = setInterval(() => this.publisher.sweep(), options.refreshIntervalMs);
    this.refreshTimer.unref();

    return {
      mqttPort: this.broker?.port ?? null,
      mqttTlsPort: this.broker?.tlsPort ?? null,
      stats: () => ({ ...this.counters }),
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
    const { prefix } = this.options;
    const share = this.sharePrefix();
    const filters = [
      `${share}${prefix}/doors/+/swipe`,
      `${share}${prefix}/doors/+/events`,
      // Unshared: every instance gets the retained states at start.
      `${prefix}/doors/+/state`,
      `${share}${changesTopic(prefix)}`,
      `${share}${sensorTopic(prefix, "+")}`,
    ];
    this.client.subscribe(filters, { qos: 1 }, (error, grants) => {
      // A refused filter (SUBACK 0x80, e.g. a broker ACL without the app's rights) comes as an error too.
      if (error) console.error(`[access] mqtt: subscribe failed: ${error.message}`);
      for (const grant of grants ?? []) {
        if (grant.qos >= 0x80) console.error(`[access] mqtt: the broker refused the subscription to ${grant.topic}`);
      }
      if (!error) {
        // The embedded broker has kept doors out until now (see broker.server.ts).
        this.broker?.openToDoors();
        this.markSubscribed();
      }
      // Everything, on every (re)connection: the broker may have lost its retained messages.
      this.publisher.republishAll();
    });
  }

  private handleMessage(topic: string, payload: Buffer, packet: IPublishPacket) {
    if (topic === changesTopic(this.options.prefix)) {
      const change = accessChangeSchema.safeParse(parseJson(payload));
      if (change.success) this.publisher.applyChange(change.data);
      else console.warn("[access] ignoring an invalid change notification");
      return;
    }
    const sensorId = parseSensorTopic(this.options.prefix, topic);
    if (sensorId) {
      this.receiveConditions(sensorId, payload);
      return;
    }
    const parsed = parseDoorTopic(this.options.prefix, topic);
    if (!parsed) return;
    if (parsed.kind === "swipe") this.receiveSwipe(parsed.doorCode, payload, packet);
    else if (parsed.kind === "events") this.receiveEvent(parsed.doorCode, payload);
    else if (parsed.kind === "state") this.receiveState(parsed.doorCode, payload, packet.retain);
  }

  private receiveSwipe(doorCode: string, payload: Buffer, packet: IPublishPacket) {
    const json = parseJson(payload);
    const id = swipeIdSchema.safeParse(json);
    if (!id.success) {
      console.warn(`[access] door ${doorCode}: swipe without a usable id ignored`);
      return;
    }
    const swipe = swipeSchema.safeParse(json);
    const rawCard = (json as { card?: unknown }).card;
    this.enqueue({
      input: {
        kind: "swipe",
        id: id.data.id,
        doorCode,
        cardNumber: swipe.success ? canonicalCardId(swipe.data.card) : null,
        rawCard: typeof rawCard === "string" ? rawCard : "",
        source: swipe.success ? swipe.data.source : null,
        ipAddress: this.broker?.addressOf(doorCode) ?? null,
      },
      correlationData: packet.properties?.correlationData,
    });
  }

  private receiveEvent(doorCode: string, payload: Buffer) {
    const event = doorEventSchema.safeParse(parseJson(payload));
    const cardNumber = event.success ? canonicalCardId(event.data.card) : null;
    if (!event.success || !cardNumber) {
      console.warn(`[access] door ${doorCode}: invalid event ignored`);
      return;
    }
    this.enqueue({
      input: {
        kind: "event",
        id: event.data.id,
        doorCode,
        cardNumber,
        at: new Date(event.data.at),
        granted: event.data.granted,
        reason: event.data.reason,
        offline: event.data.offline,
        ipAddress: this.broker?.addressOf(doorCode) ?? null,
      },
    });
  }

  private receiveState(doorCode: string, payload: Buffer, retained: boolean) {
    if (payload.length === 0) return; // a cleared retained state
    const state = bridgeStateSchema.safeParse(parseJson(payload));
    if (!state.success) {
      console.warn(`[access] door ${doorCode}: invalid state ignored`);
      return;
    }
    this.sideWrites = this.sideWrites
      .then(() => recordBridgeState(doorCode, state.data, { retained }))
      .then(
        () => undefined,
        (error: unknown) => console.error(`[access] door ${doorCode}: could not record its state`, error),
      );
  }

  /** A building sensor's reading: stored as it comes (the latest is what the portal shows). */
  private receiveConditions(sensorId: string, payload: Buffer) {
    const reading = buildingConditionsSchema.safeParse(parseJson(payload));
    if (!reading.success) {
      console.warn(`[access] sensor ${sensorId}: invalid reading ignored`);
      return;
    }
    const { temperature, humidity, wifiStatus, at } = reading.data;
    // A sensor whose clock runs ahead is recorded at arrival time.
    const recordedAt = new Date(Math.min(Date.parse(at), Date.now()));
    this.sideWrites = this.sideWrites
      .then(async () => {
        await insertBuildingReading({ temperature, humidity, wifiStatus, recordedAt });
      })
      .catch((error: unknown) => console.error(`[access] sensor ${sensorId}: could not store its reading`, error));
  }

  private enqueue(item: Queued) {
    this.undecided.push(item);
    this.deciding ??= this.decide();
  }

  /**
   * Answers the swipes that arrived, at once, on what is committed with what
   * is still to be committed planned first; then queues them to be recorded.
   * A person at the door never waits for a commit: a commit can stall for
   * tens of milliseconds on a busy disk (docs/decisions/0004). The bridge
   * keeps each answered swipe until a receipt says it is stored.
   */
  private async decide() {
    while (this.undecided.length > 0) {
      // Whatever arrives in the same turn is answered together.
      await new Promise((resolve) => setImmediate(resolve));
      const fresh = this.undecided.splice(0, MAX_BATCH);
      const now = new Date();
      try {
        const pending = [...this.recording, ...this.queue];
        const inputs = (items: Queued[]) => items.map((item) => item.input);
        const decisions = await decideAccessBatch(inputs(pending), swipeAnswers(pending), inputs(fresh), now);
        const swipes = fresh.filter((item) => item.input.kind === "swipe");
        swipes.forEach((item, index) => {
          const decision = decisions[index]!;
          item.answer = { granted: decision.granted, reason: decision.reason, at: now.getTime() };
          this.publishDecision(decision, item.correlationData);
        });
      } catch (error) {
        // Unanswered, they are decided in their batch and answered after its commit.
        console.error(`[access] could not decide ${fresh.length} swipes/events before recording them`, error);
      }
      this.queue.push(...fresh);
      this.flushing ??= this.flush();
    }
    this.deciding = null;
  }

  private async flush() {
    while (this.queue.length > 0) {
      // Group commit: every commit waits for its fsync, so under load commits
      // are spaced by at least commitSpacingMs and each takes
      // everything that arrived meanwhile. A lone swipe goes at once.
      const wait = this.lastCommitAt + this.commitSpacingMs - performance.now();
      await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
      this.lastCommitAt = performance.now();
      this.recording = this.queue.splice(0, MAX_BATCH);
      await this.recordBatch(this.recording);
      this.recording = [];
    }
    this.flushing = null;
  }

  private async recordBatch(batch: Queued[]) {
    let result;
    try {
      const inputs = batch.map((item) => item.input);
      const answers = swipeAnswers(batch);
      result = await (this.recorder ? this.recorder.record(inputs, answers) : recordAccessBatch(inputs, new Date(), answers));
    } catch (error) {
      // Nothing was committed and no receipt goes out: the bridges send their
      // events and answered swipes again; an unanswered swipe gets no
      // decision, so its door decides offline and reports it as an event.
      console.error(`[access] could not record ${batch.length} swipes/events`, error);
      return;
    }
    this.counters.batches += 1;
    this.counters.events += batch.filter((item) => item.input.kind === "event").length;
    // Decisions before receipts: a bridge keeps a swipe once it has its decision.
    const correlation = new Map(batch.map((item) => [item.input.id, item.correlationData]));
    for (const decision of result.decisions) this.publishDecision(decision, correlation.get(decision.id));
    this.publishReceipts(batch);
    if (result.deactivatedCardIds.length > 0) this.publisher.scheduleCredentialsOfCards(result.deactivatedCardIds);
  }

  private publishDecision(decision: SwipeDecision, correlationData: Buffer | undefined) {
    this.counters.decisions += 1;
    const message: DecisionMessage = {
      id: decision.id,
      granted: decision.granted,
      reason: decision.reason,
      display: decision.display,
      unlockMs: decision.granted ? UNLOCK_MS : 0,
    };
    const properties =
      this.options.protocolVersion === 5
        ? { messageExpiryInterval: DECISION_EXPIRY_S, ...(correlationData ? { correlationData } : {}) }
        : undefined;
    this.client.publish(
      doorTopic(this.options.prefix, decision.doorCode, "decision"),
      JSON.stringify(message),
      { qos: 1, properties },
      (error) => {
        if (error && !this.stopped) console.warn(`[access] decision ${decision.id}: ${error.message}`);
      },
    );
  }

  /**
   * Tells each door's bridge which of its swipes and events this committed
   * batch holds (duplicates too), so that it can drop them from its queue.
   */
  private publishReceipts(batch: Queued[]) {
    const storedByDoor = new Map<string, { ids: string[]; swipes: string[] }>();
    for (const { input } of batch) {
      const stored = storedByDoor.get(input.doorCode) ?? { ids: [], swipes: [] };
      (input.kind === "swipe" ? stored.swipes : stored.ids).push(input.id);
      storedByDoor.set(input.doorCode, stored);
    }
    for (const [doorCode, stored] of storedByDoor) {
      for (const message of receiptMessages(stored)) {
        this.client.publish(doorTopic(this.options.prefix, doorCode, "receipt"), JSON.stringify(message), { qos: 1 }, (error) => {
          if (error && !this.stopped) console.warn(`[access] receipt for door ${doorCode}: ${error.message}`);
        });
      }
    }
  }

  /** Publishes a change notification (notifyAccessChange uses this when the service runs in-process). */
  private readonly publishChange = async (change: AccessChange) => {
    await this.client.publishAsync(changesTopic(this.options.prefix), JSON.stringify(change), { qos: 1 });
  };

  /** Resolves once everything received is answered and recorded. */
  private async settled() {
    while (this.deciding || this.flushing) {
      await this.deciding;
      await this.flushing;
    }
  }

  private async stop() {
    if (this.stopped) return;
    this.stopped = true;
    setInProcessChangePublisher(null, this.publishChange);
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    // Swipes already received are answered and recorded before the connection closes.
    await this.settled();
    await this.publisher.stop();
    await this.sideWrites;
    try {
      await withTimeout(this.client.endAsync(false), STOP_TIMEOUT_MS, "mqtt disconnect");
    } catch (error) {
      console.warn(`[access] ${errorMessage(error)}; closing the connection`);
      await this.client.endAsync(true).catch(() => {});
    }
    await this.settled();
    await this.broker?.close();
    await this.recorder?.stop();
    await this.checkpointer?.stop();
    console.info("[access] stopped");
  }
}

function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Starts the access service (embedded broker unless MQTT_URL or options.mqttUrl is set). */
export async function startAccessService(options: AccessServiceOptions = {}): Promise<AccessServiceHandle> {
  return new AccessService(resolveOptions(options)).start();
}
