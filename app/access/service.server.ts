// The access service: the app side of the doors (docs/mqtt.md). It owns the
// start-up order (embedded broker if any, then the app's MQTT client, then the
// subscriptions and the retained state of every door) and the graceful stop
// (pending swipes answered, client closed, broker closed).
//
// Swipes and offline events are queued as they arrive and recorded in
// batches (app/models/access-log.server.ts): whatever arrived while the
// previous batch was being written, or during the short pause that spaces
// commits under load, goes into the next one. A quiet door gets a batch of
// one at once; a busy building shares each transaction and its fsync.
import crypto from "node:crypto";
import os from "node:os";
import type { IPublishPacket, MqttClient } from "mqtt";
import type { Door } from "~/db/schema";
import {
  deactivateExpiredCards,
  listDoorIdsForCards,
  listDoorIdsForUsers,
  listGrantedCardsForDoor,
} from "~/models/card.server";
import { listDoors, listDoorsByIds, nextCredentialsVersion, recordBridgeState } from "~/models/door.server";
import { recordAccessBatch, type AccessInput, type SwipeDecision } from "~/models/access-log.server";
import { randomToken, sha256 } from "~/utils/crypto.server";
import { getEnv } from "~/utils/env.server";
import { APP_USERNAME, startEmbeddedBroker, type EmbeddedBroker } from "./broker.server";
import {
  accessChangeSchema,
  bridgeStateSchema,
  canonicalCardId,
  changesTopic,
  doorTopic,
  offlineEventSchema,
  parseDoorTopic,
  receiptMessages,
  swipeIdSchema,
  swipeSchema,
  type AccessChange,
  type CredentialsMessage,
  type DecisionMessage,
  type DisplayMessage,
} from "./contract";
import { connectAppClient, errorMessage, waitForConnection, withTimeout } from "./mqtt.server";
import { setInProcessChangePublisher } from "./notify.server";
import { UNLOCK_MS, doorDisplayTexts } from "./rules";

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
/** Under load, commits (each waits for its fsync) are at least this far apart; see flush(). */
const MIN_COMMIT_INTERVAL_MS = 8;
/** MQTT 5: a decision nobody read within this is useless (the bridge decided offline long ago). */
const DECISION_EXPIRY_S = 10;
const STOP_TIMEOUT_MS = 3000;

type Queued = { input: AccessInput; correlationData?: Buffer };

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

/** What this instance last published for a door (to skip unchanged republishes and clear deleted doors). */
type PublishedDoor = { doorCode: string; display: string | null; credentials: string | null };

class AccessService {
  private broker: EmbeddedBroker | null = null;
  private client!: MqttClient;
  private stopped = false;
  private readonly queue: Queued[] = [];
  private flushing: Promise<void> | null = null;
  private lastCommitAt = -Infinity;
  /** Retained publishing runs one task at a time, so versions reach the broker in order. */
  private publishing: Promise<void> = Promise.resolve();
  private stateWrites: Promise<void> = Promise.resolve();
  private readonly published = new Map<string, PublishedDoor>();
  private readonly credentialsDue = new Set<string>();
  private credentialsTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private wasConnected = false;
  private readonly counters = { decisions: 0, events: 0, batches: 0 };

  constructor(private readonly options: Resolved) {}

  async start(): Promise<AccessServiceHandle> {
    const { options } = this;
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
    this.client.on("connect", () => this.handleConnect());
    this.client.on("message", (topic, payload, packet) => this.handleMessage(topic, payload, packet));
    this.client.on("error", (error) => console.warn(`[access] mqtt: ${error.message}`));
    this.client.on("close", () => {
      if (this.wasConnected && !this.stopped) console.warn("[access] mqtt: disconnected, reconnecting");
      this.wasConnected = false;
    });
    setInProcessChangePublisher(this.publishChange);

    if (!(await waitForConnection(this.client, options.connectTimeoutMs))) {
      console.warn(`[access] mqtt: no connection to ${url} yet; retrying in the background`);
    }
    this.refreshTimer = setInterval(() => this.runTask(() => this.periodicRefresh()), options.refreshIntervalMs);
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
    ];
    this.client.subscribe(filters, { qos: 1 }, (error, grants) => {
      // A refused filter (SUBACK 0x80, e.g. a broker ACL without the app's rights) comes as an error too.
      if (error) console.error(`[access] mqtt: subscribe failed: ${error.message}`);
      for (const grant of grants ?? []) {
        if (grant.qos >= 0x80) console.error(`[access] mqtt: the broker refused the subscription to ${grant.topic}`);
      }
      // Everything, on every (re)connection: the broker may have lost its retained messages.
      this.runTask(() => this.refreshAllDoors(true));
    });
  }

  private handleMessage(topic: string, payload: Buffer, packet: IPublishPacket) {
    if (topic === changesTopic(this.options.prefix)) {
      const change = accessChangeSchema.safeParse(parseJson(payload));
      if (change.success) this.runTask(() => this.applyChange(change.data));
      else console.warn("[access] ignoring an invalid change notification");
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
    const event = offlineEventSchema.safeParse(parseJson(payload));
    const cardNumber = event.success ? canonicalCardId(event.data.card) : null;
    if (!event.success || !cardNumber) {
      console.warn(`[access] door ${doorCode}: invalid offline event ignored`);
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
    this.stateWrites = this.stateWrites
      .then(() => recordBridgeState(doorCode, state.data, { retained }))
      .then(
        () => undefined,
        (error: unknown) => console.error(`[access] door ${doorCode}: could not record its state`, error),
      );
  }

  private enqueue(item: Queued) {
    this.queue.push(item);
    this.flushing ??= this.flush();
  }

  private async flush() {
    while (this.queue.length > 0) {
      // Group commit: every commit waits for its fsync, so under load commits
      // are spaced by at least MIN_COMMIT_INTERVAL_MS and each takes
      // everything that arrived meanwhile. A lone swipe goes at once.
      const wait = this.lastCommitAt + MIN_COMMIT_INTERVAL_MS - performance.now();
      await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
      this.lastCommitAt = performance.now();
      await this.recordBatch(this.queue.splice(0, MAX_BATCH));
    }
    this.flushing = null;
  }

  private async recordBatch(batch: Queued[]) {
    let result;
    try {
      result = await recordAccessBatch(batch.map((item) => item.input));
    } catch (error) {
      // Nothing was committed: no decision goes out; the bridges decide offline
      // and report it on `events` with the same ids.
      console.error(`[access] could not record ${batch.length} swipes/events`, error);
      return;
    }
    this.counters.batches += 1;
    this.counters.events += batch.filter((item) => item.input.kind === "event").length;
    this.publishReceipts(batch);
    const correlation = new Map(batch.map((item) => [item.input.id, item.correlationData]));
    for (const decision of result.decisions) {
      this.publishDecision(decision, correlation.get(decision.id));
      this.counters.decisions += 1;
    }
    if (result.deactivatedCardIds.length > 0) {
      listDoorIdsForCards(result.deactivatedCardIds).then(
        (doorIds) => this.scheduleCredentials(doorIds),
        (error: unknown) => console.error("[access] could not find the doors of expired cards", error),
      );
    }
  }

  private publishDecision(decision: SwipeDecision, correlationData: Buffer | undefined) {
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
   * Tells each door's bridge which of its offline events this committed batch
   * holds (duplicates too), so that it can drop them from its queue.
   */
  private publishReceipts(batch: Queued[]) {
    const idsByDoor = new Map<string, string[]>();
    for (const { input } of batch) {
      if (input.kind !== "event") continue;
      const ids = idsByDoor.get(input.doorCode) ?? [];
      ids.push(input.id);
      idsByDoor.set(input.doorCode, ids);
    }
    for (const [doorCode, ids] of idsByDoor) {
      for (const message of receiptMessages(ids)) {
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

  private runTask(task: () => Promise<void>) {
    this.publishing = this.publishing.then(task).catch((error: unknown) => {
      if (!this.stopped) console.error("[access] republishing failed", error);
    });
  }

  private async applyChange(change: AccessChange) {
    if (change.all) {
      await this.refreshAllDoors(true);
      await this.broker?.revalidateDoors([...this.published.values()].map((door) => door.doorCode));
      return;
    }
    const doorIds = change.doorIds ?? [];
    const rows = await listDoorsByIds(doorIds);
    const doorCodes = rows.map((door) => door.doorId);
    for (const door of rows) {
      const previousCode = this.published.get(door.id)?.doorCode;
      if (previousCode && previousCode !== door.doorId) doorCodes.push(previousCode);
      await this.publishDisplay(door, true);
    }
    for (const id of doorIds) {
      if (rows.some((door) => door.id === id)) continue;
      const gone = this.published.get(id);
      if (gone) {
        doorCodes.push(gone.doorCode);
        await this.clearDoor(id, gone.doorCode);
      }
    }
    await this.broker?.revalidateDoors(doorCodes);
    const related = [
      ...(await listDoorIdsForCards(change.cardIds ?? [])),
      ...(await listDoorIdsForUsers(change.userIds ?? [])),
    ];
    this.scheduleCredentials([...rows.map((door) => door.id), ...related]);
  }

  private scheduleCredentials(doorIds: string[]) {
    if (this.stopped) return;
    for (const id of doorIds) this.credentialsDue.add(id);
    if (this.credentialsTimer || this.credentialsDue.size === 0) return;
    this.credentialsTimer = setTimeout(() => {
      this.credentialsTimer = null;
      const due = [...this.credentialsDue];
      this.credentialsDue.clear();
      this.runTask(async () => {
        for (const door of await listDoorsByIds(due)) await this.publishCredentials(door, true);
      });
    }, this.options.credentialsDebounceMs);
  }

  private async periodicRefresh() {
    const expired = await deactivateExpiredCards();
    if (expired.length > 0) console.info(`[access] ${expired.length} expired cards deactivated`);
    // Unforced: only what differs from what this instance last published.
    await this.refreshAllDoors(false);
  }

  private async refreshAllDoors(force: boolean) {
    const all = await listDoors();
    const present = new Set(all.map((door) => door.id));
    for (const [id, door] of this.published) {
      if (!present.has(id)) await this.clearDoor(id, door.doorCode);
    }
    for (const door of all) {
      await this.publishDisplay(door, force);
      await this.publishCredentials(door, force);
    }
  }

  private remember(door: Door, fields: Partial<PublishedDoor>) {
    const previous = this.published.get(door.id);
    this.published.set(door.id, {
      doorCode: door.doorId,
      display: previous?.doorCode === door.doorId ? previous.display : null,
      credentials: previous?.doorCode === door.doorId ? previous.credentials : null,
      ...fields,
    });
  }

  private async publishDisplay(door: Door, force: boolean) {
    const previous = this.published.get(door.id);
    if (previous && previous.doorCode !== door.doorId) await this.clearTopics(previous.doorCode);
    const texts = doorDisplayTexts(door);
    const fingerprint = JSON.stringify([texts, door.status]);
    if (!force && previous?.doorCode === door.doorId && previous.display === fingerprint) return;
    const message: DisplayMessage = { ...texts, doorStatus: door.status, updatedAt: door.updatedAt.toISOString() };
    await this.publishRetained(doorTopic(this.options.prefix, door.doorId, "display"), JSON.stringify(message));
    this.remember(door, { display: fingerprint });
  }

  private async publishCredentials(door: Door, force: boolean) {
    const now = new Date();
    // A door in maintenance or emergency grants nobody, offline included.
    const granted = door.status === "active" ? await listGrantedCardsForDoor(door.id, now) : [];
    const fingerprint = granted.map((card) => `${card.cardNumber}:${card.expiresAt?.getTime() ?? ""}`).join(",");
    const previous = this.published.get(door.id);
    if (!force && previous?.doorCode === door.doorId && previous.credentials === fingerprint) return;
    const salt = crypto.randomBytes(16).toString("hex");
    const message: CredentialsMessage = {
      version: await nextCredentialsVersion(door.id),
      generatedAt: now.toISOString(),
      salt,
      cards: granted.map((card) => ({
        h: sha256(`${salt}${card.cardNumber}`),
        exp: card.expiresAt?.toISOString() ?? null,
      })),
    };
    await this.publishRetained(doorTopic(this.options.prefix, door.doorId, "credentials"), JSON.stringify(message));
    this.remember(door, { credentials: fingerprint });
  }

  /** A deleted door: its retained display and offline list are removed from the broker. */
  private async clearDoor(id: string, doorCode: string) {
    await this.clearTopics(doorCode);
    this.published.delete(id);
  }

  private async clearTopics(doorCode: string) {
    await this.publishRetained(doorTopic(this.options.prefix, doorCode, "display"), "");
    await this.publishRetained(doorTopic(this.options.prefix, doorCode, "credentials"), "");
  }

  private async publishRetained(topic: string, payload: string) {
    await this.client.publishAsync(topic, payload, { qos: 1, retain: true });
  }

  private async stop() {
    if (this.stopped) return;
    this.stopped = true;
    setInProcessChangePublisher(null, this.publishChange);
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    if (this.credentialsTimer) clearTimeout(this.credentialsTimer);
    // Swipes already received are recorded and answered before the connection closes.
    await this.flushing;
    await this.publishing;
    await this.stateWrites;
    try {
      await withTimeout(this.client.endAsync(false), STOP_TIMEOUT_MS, "mqtt disconnect");
    } catch (error) {
      console.warn(`[access] ${errorMessage(error)}; closing the connection`);
      await this.client.endAsync(true).catch(() => {});
    }
    await this.flushing;
    await this.broker?.close();
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
