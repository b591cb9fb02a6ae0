import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { isCanonicalCardId } from './card-id.js';
import { parseConfig, redactConfig, type BridgeConfig, type BridgeConfigInput } from './config.js';
import {
  credentialsListSchema,
  decisionSchema,
  displayMessageSchema,
  doorTopics,
  type Decision,
  type OfflineEvent,
  type OfflineReason,
  type StateMessage,
  type SwipeMessage,
} from './contract.js';
import { openDisplay, type Display } from './displays/index.js';
import { openLock, type Lock } from './locks/index.js';
import { spawnProcess, type SpawnFunction } from './locks/gpio.js';
import { createConsoleLogger, errorMessage, type Logger } from './logger.js';
import { MqttLink } from './mqtt-link.js';
import { OfflineStore } from './offline-store.js';
import { openReader, type CardReader } from './readers/index.js';
import { createSystemSerialPort, type SerialPortFactory } from './serial.js';

/** A card seen again within this window (since it was last seen) is the same swipe. */
export const REPEAT_WINDOW_MS = 2000;
/** Offline grants open the door this long unless the config sets unlockMs. */
export const OFFLINE_UNLOCK_MS = 3000;
/** Upper bound on a decision's unlockMs: a faulty message must not hold the door open. */
export const MAX_UNLOCK_MS = 60_000;

const DEFAULT_IDLE = { welcome: 'WELCOME', status: 'READY' };
const OFFLINE_LINES: Record<OfflineReason, [string, string]> = {
  granted: ['ACCESS GRANTED', 'OFFLINE MODE'],
  unknown_card: ['ACCESS DENIED', 'OFFLINE MODE'],
  card_expired: ['CARD EXPIRED', 'OFFLINE MODE'],
  offline_deny: ['ACCESS DENIED', 'DOOR OFFLINE'],
};

export interface BridgeDeps {
  /** Builds serial ports (default: real ports). Tests pass one that builds SerialPortMock. */
  serialPortFactory?: SerialPortFactory;
  /** Runs gpioset for the gpio lock (default: child_process.spawn). */
  spawn?: SpawnFunction;
  /** Input of the keyboard reader (default: process.stdin). */
  stdin?: Readable;
  logger?: Logger;
  /** Reported in the retained state (default: bridge/package.json's version). */
  version?: string;
  /**
   * Called when the bridge cannot go on (a serial port vanished, gpioset died).
   * The bridge is already stopping when it is called. main.ts exits non-zero so
   * that systemd restarts it.
   */
  onFatal?: (error: Error) => void;
}

export interface SwipeOutcome {
  id: string;
  card: string;
  granted: boolean;
  reason: string;
  /** true when decided from the offline list (or the deny policy). */
  offline: boolean;
  /** How long the door was opened, 0 when denied. */
  unlockMs: number;
}

export interface BridgeStatus {
  connected: boolean;
  lockOpen: boolean;
  pendingEvents: number;
  credentialsVersion: number | null;
  display: { line1: string; line2: string };
}

export interface BridgeHandle {
  readonly doorId: string;
  /**
   * Handles a card as if the reader had read it (same repeat filter, same
   * decision path). Takes a canonical card id ("004E2B4E"); rejects anything
   * else. Resolves with the outcome, or null when the read was ignored as a
   * repeat or the bridge is stopping.
   */
  swipe(card: string): Promise<SwipeOutcome | null>;
  status(): BridgeStatus;
  /** Fail-secure shutdown: lock shut, offline state published, ports closed. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a bridge: offline store, lock (shut), display (idle), MQTT link, then
 * the reader. Resolves once the local hardware is ready; the MQTT connection
 * is made in the background (the bridge works offline from the start).
 */
export async function startBridge(configInput: BridgeConfigInput | BridgeConfig, deps: BridgeDeps = {}): Promise<BridgeHandle> {
  const config = parseConfig(configInput);
  const logger = deps.logger ?? createConsoleLogger(config.logLevel);
  const version = deps.version ?? (await readPackageVersion());
  const topics = doorTopics(config.mqtt.topicPrefix, config.doorId);
  const serialPortFactory = deps.serialPortFactory ?? createSystemSerialPort;
  logger.info(`coliving-bridge ${version} starting for door ${config.doorId}`);
  logger.debug(`config: ${JSON.stringify(redactConfig(config))}`);
  if (config.mqtt.password === undefined) logger.warn('mqtt.password is not set: connecting without a password');
  const ca = config.mqtt.caFile === undefined ? undefined : readCaFile(config.mqtt.caFile);

  let stopping = false;
  let stopped: Promise<void> | null = null;
  const onLost = (error: Error) => {
    if (stopping) return;
    logger.error(`${error.message}: stopping`);
    void stop().then(() => deps.onFatal?.(error));
  };

  const store = await OfflineStore.open(config.dataDir, logger);
  let lock: Lock | null = null;
  let display: Display | null = null;
  let reader: CardReader | null = null;
  let link: MqttLink | null = null;

  // Door and screen state
  let lockOpen = false;
  let relockTimer: NodeJS.Timeout | null = null;
  let holdTimer: NodeJS.Timeout | null = null;
  let shownLines = { line1: '', line2: '' };
  const lastSeen = new Map<string, number>();
  const awaitingDecision = new Map<string, (decision: Decision) => void>();
  let swipeQueue: Promise<unknown> = Promise.resolve();
  let flushing = false;

  const show = async (line1: string, line2: string) => {
    shownLines = { line1, line2 };
    try {
      await display?.show(line1, line2);
    } catch (error) {
      logger.error(`display: ${errorMessage(error)}`);
    }
  };

  const idleLines = (): [string, string] => {
    const message = store.displayMessage ?? DEFAULT_IDLE;
    return [message.welcome, link?.connected === true ? message.status : 'OFFLINE'];
  };

  const showIdle = async () => {
    if (holdTimer !== null || stopping) return;
    await show(...idleLines());
  };

  const showDecision = async (line1: string, line2: string) => {
    if (holdTimer !== null) clearTimeout(holdTimer);
    holdTimer = setTimeout(() => {
      holdTimer = null;
      void showIdle();
    }, config.displayHoldMs);
    await show(line1, line2);
  };

  const relock = async () => {
    relockTimer = null;
    lockOpen = false;
    if (stopping) return; // stop() locks the door itself
    try {
      await lock?.lock();
    } catch (error) {
      logger.error(`lock: cannot lock: ${errorMessage(error)}`);
    }
  };

  const unlockFor = async (ms: number) => {
    if (stopping) return; // never open a door that is shutting down
    if (relockTimer !== null) clearTimeout(relockTimer);
    relockTimer = setTimeout(() => void relock(), ms);
    if (lockOpen) return;
    lockOpen = true;
    try {
      await lock?.unlock();
    } catch (error) {
      logger.error(`lock: cannot unlock: ${errorMessage(error)}`);
    }
  };

  const waitForDecision = (id: string): Promise<Decision | null> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        awaitingDecision.delete(id);
        resolve(null);
      }, config.decisionTimeoutMs);
      awaitingDecision.set(id, (decision) => {
        clearTimeout(timer);
        awaitingDecision.delete(id);
        resolve(decision);
      });
    });

  const flushEvents = async () => {
    if (flushing || link === null) return;
    flushing = true;
    try {
      for (;;) {
        const next = store.pendingEvents()[0];
        if (next === undefined || !link.connected || stopping) break;
        await link.publish(topics.events, JSON.stringify(next));
        await store.acknowledgeEvent(next.id);
        logger.debug(`offline event ${next.id} delivered`);
      }
    } catch (error) {
      logger.warn(`offline events: delivery interrupted (${errorMessage(error)}); will retry on reconnect`);
    } finally {
      flushing = false;
    }
  };

  const decide = async (card: string): Promise<SwipeOutcome> => {
    const id = randomUUID();
    const at = new Date().toISOString();
    let decision: Decision | null = null;
    if (link?.connected === true) {
      const decided = waitForDecision(id);
      const swipe: SwipeMessage = { id, card, at, source: 'reader' };
      link.publish(topics.swipe, JSON.stringify(swipe)).catch((error) => logger.debug(`swipe ${id}: ${errorMessage(error)}`));
      decision = await decided;
      if (decision === null) logger.warn(`swipe ${id}: no decision within ${config.decisionTimeoutMs} ms, deciding offline`);
    }

    if (decision !== null) {
      const unlockMs = decision.granted ? Math.min(config.unlockMs ?? decision.unlockMs, MAX_UNLOCK_MS) : 0;
      logger.info(`card ${card}: ${decision.granted ? 'granted' : 'denied'} (${decision.reason})`);
      if (decision.granted) await unlockFor(unlockMs);
      await showDecision(decision.display.line1, decision.display.line2);
      return { id, card, granted: decision.granted, reason: decision.reason, offline: false, unlockMs };
    }

    const reason: OfflineReason = config.offline === 'deny' ? 'offline_deny' : store.checkCard(card, new Date());
    const granted = reason === 'granted';
    const unlockMs = granted ? (config.unlockMs ?? OFFLINE_UNLOCK_MS) : 0;
    logger.info(`card ${card}: ${granted ? 'granted' : 'denied'} offline (${reason})`);
    // The event keeps the swipe's id: if the swipe did reach the app, the app sees one access, not two.
    const event: OfflineEvent = { id, card, at, granted, reason, offline: true };
    const recorded = store.appendEvent(event).catch((error) => logger.error(`offline queue: ${errorMessage(error)}`));
    if (granted) await unlockFor(unlockMs);
    await showDecision(...OFFLINE_LINES[reason]);
    await recorded;
    void flushEvents();
    return { id, card, granted, reason, offline: true, unlockMs };
  };

  const handleCard = (card: string): Promise<SwipeOutcome | null> => {
    if (!isCanonicalCardId(card)) {
      return Promise.reject(new Error(`not a canonical card id (upper-case hex, 2 characters per byte): ${JSON.stringify(card)}`));
    }
    if (stopping) return Promise.resolve(null);
    const now = Date.now();
    const previous = lastSeen.get(card);
    lastSeen.set(card, now);
    for (const [seenCard, seenAt] of lastSeen) if (now - seenAt >= REPEAT_WINDOW_MS) lastSeen.delete(seenCard);
    if (previous !== undefined && now - previous < REPEAT_WINDOW_MS) {
      logger.debug(`card ${card}: repeat within ${REPEAT_WINDOW_MS} ms ignored`);
      return Promise.resolve(null);
    }
    // One swipe at a time: the door, the screen and the decision belong to it.
    const outcome = swipeQueue.then(() => (stopping ? null : decide(card)));
    swipeQueue = outcome.catch(() => {});
    return outcome;
  };

  const handleMessage = async (topic: string, payload: Buffer) => {
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      logger.warn(`mqtt: ignoring non-JSON message on ${topic}`);
      return;
    }
    if (topic === topics.decision) {
      const parsed = decisionSchema.safeParse(json);
      if (!parsed.success) return logger.warn(`mqtt: ignoring invalid decision: ${parsed.error.issues[0]?.message}`);
      const deliver = awaitingDecision.get(parsed.data.id);
      if (deliver === undefined) return logger.info(`decision ${parsed.data.id} ignored: no swipe is waiting for it`);
      deliver(parsed.data);
    } else if (topic === topics.display) {
      const parsed = displayMessageSchema.safeParse(json);
      if (!parsed.success) return logger.warn(`mqtt: ignoring invalid display message: ${parsed.error.issues[0]?.message}`);
      if (await store.saveDisplay(parsed.data)) {
        logger.info(`display: "${parsed.data.welcome}" / "${parsed.data.status}" (door ${parsed.data.doorStatus})`);
        await showIdle();
      }
    } else if (topic === topics.credentials) {
      const parsed = credentialsListSchema.safeParse(json);
      if (!parsed.success) return logger.warn(`mqtt: ignoring invalid credentials list: ${parsed.error.issues[0]?.message}`);
      if (await store.saveCredentials(parsed.data)) {
        logger.info(`offline list version ${parsed.data.version}: ${parsed.data.cards.length} cards`);
      } else {
        logger.debug(`offline list version ${parsed.data.version} ignored: have ${store.credentialsVersion}`);
      }
    }
  };

  async function stop(): Promise<void> {
    if (stopped !== null) return stopped;
    stopping = true;
    stopped = (async () => {
      logger.info('stopping');
      await reader?.close().catch((error) => logger.warn(`reader: ${errorMessage(error)}`));
      if (relockTimer !== null) clearTimeout(relockTimer);
      if (holdTimer !== null) clearTimeout(holdTimer);
      lockOpen = false;
      await lock?.close().catch((error) => logger.error(`lock: cannot lock on shutdown: ${errorMessage(error)}`));
      // A swipe in progress finishes (it can no longer open the door) before its link and screen go.
      await swipeQueue;
      await link?.stop().catch((error) => logger.warn(`mqtt: ${errorMessage(error)}`));
      await show('OUT OF SERVICE', '');
      await display?.close().catch((error) => logger.warn(`display: ${errorMessage(error)}`));
      await store.close();
      logger.info('stopped, door locked');
    })();
    return stopped;
  }

  try {
    lock = await openLock(config.lock, { serialPortFactory, spawn: deps.spawn ?? spawnProcess, logger, onLost });
    display = await openDisplay(config.display, { serialPortFactory, logger, onLost });
    await showIdle();

    const onlineState = (): StateMessage => ({
      online: true,
      version,
      reader: config.reader.driver,
      since: new Date().toISOString(),
    });
    link = new MqttLink(
      {
        url: config.mqtt.url,
        username: config.mqtt.username,
        password: config.mqtt.password,
        ca,
        protocolVersion: config.mqtt.protocolVersion,
        clientId: `coliving-bridge-${config.doorId}`,
        reconnectMinMs: config.mqtt.reconnectMinMs,
        reconnectMaxMs: config.mqtt.reconnectMaxMs,
        subscriptions: [topics.decision, topics.display, topics.credentials],
        stateTopic: topics.state,
        onlineState,
        logger,
      },
      {
        onConnect: () => {
          void showIdle();
          void flushEvents();
        },
        onDisconnect: () => void showIdle(),
        onMessage: (topic, payload) => {
          handleMessage(topic, payload).catch((error) => logger.error(`mqtt: handling ${topic}: ${errorMessage(error)}`));
        },
      },
    );
    link.start();

    reader = await openReader(config.reader, { serialPortFactory, stdin: deps.stdin ?? process.stdin, logger, onLost });
    reader.onCard((card) => {
      handleCard(card).catch((error) => logger.error(`swipe: ${errorMessage(error)}`));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info(
    `ready: reader ${config.reader.driver}, lock ${config.lock.driver}, display ${config.display.driver}, ` +
      `offline policy ${config.offline}, ${store.pendingEvents().length} offline events queued`,
  );

  return {
    doorId: config.doorId,
    swipe: handleCard,
    status: () => ({
      connected: link?.connected === true,
      lockOpen,
      pendingEvents: store.pendingEvents().length,
      credentialsVersion: store.credentialsVersion,
      display: shownLines,
    }),
    stop,
  };
}

function readCaFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`mqtt.caFile: cannot read ${file}: ${errorMessage(error)}`);
  }
}

async function readPackageVersion(): Promise<string> {
  try {
    // src/ and dist/ both sit next to package.json.
    const text = await readFile(new URL('../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
