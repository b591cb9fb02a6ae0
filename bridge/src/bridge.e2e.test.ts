import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BridgeConfigInput } from './config.js';
import { startBridge, type BridgeHandle } from './controller.js';
import { LCUS1_CLOSE, LCUS1_OPEN } from './locks/lcus1.js';
import type { Logger } from './logger.js';
import { OfflineStore } from './offline-store.js';
import { TestBroker } from './test-support/broker.js';
import { ScriptedApp } from './test-support/scripted-app.js';
import { eventually } from './test-support/eventually.js';
import { countOccurrences, MockSerialPorts } from './test-support/serial-mock.js';

const PASSWORD = 'door-secret-7f3a9c';
const CARD_ANA = '004E2B4E';
const CARD_BEN = '0012D687';
const CARD_EVE = 'DEADBEEF';

function rdm6300Frame(tag: string, version = '01'): Buffer {
  const bytes = Buffer.from(version + tag, 'hex');
  const checksum = bytes.reduce((xor, byte) => xor ^ byte, 0);
  const ascii = `${version}${tag}${checksum.toString(16).padStart(2, '0')}`.toUpperCase();
  return Buffer.concat([Buffer.from([0x02]), Buffer.from(ascii, 'latin1'), Buffer.from([0x03])]);
}

let broker: TestBroker;
let app: ScriptedApp;
const ports = new MockSerialPorts();
const logLines: string[] = [];
const running = new Set<BridgeHandle>();
let doorCount = 0;

const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const captureLogger = (door: string): Logger => {
  const log = (level: string) => (message: string) => logLines.push(`${door} ${level} ${message}`);
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
};

interface Door {
  id: string;
  dataDir: string;
  reader: string;
  relay: string;
  lcd: string;
}

async function newDoor(): Promise<Door> {
  doorCount += 1;
  const id = `door-${doorCount}`;
  const door = {
    id,
    dataDir: await mkdtemp(path.join(tmpdir(), `bridge-${id}-`)),
    reader: `/dev/mock-reader-${doorCount}`,
    relay: `/dev/mock-relay-${doorCount}`,
    lcd: `/dev/mock-lcd-${doorCount}`,
  };
  ports.create(door.reader, door.relay, door.lcd);
  return door;
}

async function startDoor(
  door: Door,
  overrides: Partial<BridgeConfigInput> = {},
  onFatal?: (error: Error) => void,
): Promise<BridgeHandle> {
  const bridge = await startBridge(
    {
      doorId: door.id,
      mqtt: { url: broker.url, password: PASSWORD, reconnectMinMs: 50, reconnectMaxMs: 200 },
      reader: { driver: 'rdm6300', port: door.reader },
      display: { driver: 'serlcd', port: door.lcd },
      lock: { driver: 'lcus1', port: door.relay },
      dataDir: door.dataDir,
      decisionTimeoutMs: 1000,
      displayHoldMs: 300,
      logLevel: 'debug',
      ...overrides,
    },
    { serialPortFactory: ports.factory, logger: captureLogger(door.id), version: '0.0.0-test', onFatal },
  );
  running.add(bridge);
  return bridge;
}

async function stopDoor(bridge: BridgeHandle): Promise<void> {
  running.delete(bridge);
  await bridge.stop();
}

async function startConnected(door: Door, overrides: Partial<BridgeConfigInput> = {}): Promise<BridgeHandle> {
  const bridge = await startDoor(door, overrides);
  await eventually(() => bridge.status().connected, `${door.id} to connect`);
  return bridge;
}

const opens = (door: Door) => countOccurrences(ports.written(door.relay), LCUS1_OPEN);
const closes = (door: Door) => countOccurrences(ports.written(door.relay), LCUS1_CLOSE);

beforeAll(async () => {
  broker = await TestBroker.create();
  app = await ScriptedApp.connect(broker.url);
});

afterEach(async () => {
  app.decisionDelayMs = 0;
  app.answering = true;
  app.receipting = true;
  await broker.start(); // a test that stopped the broker leaves it running again
  await app.whenReady();
  await Promise.all([...running].map((bridge) => stopDoor(bridge)));
});

afterAll(async () => {
  await app.close();
  await broker.close();
  // Every bridge ran at debug level, config dump included: the password must not be in any log line.
  expect(logLines.some((line) => line.includes('config: '))).toBe(true);
  expect(logLines.filter((line) => line.includes(PASSWORD))).toEqual([]);
});

describe('bridge end to end (mock serial ports, aedes, scripted app)', () => {
  it('announces itself: retained online state, idle display, lock shut', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door);
    await eventually(
      () => app.states.some((state) => JSON.stringify(state).includes('"online":true') && JSON.stringify(state).includes('rdm6300')),
      'the online state',
    );
    const state = app.states.find((entry) => (entry as { online: boolean }).online) as Record<string, unknown>;
    expect(state).toMatchObject({ online: true, version: '0.0.0-test', reader: 'rdm6300' });
    expect(Number.isNaN(Date.parse(String(state.since)))).toBe(false);
    await eventually(() => ports.text(door.lcd).includes('WELCOME         \xfe\xc0READY'), 'the idle screen');
    expect(ports.written(door.relay)).toEqual(LCUS1_CLOSE);

    await stopDoor(bridge);
    await eventually(() => JSON.stringify(app.states.at(-1)) === '{"online":false}', 'the offline state');
    expect(ports.written(door.relay).subarray(-4)).toEqual(LCUS1_CLOSE);
    expect(ports.text(door.lcd)).toContain('OUT OF SERVICE');
  });

  it('grant: card bytes → swipe → decision → relay opens, then closes after unlockMs; LCD shows the lines', async () => {
    const door = await newDoor();
    await startConnected(door);
    app.grant(CARD_ANA, 'Hola, Íñigo', 'Bienvenido ¡ya!', 150);
    const swipesBefore = app.swipes.length;

    ports.emit(door.reader, rdm6300Frame(CARD_ANA));
    await eventually(() => opens(door) === 1, 'the open bytes');
    const swipe = app.swipes[swipesBefore];
    expect(swipe).toMatchObject({ card: CARD_ANA, source: 'reader' });
    expect(swipe?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(swipe?.at ?? ''))).toBe(false);
    await eventually(() => ports.text(door.lcd).includes('Hola, Inigo     \xfe\xc0Bienvenido ya!  '), 'the decision text');
    await eventually(() => closes(door) === 2, 'the close bytes after unlockMs'); // 1 at start + 1 after unlockMs
    const relay = ports.written(door.relay);
    expect(relay.lastIndexOf(LCUS1_CLOSE)).toBeGreaterThan(relay.indexOf(LCUS1_OPEN));
    // And back to idle after the hold time.
    const shown = ports.text(door.lcd).length;
    await eventually(() => ports.text(door.lcd).slice(shown).includes('WELCOME'), 'the idle screen again');
  });

  it('deny: no open bytes, the LCD shows the decision lines', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door);
    ports.emit(door.reader, rdm6300Frame(CARD_EVE));
    await eventually(() => ports.text(door.lcd).includes('ACCESS DENIED   \xfe\xc0UNKNOWN CARD'), 'the deny text');
    expect(opens(door)).toBe(0);
    const outcome = await bridge.swipe(CARD_BEN);
    expect(outcome).toMatchObject({ card: CARD_BEN, granted: false, reason: 'unknown_card', offline: false, unlockMs: 0 });
    expect(opens(door)).toBe(0);
    await expect(bridge.swipe('0x12d687')).rejects.toThrow(/canonical/);
  });

  it('ignores the same card again within 2 s (frames split, glued, repeated)', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door);
    app.grant(CARD_ANA);
    const swipesBefore = app.swipes.length;
    const frame = rdm6300Frame(CARD_ANA);
    ports.emit(door.reader, Buffer.concat([Buffer.from([0x00, 0xff]), frame, frame, frame.subarray(0, 6)]));
    ports.emit(door.reader, Buffer.concat([frame.subarray(6), frame]));
    await eventually(() => opens(door) === 1, 'the open bytes');
    expect(await bridge.swipe(CARD_ANA)).toBeNull();
    // Swipes are handled in reading order: once another card's swipe has reached
    // the app, any repeat read before it would have reached it first.
    ports.emit(door.reader, rdm6300Frame(CARD_BEN));
    await eventually(() => app.swipes.slice(swipesBefore).some((swipe) => swipe.card === CARD_BEN), 'the next card\'s swipe');
    expect(app.swipes.slice(swipesBefore).map((swipe) => swipe.card)).toEqual([CARD_ANA, CARD_BEN]);
    expect(opens(door)).toBe(1);
  });

  it('shows a new retained display message on the idle screen, and keeps it for offline restarts', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door);
    await app.publishDisplay(door.id, { welcome: 'Bienvenida, Íñigo', status: 'ABIERTO' });
    await eventually(() => ports.text(door.lcd).includes('Bienvenida, Inig\xfe\xc0ABIERTO         '), 'the new idle text');
    await stopDoor(bridge);

    const offline = await startDoor(door, { mqtt: { url: 'mqtt://127.0.0.1:1', password: PASSWORD } });
    await eventually(() => ports.text(door.lcd).includes('Bienvenida, Inig\xfe\xc0OFFLINE'), 'the stored idle text, offline');
    await stopDoor(offline);
  });

  it('offline: decides from the list, queues on disk across a restart, then delivers every event exactly once', async () => {
    const door = await newDoor();
    let bridge = await startConnected(door, { unlockMs: 150 });
    await app.publishCredentials(door.id, 1, [{ card: CARD_ANA }, { card: CARD_BEN }]);
    await eventually(() => bridge.status().credentialsVersion === 1, 'credentials v1');
    // Ben's card is revoked: the app publishes a new version without it.
    await app.publishCredentials(door.id, 2, [{ card: CARD_ANA }, { card: '12345678', exp: '2001-01-01T00:00:00Z' }]);
    await eventually(() => bridge.status().credentialsVersion === 2, 'credentials v2');

    await broker.stop();
    await eventually(() => !bridge.status().connected, 'the bridge to notice the broker is gone');
    await eventually(() => ports.text(door.lcd).endsWith('\xfe\xc0OFFLINE         '), 'the offline idle screen');

    ports.emit(door.reader, rdm6300Frame(CARD_ANA));
    await eventually(() => opens(door) === 1, 'an offline grant');
    await eventually(() => bridge.status().pendingEvents === 1, 'the queued event');
    expect(ports.text(door.lcd)).toContain('ACCESS GRANTED  \xfe\xc0OFFLINE MODE');
    expect(await bridge.swipe(CARD_BEN)).toMatchObject({ granted: false, reason: 'unknown_card', offline: true });
    expect(await bridge.swipe('12345678')).toMatchObject({ granted: false, reason: 'card_expired', offline: true });
    expect(await bridge.swipe(CARD_EVE)).toMatchObject({ granted: false, reason: 'unknown_card', offline: true });
    expect(opens(door)).toBe(1);
    expect(bridge.status().pendingEvents).toBe(4);

    // A reboot while still offline keeps the queue and the list.
    await stopDoor(bridge);
    bridge = await startDoor(door, { unlockMs: 150 });
    expect(bridge.status()).toMatchObject({ connected: false, pendingEvents: 4, credentialsVersion: 2 });
    const afterReboot = await bridge.swipe(CARD_ANA);
    expect(afterReboot).toMatchObject({ granted: true, reason: 'granted', offline: true, unlockMs: 150 });
    await eventually(() => opens(door) === 1, 'the grant after the reboot'); // the port recording restarted with the reopen
    expect(bridge.status().pendingEvents).toBe(5);

    await broker.start();
    await app.whenReady();
    await eventually(() => bridge.status().pendingEvents === 0, 'the queue to drain');
    await eventually(() => app.events.some((event) => event.id === afterReboot?.id), 'the app to receive the events');
    const ids = new Set(app.events.filter((event) => event.card !== undefined).map((event) => event.id));
    expect(ids).toContain(afterReboot?.id);
    for (const id of ids) expect(app.eventCount(id)).toBe(1);
    const mine = app.events.filter((event) => [CARD_ANA, CARD_BEN, CARD_EVE, '12345678'].includes(event.card ?? ''));
    expect(mine).toHaveLength(5);
    expect(mine.map((event) => event.reason).sort()).toEqual(['card_expired', 'granted', 'granted', 'unknown_card', 'unknown_card']);
    expect(Object.keys(mine[0] ?? {}).sort()).toEqual(['at', 'card', 'granted', 'id', 'offline', 'reason']);
    expect(mine.every((event) => event.offline)).toBe(true);

    // Another outage and return: nothing is sent twice.
    await broker.stop();
    await eventually(() => !bridge.status().connected, 'the second disconnect');
    await broker.start();
    await eventually(() => bridge.status().connected, 'the second reconnect');
    await app.whenReady();
    // A new offline event goes out after anything the reconnection would resend, oldest first.
    app.answering = false;
    const marker = await bridge.swipe(CARD_EVE);
    expect(marker).toMatchObject({ offline: true });
    await eventually(() => app.eventCount(marker?.id ?? '') === 1, 'the marker event');
    for (const id of ids) expect(app.eventCount(id)).toBe(1);
  });

  it('offline booking windows: opens inside the window, refuses outside it, and says so', async () => {
    const door = await newDoor();
    const online = await startConnected(door, { unlockMs: 150 });
    const hour = 3_600_000;
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    await app.publishCredentials(door.id, 1, [
      { card: CARD_ANA, win: [[iso(now - hour), iso(now + hour)]] },
      { card: CARD_BEN, win: [[iso(now - 3 * hour), iso(now - 2 * hour)], [iso(now + 2 * hour), iso(now + 3 * hour)]] },
    ]);
    await eventually(() => online.status().credentialsVersion === 1, 'the list with windows');
    await stopDoor(online);

    const bridge = await startDoor(door, { unlockMs: 150, mqtt: { url: 'mqtt://127.0.0.1:1', password: PASSWORD } });
    expect(await bridge.swipe(CARD_ANA)).toMatchObject({ granted: true, reason: 'booking_window', offline: true, unlockMs: 150 });
    await eventually(() => opens(door) === 1, 'the booking grant');
    expect(ports.text(door.lcd)).toContain('ACCESS GRANTED  \xfe\xc0BOOKING         ');
    expect(await bridge.swipe(CARD_BEN)).toMatchObject({ granted: false, reason: 'outside_booking_window', offline: true, unlockMs: 0 });
    expect(ports.text(door.lcd)).toContain('ACCESS DENIED   \xfe\xc0OUTSIDE BOOKING ');
    expect(opens(door)).toBe(1);
    expect(bridge.status().pendingEvents).toBe(2);
  });

  it('keeps an offline event on disk and resends it until the app receipts it; a receipt for another id removes nothing', async () => {
    const door = await newDoor();
    let bridge = await startConnected(door, { decisionTimeoutMs: 100, eventResendMs: 100 });
    app.answering = false;
    app.receipting = false;
    // No decision comes: both swipes are decided offline while connected, and their events sent at once.
    const first = await bridge.swipe(CARD_EVE);
    const second = await bridge.swipe(CARD_BEN);
    expect(first).toMatchObject({ offline: true, reason: 'unknown_card' });
    expect(second).toMatchObject({ offline: true, reason: 'unknown_card' });
    const firstId = first?.id ?? '';
    const secondId = second?.id ?? '';

    await eventually(() => app.eventCount(firstId) >= 3 && app.eventCount(secondId) >= 3, 'the events to be resent while unreceipted');
    expect(bridge.status().pendingEvents).toBe(2);

    // Receipts on one topic arrive in order: once the second one has taken `first` out, the first one was handled.
    await app.publishReceipt(door.id, { ids: ['11111111-2222-4333-8444-555555555555'] });
    await app.publishReceipt(door.id, { ids: [firstId] });
    await eventually(() => bridge.status().pendingEvents === 1, 'the receipted event to leave the queue');
    await stopDoor(bridge);
    const onDisk = await OfflineStore.open(door.dataDir, quietLogger);
    expect(onDisk.pendingEvents().map((event) => event.id)).toEqual([secondId]);

    // After a restart the bridge sends what is still queued, oldest first: only `second`.
    app.receipting = true;
    const firstSends = app.eventCount(firstId);
    const secondSends = app.eventCount(secondId);
    bridge = await startConnected(door, { decisionTimeoutMs: 100, eventResendMs: 100 });
    await eventually(() => app.eventCount(secondId) > secondSends, 'the unreceipted event to be sent on connect');
    expect(app.eventCount(firstId)).toBe(firstSends);
    await eventually(() => bridge.status().pendingEvents === 0, 'the receipt of the last event');
    await stopDoor(bridge);
    expect((await OfflineStore.open(door.dataDir, quietLogger)).pendingEvents()).toEqual([]);
  });

  it('keeps a swipe the app answered until a receipt names it, without publishing it', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door, { decisionTimeoutMs: 300 });
    app.receipting = false;
    app.grant(CARD_ANA);
    const answered = await bridge.swipe(CARD_ANA);
    expect(answered).toMatchObject({ granted: true, offline: false });
    const answeredId = answered?.id ?? '';
    expect(bridge.status().pendingEvents).toBe(1);

    // An offline event is sent at once, after anything queued before it that is due: the answered swipe is not.
    app.answering = false;
    const marker = await bridge.swipe(CARD_EVE);
    expect(marker).toMatchObject({ offline: true });
    await eventually(() => app.eventCount(marker?.id ?? '') === 1, 'the marker event');
    expect(app.eventCount(answeredId)).toBe(0);
    expect(bridge.status().pendingEvents).toBe(2);

    await app.publishReceipt(door.id, { ids: [answeredId] });
    await eventually(() => bridge.status().pendingEvents === 1, 'the receipted swipe to leave the queue');
    await stopDoor(bridge);
    const onDisk = await OfflineStore.open(door.dataDir, quietLogger);
    expect(onDisk.pendingEvents().map((event) => event.id)).toEqual([marker?.id]);
  });

  it('a receipt under swipes does not remove the offline event decided under a late swipe\'s id: it is sent again until receipted under ids', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door, { decisionTimeoutMs: 100, eventResendMs: 200 });
    app.receipting = false;
    app.grant(CARD_ANA);
    const answered = await bridge.swipe(CARD_ANA);
    expect(answered).toMatchObject({ granted: true, offline: false });
    // The app decides too late: the door decides offline, and its event keeps the swipe's id.
    app.decisionDelayMs = 300;
    const late = await bridge.swipe(CARD_EVE);
    expect(late).toMatchObject({ granted: false, reason: 'unknown_card', offline: true });
    const lateId = late?.id ?? '';
    await eventually(() => logLines.includes(`${door.id} info decision ${lateId} ignored: no swipe is waiting for it`), 'the late decision');
    await eventually(() => app.eventCount(lateId) >= 1, 'the offline event');
    expect(bridge.status().pendingEvents).toBe(2);

    // The app has stored the rows of both its decisions: one message, handled at once.
    await app.publishReceipt(door.id, { swipes: [lateId, answered?.id ?? ''] });
    await eventually(() => bridge.status().pendingEvents < 2, 'the receipt');
    expect(bridge.status().pendingEvents).toBe(1);
    const sends = app.eventCount(lateId);
    await eventually(() => app.eventCount(lateId) > sends, 'the offline event to be sent again');
    expect(app.events.filter((event) => event.id === lateId).every((event) => event.offline && event.reason === 'unknown_card')).toBe(true);

    await app.publishReceipt(door.id, { ids: [lateId] });
    await eventually(() => bridge.status().pendingEvents === 0, 'the receipt of the offline event');
  });

  it('one receipt removes answered swipes named under swipes and queued events of either kind named under ids', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door, { decisionTimeoutMs: 200 });
    app.receipting = false;
    app.grant(CARD_ANA);
    const answeredA = await bridge.swipe(CARD_ANA);
    const answeredB = await bridge.swipe(CARD_BEN);
    expect([answeredA, answeredB]).toMatchObject([{ offline: false }, { offline: false }]);
    app.answering = false;
    const offlineX = await bridge.swipe(CARD_EVE);
    const offlineY = await bridge.swipe('12345678');
    expect([offlineX, offlineY]).toMatchObject([{ offline: true }, { offline: true }]);
    expect(bridge.status().pendingEvents).toBe(4);

    await app.publishReceipt(door.id, { ids: [answeredB?.id ?? '', offlineX?.id ?? ''], swipes: [answeredA?.id ?? '', offlineY?.id ?? ''] });
    await eventually(() => bridge.status().pendingEvents < 4, 'the receipt');
    expect(bridge.status().pendingEvents).toBe(1);
    await stopDoor(bridge);
    expect((await OfflineStore.open(door.dataDir, quietLogger)).pendingEvents().map((event) => event.id)).toEqual([offlineY?.id]);
  });

  it('ignores invalid receipts: neither ids nor swipes, empty lists, more than 500 ids in all', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door, { decisionTimeoutMs: 200 });
    app.receipting = false;
    app.grant(CARD_ANA);
    const answered = await bridge.swipe(CARD_ANA);
    app.answering = false;
    const offline = await bridge.swipe(CARD_EVE);
    const marker = await bridge.swipe(CARD_BEN);
    const answeredId = answered?.id ?? '';
    const offlineId = offline?.id ?? '';
    const markerId = marker?.id ?? '';
    expect(bridge.status().pendingEvents).toBe(3);

    const fillers = (count: number) => Array.from({ length: count }, (_, index) => `filler-${index}`);
    const invalid = [
      {},
      { ids: [] },
      { swipes: [] },
      { ids: [], swipes: [] },
      { ids: [], swipes: [answeredId] },
      { ids: [offlineId, ...fillers(299)], swipes: [answeredId, ...fillers(200)] },
      { ids: [offlineId, ...fillers(500)] },
    ];
    const topic = `coliving/doors/${door.id}/receipt`;
    for (const receipt of invalid) await app.publishRaw(topic, JSON.stringify(receipt));
    // Receipts on one topic arrive in order: once the marker's is handled, so were the invalid ones.
    await app.publishReceipt(door.id, { ids: [markerId] });
    await eventually(() => logLines.includes(`${door.id} debug events receipted by the app: ${markerId}`), 'the marker\'s receipt');
    expect(bridge.status().pendingEvents).toBe(2);
    expect(logLines.filter((line) => line.startsWith(`${door.id} warn mqtt: ignoring invalid receipt`))).toHaveLength(invalid.length);
    await stopDoor(bridge);
    expect((await OfflineStore.open(door.dataDir, quietLogger)).pendingEvents().map((event) => event.id)).toEqual([answeredId, offlineId]);
  });

  it('sends an answered swipe without a receipt after eventResendMs, with offline false and the app\'s decision', async () => {
    const door = await newDoor();
    const resendMs = 300;
    const bridge = await startConnected(door, { eventResendMs: resendMs });
    app.receipting = false;
    app.grants.set(CARD_BEN, { granted: false, reason: 'no_permission', line1: 'ACCESS DENIED', line2: 'NO PERMISSION', unlockMs: 0 });
    const swipedAt = Date.now();
    const outcome = await bridge.swipe(CARD_BEN);
    expect(outcome).toMatchObject({ granted: false, reason: 'no_permission', offline: false });
    const id = outcome?.id ?? '';
    const swipe = app.swipes.find((message) => message.id === id);

    await eventually(() => app.eventCount(id) === 1, 'the answered swipe to be sent');
    expect(Date.now() - swipedAt).toBeGreaterThanOrEqual(resendMs);
    expect(app.events.find((event) => event.id === id)).toEqual({
      id,
      card: CARD_BEN,
      at: swipe?.at,
      granted: false,
      reason: 'no_permission',
      offline: false,
    });
    await eventually(() => app.eventCount(id) >= 2, 'the answered swipe to be sent again');
    expect(logLines).toContain(`${door.id} info answered swipe ${id} sent again: no receipt from the app yet`);

    app.receipting = true;
    await eventually(() => bridge.status().pendingEvents === 0, 'the receipt of the answered swipe');
  });

  it('sends an answered swipe without a receipt on each new connection, also after a restart', async () => {
    const door = await newDoor();
    let bridge = await startConnected(door);
    app.receipting = false;
    app.grant(CARD_ANA);
    const outcome = await bridge.swipe(CARD_ANA);
    expect(outcome).toMatchObject({ granted: true, reason: 'granted', offline: false });
    const id = outcome?.id ?? '';
    const at = app.swipes.find((message) => message.id === id)?.at;

    // eventResendMs is 30 s: only the new connection sends it.
    const client = (broker.aedes as unknown as { clients: Record<string, { close(): void }> }).clients[`coliving-bridge-${door.id}`];
    client?.close();
    await eventually(() => app.eventCount(id) === 1, 'the answered swipe sent on reconnect');
    expect(app.events.find((event) => event.id === id)).toEqual({ id, card: CARD_ANA, at, granted: true, reason: 'granted', offline: false });

    await stopDoor(bridge);
    bridge = await startDoor(door);
    expect(bridge.status().pendingEvents).toBe(1);
    await eventually(() => app.eventCount(id) === 2, 'the answered swipe sent after the restart');
    await app.publishReceipt(door.id, { ids: [id] });
    await eventually(() => bridge.status().pendingEvents === 0, 'the receipt');
  });

  it('opens the door and shows the decision before the answered swipe is on disk', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door);
    app.receipting = false;
    app.grant(CARD_ANA, 'COME IN', '', 150);
    let release = () => {};
    const diskFree = new Promise<void>((resolve) => (release = resolve));
    const appendEvent = OfflineStore.prototype.appendEvent;
    const appends = vi.spyOn(OfflineStore.prototype, 'appendEvent').mockImplementation(async function (this: OfflineStore, event) {
      await diskFree;
      return appendEvent.call(this, event);
    });
    try {
      let settled = false;
      const outcome = bridge.swipe(CARD_ANA).finally(() => (settled = true));
      await eventually(() => opens(door) === 1 && ports.text(door.lcd).includes('COME IN'), 'the door to open and the decision to show');
      expect(appends).toHaveBeenCalledTimes(1);
      expect(settled).toBe(false);
      release();
      expect(await outcome).toMatchObject({ granted: true, offline: false });
      expect(bridge.status().pendingEvents).toBe(1);
    } finally {
      release();
      appends.mockRestore();
    }
  });

  it('ignores a decision that arrives after the timeout: no late unlock', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door, { decisionTimeoutMs: 150 });
    app.grant(CARD_EVE, 'TOO LATE', '', 200);
    app.decisionDelayMs = 500;
    const outcome = await bridge.swipe(CARD_EVE);
    expect(outcome).toMatchObject({ granted: false, reason: 'unknown_card', offline: true });
    await eventually(() => logLines.some((line) => line.includes(`decision ${outcome?.id} ignored`)), 'the late decision');
    expect(opens(door)).toBe(0);
    expect(ports.text(door.lcd)).not.toContain('TOO LATE');
    // The offline event carries the swipe's id, so the app can tell they are one access.
    await eventually(() => app.eventCount(outcome?.id ?? '') === 1, 'the offline event');
  });

  it('policy "deny": offline swipes are refused even for cards on the list', async () => {
    const door = await newDoor();
    const online = await startConnected(door);
    await app.publishCredentials(door.id, 1, [{ card: CARD_ANA }]);
    await eventually(() => online.status().credentialsVersion === 1, 'credentials');
    await stopDoor(online);

    const bridge = await startDoor(door, { offline: 'deny', mqtt: { url: 'mqtt://127.0.0.1:1', password: PASSWORD } });
    expect(await bridge.swipe(CARD_ANA)).toMatchObject({ granted: false, reason: 'offline_deny', offline: true });
    expect(opens(door)).toBe(0);
    expect(ports.text(door.lcd)).toContain('ACCESS DENIED   \xfe\xc0DOOR OFFLINE');
    expect(bridge.status().pendingEvents).toBe(1);
  });

  it('a vanished reader port stops the bridge with the door shut and reports it', async () => {
    const door = await newDoor();
    const fatal: Error[] = [];
    const bridge = await startDoor(door, {}, (error) => fatal.push(error));
    await eventually(() => bridge.status().connected, 'the connection');
    app.grant(CARD_ANA, 'OPEN', '', 5000);
    ports.emit(door.reader, rdm6300Frame(CARD_ANA));
    await eventually(() => opens(door) === 1, 'the door to open');
    ports.unplug(door.reader);
    await eventually(() => fatal.length === 1, 'the fatal report');
    expect(fatal[0]?.message).toMatch(/mock-reader.*closed unexpectedly/);
    expect(ports.written(door.relay).subarray(-4)).toEqual(LCUS1_CLOSE);
    expect(bridge.status().lockOpen).toBe(false);
    await eventually(() => JSON.stringify(app.states.at(-1)) === '{"online":false}', 'the offline state');
  });

  it('door contact: reports each change with whether the lock was released, and the last one again on reconnect', async () => {
    const door = await newDoor();
    const contactPort = `/dev/mock-contact-${door.id}`;
    ports.create(contactPort);
    const bridge = await startConnected(door, { contact: { driver: 'serial', port: contactPort }, contactGraceMs: 0 });
    const reports = () => app.contacts.filter((report) => report.door === door.id);
    const contact = async (state: 'OPEN' | 'CLOSED', count: number) => {
      ports.emit(contactPort, `${state}\n`);
      await eventually(() => reports().length === count, `report ${count}`);
      return reports().at(-1);
    };
    expect(await contact('CLOSED', 1)).toMatchObject({ state: 'closed', released: false });
    // Opened while a grant holds the lock released: released.
    app.grant(CARD_ANA, 'Hola', 'Ana', 300);
    ports.emit(door.reader, rdm6300Frame(CARD_ANA));
    await eventually(() => bridge.status().lockOpen, 'the grant');
    expect(await contact('OPEN', 2)).toMatchObject({ state: 'open', released: true });
    expect(await contact('CLOSED', 3)).toMatchObject({ state: 'closed' });
    // The same reading again is no change; opened with the lock shut: not released.
    await eventually(() => !bridge.status().lockOpen, 'the lock shut again');
    ports.emit(contactPort, 'CLOSED\n');
    const last = await contact('OPEN', 4);
    expect(last).toMatchObject({ state: 'open', released: false });
    expect(Number.isNaN(Date.parse(last!.at))).toBe(false);

    const client = (broker.aedes as unknown as { clients: Record<string, { close(): void }> }).clients[`coliving-bridge-${door.id}`];
    client?.close();
    await eventually(() => reports().length === 5, 'the report again after the reconnect');
    expect(reports().at(-1)).toEqual(last);
  });

  it('publishes the last will when the connection drops, then comes back online', async () => {
    const door = await newDoor();
    const bridge = await startConnected(door);
    const statesBefore = app.states.length;
    const client = (broker.aedes as unknown as { clients: Record<string, { close(): void }> }).clients[`coliving-bridge-${door.id}`];
    expect(client, 'the bridge\'s connection on the broker').toBeDefined();
    client?.close();
    await eventually(() => app.states.slice(statesBefore).some((state) => JSON.stringify(state) === '{"online":false}'), 'the last will');
    await eventually(() => bridge.status().connected, 'the reconnect');
    await eventually(() => (app.states.at(-1) as { online?: boolean }).online === true, 'online again');
  });
});
