// FakeBridge: a real MQTT.js client that plays a door's bridge in the access
// service tests (the doors, cards and credentials come from ./fixtures.ts).
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient } from "mqtt";
import type { DecisionMessage } from "~/doors/contract";
import { eventually } from "../../bridge/src/test-support/eventually";

export const PREFIX = "coliving";

type Received = { topic: string; json: unknown; packet: IPublishPacket };

export class FakeBridge {
  readonly received: Received[] = [];
  /** Subscribed to its receipts (connect's default). */
  receivesReceipts = false;

  private constructor(
    readonly client: MqttClient,
    readonly doorCode: string,
    readonly prefix: string,
  ) {
    client.on("message", (topic, payload, packet) => {
      let json: unknown;
      try {
        json = payload.length ? JSON.parse(payload.toString("utf8")) : null;
      } catch {
        json = payload.toString("utf8");
      }
      this.received.push({ topic, json, packet });
    });
  }

  /** Connects as the door (username = doorCode); subscribes to its own topics unless told not to. */
  static async connect(
    url: string,
    doorCode: string,
    password: string,
    options: Partial<IClientOptions> & { prefix?: string; subscribe?: boolean } = {},
  ) {
    const { prefix = PREFIX, subscribe = true, ...clientOptions } = options;
    const client = await mqtt.connectAsync(url, {
      // Not coliving-bridge-<doorId>: that id is the real bridge's, one connection at a time.
      clientId: `fake-bridge-${doorCode}-${randomUUID().slice(0, 6)}`,
      username: doorCode,
      password,
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      ...clientOptions,
    });
    (client.stream as Partial<Socket>).setNoDelay?.(true);
    const bridge = new FakeBridge(client, doorCode, prefix);
    if (subscribe) {
      await client.subscribeAsync(
        ["decision", "display", "credentials", "receipt"].map((kind) => `${prefix}/doors/${doorCode}/${kind}`),
        { qos: 1 },
      );
      bridge.receivesReceipts = true;
    }
    return bridge;
  }

  topic(kind: string, doorCode = this.doorCode) {
    return `${this.prefix}/doors/${doorCode}/${kind}`;
  }

  /**
   * Publishes a swipe and resolves with its decision, once a receipt says the
   * swipe is stored (the app answers before its commit); `stored: false`,
   * and a bridge that did not subscribe to its receipts, resolve on the
   * decision alone.
   */
  async swipe(
    card: string,
    options: { source?: "reader" | "mobile"; id?: string; doorCode?: string; properties?: IPublishPacket["properties"]; stored?: boolean } = {},
  ): Promise<DecisionMessage & { packet: IPublishPacket }> {
    return this.present({ card }, { source: "reader", ...options });
  }

  /** A PIN typed at the door's keypad (`source: "keypad"`), as swipe() does a card. */
  typePin(pin: string, options: { id?: string; stored?: boolean } = {}) {
    return this.present({ pin }, { source: "keypad", ...options });
  }

  /** A token read by the door's QR scanner (`source: "qr"`), as swipe() does a card. */
  scanQr(qr: string, options: { id?: string; stored?: boolean } = {}) {
    return this.present({ qr }, { source: "qr", ...options });
  }

  private async present(
    credential: { card: string } | { pin: string } | { qr: string },
    options: { source: "reader" | "mobile" | "keypad" | "qr"; id?: string; doorCode?: string; properties?: IPublishPacket["properties"]; stored?: boolean },
  ): Promise<DecisionMessage & { packet: IPublishPacket }> {
    const id = options.id ?? randomUUID();
    const since = this.received.length;
    await this.publishJson(
      "swipe",
      { id, ...credential, at: new Date().toISOString(), source: options.source },
      { doorCode: options.doorCode, properties: options.properties },
    );
    const message = await this.waitFor(
      (m) => m.topic === this.topic("decision") && (m.json as DecisionMessage | null)?.id === id,
      { since },
    );
    if (options.stored ?? this.receivesReceipts) await this.waitForReceipt(id, { since, doorCode: options.doorCode });
    return { ...(message.json as DecisionMessage), packet: message.packet };
  }

  /** Resolves once a receipt on the door's receipt topic names `id` among its swipes (`as: "swipe"`) or its events. */
  waitForReceipt(id: string, { since = 0, doorCode = this.doorCode, as = "swipe" }: { since?: number; doorCode?: string; as?: "swipe" | "event" } = {}) {
    const field = as === "swipe" ? "swipes" : "ids";
    const names = (m: Received) =>
      m.topic === this.topic("receipt", doorCode) && Boolean((m.json as Record<string, string[] | undefined> | null)?.[field]?.includes(id));
    return this.waitFor(names, { since });
  }

  async publishJson(
    kind: string,
    json: unknown,
    options: { doorCode?: string; retain?: boolean; properties?: IPublishPacket["properties"] } = {},
  ) {
    await this.client.publishAsync(this.topic(kind, options.doorCode), JSON.stringify(json), {
      qos: 1,
      retain: options.retain ?? false,
      properties: options.properties,
    });
  }

  /** The first message (from `since` on) that matches, waiting up to timeoutMs for it. */
  waitFor(match: (message: Received) => boolean, { since = 0, timeoutMs = 5000 } = {}): Promise<Received> {
    return eventually(() => this.received.slice(since).find(match), `a matching message to ${this.doorCode}`, timeoutMs);
  }

  /** The latest message received on one of this door's topics. */
  latest(kind: string) {
    return [...this.received].reverse().find((m) => m.topic === this.topic(kind));
  }

  async end() {
    await this.client.endAsync(true).catch(() => {});
  }
}
