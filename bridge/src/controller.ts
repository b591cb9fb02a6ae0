import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { parseConfig, redactConfig, type BridgeConfig, type BridgeConfigInput } from './config.js';
import {
  credentialsListSchema,
  decisionSchema,
  displayMessageSchema,
  doorTopics,
  receiptSchema,
  SUBSCRIBED_KINDS,
  type StateMessage,
} from './contract.js';
import { openContact } from './contacts/index.js';
import type { Contact, Credential, DeviceEnvironment, Reader, SpawnFunction } from './devices.js';
import { Door } from './door.js';
import { doorModeAt, unlockedLines, type DoorMode } from './door-mode.js';
import { DoorContact } from './door-contact.js';
import { spawnProcess } from './locks/gpio.js';
import { createConsoleLogger, errorMessage, type Logger } from './logger.js';
import { MqttLink } from './mqtt-link.js';
import { OfflineEvents } from './offline-events.js';
import { OfflineStore } from './offline-store.js';
import { openReader } from './readers/index.js';
import { localDay } from './schedule.js';
import { createSystemSerialPort, type SerialPortFactory } from './serial.js';
import { Swipes, type SwipeOutcome } from './swipes.js';

export type { SwipeOutcome } from './swipes.js';

const DEFAULT_IDLE = { welcome: 'WELCOME', status: 'READY' };

export interface BridgeDeps {
  /** Builds serial ports (default: real ports). Tests pass one that builds SerialPortMock. */
  serialPortFactory?: SerialPortFactory;
  /** Runs gpioset for the gpio lock (default: child_process.spawn). */
  spawn?: SpawnFunction;
  /** Input of the keyboard reader (default: process.stdin). */
  stdin?: Readable;
  logger?: Logger;
  /**
   * The bridge's clock (default: the system's): swipe times and offline
   * decisions read it. Tests move it to check timetables offline.
   */
  clock?: () => Date;
  /** Reported in the retained state (default: bridge/package.json's version). */
  version?: string;
  /**
   * Called when the bridge cannot go on (a serial port vanished, gpioset died).
   * The bridge is already stopping when it is called. main.ts exits non-zero so
   * that systemd restarts it.
   */
  onFatal?: (error: Error) => void;
}

export interface BridgeStatus {
  connected: boolean;
  lockOpen: boolean;
  /** Queued events without the app's receipt: offline decisions and answered swipes. */
  pendingEvents: number;
  credentialsVersion: number | null;
  display: { line1: string; line2: string };
  /** What the lock does by the door's timetable (docs/mqtt.md, "Doors on a timetable"). */
  mode: DoorMode;
  /** The door-position switch's last reading; null without a contact input (or before its first reading). */
  contact: 'open' | 'closed' | null;
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
  /** The same for any credential: a card, a PIN typed on a keypad, a QR token scanned. */
  present(credential: Credential): Promise<SwipeOutcome | null>;
  status(): BridgeStatus;
  /** Fail-secure shutdown: lock shut, offline state published, ports closed. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a bridge: offline store, lock (shut), display (idle), MQTT link, then
 * the reader. Resolves once the local hardware is ready; the MQTT connection
 * is made in the background (the bridge works offline from the start).
 *
 * This function only composes the parts and owns their start-up and shutdown
 * order: the door (lock and display) is in door.ts, swipe decisions in
 * swipes.ts, the event queue in offline-events.ts.
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
  /** The readers' drivers, e.g. "wiegand+keypad+qr", in the retained state and the start-up line. */
  const readerNames = config.readers.map((reader) => reader.driver).join('+');

  let stopped: Promise<void> | null = null;
  const onLost = (error: Error) => {
    if (stopped !== null) return;
    logger.error(`${error.message}: stopping`);
    void stop().then(() => deps.onFatal?.(error));
  };

  const devices: DeviceEnvironment = {
    serialPortFactory,
    spawn: deps.spawn ?? spawnProcess,
    stdin: deps.stdin ?? process.stdin,
    logger,
    onLost,
  };

  const store = await OfflineStore.open(config.dataDir, logger);
  const link: MqttLink = new MqttLink(
    {
      url: config.mqtt.url,
      username: config.mqtt.username,
      password: config.mqtt.password,
      ca,
      protocolVersion: config.mqtt.protocolVersion,
      clientId: `coliving-bridge-${config.doorId}`,
      reconnectMinMs: config.mqtt.reconnectMinMs,
      reconnectMaxMs: config.mqtt.reconnectMaxMs,
      subscriptions: SUBSCRIBED_KINDS.map((kind) => topics[kind]),
      stateTopic: topics.state,
      onlineState: (): StateMessage => ({ online: true, version, reader: readerNames, since: new Date().toISOString() }),
      logger,
    },
    {
      onConnect: () => {
        void door.showIdle();
        events.onConnect();
        doorContact.onConnect();
      },
      onDisconnect: () => {
        void door.showIdle();
        events.onDisconnect();
      },
      onMessage: (topic, payload) => {
        handleMessage(topic, payload).catch((error) => logger.error(`mqtt: handling ${topic}: ${errorMessage(error)}`));
      },
    },
  );
  const door = new Door({
    displayHoldMs: config.displayHoldMs,
    logger,
    idleLines: () => {
      if (mode.mode === 'unlocked') return unlockedLines(mode.until);
      const message = store.displayMessage ?? DEFAULT_IDLE;
      return [message.welcome, link.connected ? message.status : 'OFFLINE'];
    },
  });
  // The door's unlock timetable, applied by the bridge's own clock whether
  // the app is reachable or not: held released while it says so.
  let mode: DoorMode = { mode: 'locked' };
  /** The day (in the timetable's zone) of this bridge's last grant, for first-person-in. */
  let firstInDay: string | null = null;
  const timetableZone = () => store.displayMessage?.timetable?.tz ?? 'Europe/Madrid';
  const applyMode = async () => {
    if (stopped !== null) return;
    const next = doorModeAt(store.displayMessage, clock(), firstInDay);
    if (JSON.stringify(next) === JSON.stringify(mode)) return;
    logger.info(`door mode: ${next.mode === 'unlocked' ? `unlocked until ${next.until}` : next.mode}`);
    mode = next;
    await door.setHeld(next.mode === 'unlocked');
    await door.showIdle();
  };
  const checkMode = () => {
    applyMode().catch((error) => logger.error(`door mode: ${errorMessage(error)}`));
  };
  const events = new OfflineEvents({ store, link, topic: topics.events, resendMs: config.eventResendMs, logger });
  const clock = deps.clock ?? (() => new Date());
  const swipes = new Swipes({
    config,
    door,
    link,
    store,
    events,
    swipeTopic: topics.swipe,
    logger,
    clock,
    onGranted: () => {
      firstInDay = localDay(clock(), timetableZone());
      checkMode();
    },
  });
  let modeTimer: NodeJS.Timeout | null = null;
  const readers: Reader[] = [];
  const doorContact = new DoorContact({ door, link, topic: topics.contact, graceMs: config.contactGraceMs, clock, logger });
  let contact: Contact | null = null;

  /** Parses a message with its schema; logs and returns null when it does not fit. */
  const parse = <T>(schema: z.ZodType<T>, json: unknown, what: string): T | null => {
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    logger.warn(`mqtt: ignoring invalid ${what}: ${parsed.error.issues[0]?.message}`);
    return null;
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
      const decision = parse(decisionSchema, json, 'decision');
      if (decision !== null) swipes.receiveDecision(decision);
    } else if (topic === topics.display) {
      const message = parse(displayMessageSchema, json, 'display message');
      if (message !== null && (await store.saveDisplay(message))) {
        logger.info(`display: "${message.welcome}" / "${message.status}" (door ${message.doorStatus})`);
        await applyMode();
        await door.showIdle();
      }
    } else if (topic === topics.credentials) {
      const list = parse(credentialsListSchema, json, 'credentials list');
      if (list === null) return;
      if (await store.saveCredentials(list)) {
        logger.info(`offline list version ${list.version}: ${list.cards.length} cards${list.keys === undefined ? '' : `, ${list.keys.length} keys`}`);
      }
      else logger.debug(`offline list version ${list.version} ignored: have ${store.credentialsVersion}`);
    } else if (topic === topics.receipt) {
      const receipt = parse(receiptSchema, json, 'receipt');
      if (receipt !== null) await events.receive(receipt);
    }
  };

  function stop(): Promise<void> {
    stopped ??= (async () => {
      logger.info('stopping');
      if (modeTimer !== null) clearInterval(modeTimer);
      // Fail-secure: from here on nothing opens the door and no new swipe starts.
      const lockShut = door.shutDown();
      const swipesFinished = swipes.stop();
      events.stop();
      await Promise.all(readers.map((reader) => reader.close().catch((error) => logger.warn(`reader ${reader.driver}: ${errorMessage(error)}`))));
      await contact?.close().catch((error) => logger.warn(`contact: ${errorMessage(error)}`));
      await lockShut;
      // A swipe in progress finishes (it can no longer open the door) before its link and screen go.
      await swipesFinished;
      await link.stop().catch((error) => logger.warn(`mqtt: ${errorMessage(error)}`));
      await door.closeDisplay();
      await store.close();
      logger.info('stopped, door locked');
    })();
    return stopped;
  }

  try {
    await door.openHardware(config, devices);
    // The last display kept on disk: a door restarted offline goes on with its timetable.
    await applyMode();
    await door.showIdle();
    modeTimer = setInterval(checkMode, config.timetableCheckMs);
    if (config.contact !== undefined) contact = await openContact(config.contact, devices, (state) => doorContact.receive(state));
    link.start();
    for (const readerConfig of config.readers) {
      readers.push(
        await openReader(readerConfig, devices, (credential) => {
          swipes.handle(credential).catch((error) => logger.error(`swipe: ${errorMessage(error)}`));
        }),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info(
    `ready: reader ${readerNames}, lock ${config.lock.driver}, display ${config.display.driver}, ` +
      `offline policy ${config.offline}, ${events.pendingCount} events queued`,
  );

  return {
    doorId: config.doorId,
    swipe: (card) => swipes.handleCard(card),
    present: (credential) => swipes.handle(credential),
    status: () => ({
      connected: link.connected,
      lockOpen: door.lockOpen,
      pendingEvents: events.pendingCount,
      credentialsVersion: store.credentialsVersion,
      display: door.shownLines,
      mode,
      contact: doorContact.state,
    }),
    stop,
  };
}

function readCaFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`mqtt.caFile: cannot read ${file}: ${errorMessage(error)}`, { cause: error });
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
