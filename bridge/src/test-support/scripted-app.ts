import { createHash } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import type { Socket } from 'node:net';
import { eventually } from './eventually.js';

export interface ScriptedDecision {
  granted: boolean;
  reason: string;
  line1: string;
  line2: string;
  unlockMs: number;
}

/**
 * Stands in for the app's access service: answers swipes with decisions per
 * the contract, publishes retained display/credentials, counts events and
 * receipts each one as it arrives (under `ids`), and each swipe it answered
 * after its decision, late or not (under `swipes`, as the app does once its
 * decision's row is committed).
 */
export class ScriptedApp {
  readonly swipes: Array<{ id: string; card?: string; pin?: string; qr?: string; at: string; source: string }> = [];
  readonly events: Array<{ id: string; card?: string; pin?: string; qr?: string; at: string; granted: boolean; reason: string; offline: boolean }> = [];
  readonly states: unknown[] = [];
  /** The doors' contact reports, with the door they came from. */
  readonly contacts: Array<{ door: string; state: string; released: boolean; at: string }> = [];
  /**
   * Cards granted by the app, and keys as "pin:<PIN>" / "qr:<token>" (grantKey);
   * any other card is denied with unknown_card, any other key with invalid_key.
   */
  readonly grants = new Map<string, ScriptedDecision>();
  /** Delay before answering a swipe. */
  decisionDelayMs = 0;
  /** When false, swipes are not answered at all. */
  answering = true;
  /** When false, events and answered swipes are not receipted (the bridge keeps and resends them). */
  receipting = true;

  private constructor(
    private readonly client: MqttClient,
    private readonly prefix: string,
  ) {}

  /** Connected and subscribed (false while the broker is away). */
  ready = false;

  static async connect(url: string, prefix = 'coliving'): Promise<ScriptedApp> {
    const client = mqtt.connect(url, {
      clientId: `scripted-app-${Math.random().toString(16).slice(2)}`,
      reconnectPeriod: 50,
      // A persistent session: QoS 1 messages published while the app is reconnecting wait for it.
      clean: false,
      resubscribe: false,
    });
    const app = new ScriptedApp(client, prefix);
    client.on('message', (topic, payload) => app.handle(topic, payload));
    client.on('close', () => (app.ready = false));
    client.on('connect', () => {
      (client.stream as Partial<Socket>).setNoDelay?.(true);
      const topics = [`${prefix}/doors/+/swipe`, `${prefix}/doors/+/events`, `${prefix}/doors/+/state`, `${prefix}/doors/+/contact`];
      client.subscribe(topics, { qos: 1 }, (error) => (app.ready = !error));
    });
    await app.whenReady();
    return app;
  }

  async whenReady(timeoutMs = 4000): Promise<void> {
    await eventually(() => this.ready, 'the scripted app to connect and subscribe', timeoutMs);
  }

  grant(card: string, line1 = 'WELCOME HOME', line2 = 'ANA', unlockMs = 200): void {
    this.grants.set(card, { granted: true, reason: 'granted', line1, line2, unlockMs });
  }

  grantKey(kind: 'pin' | 'qr', secret: string, line1 = 'Hola, Ana', line2 = 'WELCOME', unlockMs = 200): void {
    this.grants.set(`${kind}:${secret}`, { granted: true, reason: 'granted', line1, line2, unlockMs });
  }

  eventCount(id: string): number {
    return this.events.filter((event) => event.id === id).length;
  }

  async publishDisplay(door: string, display: { welcome: string; status: string; doorStatus?: string }): Promise<void> {
    const message = { doorStatus: 'active', updatedAt: new Date().toISOString(), ...display };
    await this.client.publishAsync(`${this.prefix}/doors/${door}/display`, JSON.stringify(message), { qos: 1, retain: true });
  }

  async publishCredentials(
    door: string,
    version: number,
    cards: Array<{ card: string; exp?: string | null; win?: Array<[string, string]> }>,
    salt = 'ab12',
    keys?: Array<{ kind: 'pin' | 'qr'; secret: string; win: Array<[string, string]>; name?: string }>,
  ): Promise<void> {
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    const message = {
      version,
      generatedAt: new Date().toISOString(),
      salt,
      cards: cards.map(({ card, exp, win }) => ({
        h: sha256(`${salt}${card}`),
        exp: exp ?? null,
        ...(win === undefined ? {} : { win }),
      })),
      ...(keys === undefined ? {} : { keys: keys.map(({ kind, secret, win, name }) => ({ h: sha256(`${salt}${kind}:${secret}`), k: kind, win, n: name ?? '' })) }),
    };
    await this.client.publishAsync(`${this.prefix}/doors/${door}/credentials`, JSON.stringify(message), { qos: 1, retain: true });
  }

  async publishReceipt(door: string, receipt: { ids?: string[]; swipes?: string[] }): Promise<void> {
    await this.client.publishAsync(`${this.prefix}/doors/${door}/receipt`, JSON.stringify(receipt), { qos: 1 });
  }

  async publishRaw(topic: string, payload: string, retain = false): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: 1, retain });
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }

  private handle(topic: string, payload: Buffer): void {
    const message = JSON.parse(payload.toString('utf8'));
    const [, , door, kind] = topic.split('/').slice(-4);
    if (kind === 'state') this.states.push(message);
    if (kind === 'contact') this.contacts.push({ door, ...message });
    if (kind === 'events') {
      this.events.push(message);
      // A receipt lost with the connection is like one never sent: the bridge resends the event.
      if (this.receipting) this.publishReceipt(door, { ids: [message.id] }).catch(() => {});
    }
    if (kind !== 'swipe') return;
    this.swipes.push(message);
    if (!this.answering) return;
    const isCard = typeof message.card === 'string';
    const scripted = this.grants.get(isCard ? message.card : typeof message.pin === 'string' ? `pin:${message.pin}` : `qr:${message.qr}`) ?? {
      granted: false,
      reason: isCard ? 'unknown_card' : 'invalid_key',
      line1: 'ACCESS DENIED',
      line2: isCard ? 'UNKNOWN CARD' : 'Código no válido',
      unlockMs: 0,
    };
    const decision = {
      id: message.id,
      granted: scripted.granted,
      reason: scripted.reason,
      display: { line1: scripted.line1, line2: scripted.line2 },
      unlockMs: scripted.unlockMs,
    };
    setTimeout(() => {
      this.client.publish(`${this.prefix}/doors/${door}/decision`, JSON.stringify(decision), { qos: 1 });
      if (this.receipting) this.publishReceipt(door, { swipes: [message.id] }).catch(() => {});
    }, this.decisionDelayMs);
  }
}
