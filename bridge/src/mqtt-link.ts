import type { Socket } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import type { StateMessage } from './contract.js';
import { errorMessage, type Logger } from './logger.js';
import { redactUrl } from './config.js';
import { withTimeout } from './timeout.js';

export interface MqttLinkOptions {
  url: string;
  username: string;
  password: string | undefined;
  /** CA certificate(s), PEM, for mqtts:// brokers with a private CA. */
  ca: Buffer | undefined;
  protocolVersion: 4 | 5;
  clientId: string;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** Subscribed (QoS 1) on every connect. */
  subscriptions: string[];
  stateTopic: string;
  /** The retained state published on every connect. */
  onlineState: () => StateMessage;
  logger: Logger;
}

export interface MqttLinkHandlers {
  onConnect(): void;
  onDisconnect(): void;
  onMessage(topic: string, payload: Buffer): void;
}

const OFFLINE_STATE = JSON.stringify({ online: false } satisfies StateMessage);
const STOP_TIMEOUT_MS = 2000;

/**
 * The bridge's MQTT connection: last will and retained state, subscriptions
 * renewed on every connect, reconnection with exponential backoff, and
 * publishes that resolve on the broker's acknowledgement.
 */
export class MqttLink {
  private client: MqttClient | null = null;
  private stopping = false;
  private reconnectDelayMs: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private wasConnected = false;
  private failureLogged = false;
  /** Rejecters of publishes awaiting their PUBACK; a lost connection fails them all. */
  private readonly awaitingAck = new Set<(error: Error) => void>();

  constructor(
    private readonly options: MqttLinkOptions,
    private readonly handlers: MqttLinkHandlers,
  ) {
    this.reconnectDelayMs = options.reconnectMinMs;
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  start(): void {
    const { options } = this;
    options.logger.info(`mqtt: connecting to ${redactUrl(options.url)} as ${options.username}`);
    const client = mqtt.connect(options.url, {
      clientId: options.clientId,
      username: options.username,
      password: options.password,
      ca: options.ca,
      protocolVersion: options.protocolVersion,
      clean: true,
      keepalive: 30,
      connectTimeout: 10_000,
      // Reconnection and re-subscription are ours (backoff; subscribe on every connect).
      reconnectPeriod: 0,
      resubscribe: false,
      will: { topic: options.stateTopic, payload: Buffer.from(OFFLINE_STATE), qos: 1, retain: true },
    });
    this.client = client;

    client.on('connect', () => this.handleConnect(client));
    client.on('close', () => this.handleClose());
    client.on('error', (error) => this.handleError(error));
    client.on('message', (topic, payload) => this.handlers.onMessage(topic, payload));
  }

  /** Publishes with QoS 1; resolves when the broker acknowledged it. Fails at once when offline. */
  publish(topic: string, payload: string, options: { retain?: boolean } = {}): Promise<void> {
    const client = this.client;
    if (client === null || !client.connected) return Promise.reject(new Error('not connected'));
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        this.awaitingAck.delete(fail);
        reject(error);
      };
      this.awaitingAck.add(fail);
      client.publish(topic, payload, { qos: 1, retain: options.retain ?? false }, (error) => {
        if (error) {
          fail(error);
          return;
        }
        if (settled) return;
        settled = true;
        this.awaitingAck.delete(fail);
        resolve();
      });
    });
  }

  /** Publishes the retained offline state (when connected) and disconnects. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    const client = this.client;
    if (client === null) return;
    if (client.connected) {
      try {
        const published = this.publish(this.options.stateTopic, OFFLINE_STATE, { retain: true });
        await withTimeout(published, STOP_TIMEOUT_MS, 'the PUBACK');
      } catch (error) {
        this.options.logger.warn(`mqtt: could not publish the offline state: ${errorMessage(error)}`);
      }
    }
    try {
      await withTimeout(new Promise<void>((resolve) => client.end(false, {}, () => resolve())), STOP_TIMEOUT_MS, 'disconnect');
    } catch {
      await new Promise<void>((resolve) => client.end(true, {}, () => resolve()));
    }
  }

  private handleConnect(client: MqttClient): void {
    // MQTT.js leaves Nagle on: each QoS 1 round trip would wait for delayed ACKs.
    (client.stream as Partial<Socket>).setNoDelay?.(true);
    this.reconnectDelayMs = this.options.reconnectMinMs;
    this.wasConnected = true;
    this.failureLogged = false;
    this.options.logger.info('mqtt: connected');
    client.subscribe(this.options.subscriptions, { qos: 1 }, (error, grants) => {
      if (error) {
        this.options.logger.warn(`mqtt: subscribe failed: ${error.message}`);
        return;
      }
      for (const grant of grants ?? []) {
        if (grant.qos === 128) this.options.logger.error(`mqtt: the broker refused the subscription to ${grant.topic}`);
      }
    });
    this.publish(this.options.stateTopic, JSON.stringify(this.options.onlineState()), { retain: true }).catch((error) =>
      this.options.logger.warn(`mqtt: could not publish the online state: ${errorMessage(error)}`),
    );
    this.handlers.onConnect();
  }

  private handleClose(): void {
    const lostError = new Error('connection closed before the broker acknowledged');
    for (const fail of [...this.awaitingAck]) fail(lostError);
    if (this.wasConnected) {
      this.wasConnected = false;
      if (!this.stopping) this.options.logger.warn('mqtt: disconnected');
      this.handlers.onDisconnect();
    }
    this.scheduleReconnect();
  }

  /** Logged once per outage (further attempts at debug level) so a long outage does not flood the journal. */
  private handleError(error: Error & { code?: string | number }): void {
    // A numeric code is a CONNACK refusal: wrong username/password, not authorised.
    const refused = typeof error.code === 'number';
    const message = refused ? `mqtt: the broker refused the connection: ${error.message}` : `mqtt: ${error.message}`;
    if (this.failureLogged) {
      this.options.logger.debug(message);
      return;
    }
    this.failureLogged = true;
    const retry = ` (retrying with backoff up to ${this.options.reconnectMaxMs} ms)`;
    if (refused) this.options.logger.error(`${message}${retry}`);
    else this.options.logger.warn(`${message}${retry}`);
  }

  private scheduleReconnect(): void {
    if (this.stopping || this.reconnectTimer !== null) return;
    // Jitter spreads the doors' reconnections when the broker comes back.
    const delay = Math.round(this.reconnectDelayMs * (0.8 + Math.random() * 0.4));
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, this.options.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopping) this.client?.reconnect();
    }, delay);
  }
}
