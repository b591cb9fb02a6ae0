// Issue 29 at the door: PINs from a Wiegand or line keypad and QR tokens from
// a serial scanner, next to the card reader, through real serial byte streams
// (SerialPortMock), a real broker (aedes) and the scripted app.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeConfigInput } from './config.js';
import { startBridge, type BridgeHandle } from './controller.js';
import { KEYPAD_LOCK_MS, keypadPauseMs, WRONG_PIN_LIMIT, WRONG_PIN_WINDOW_MS } from './keypad-lockout.js';
import { LCUS1_OPEN } from './locks/lcus1.js';
import type { Logger } from './logger.js';
import { TestBroker } from './test-support/broker.js';
import { eventually } from './test-support/eventually.js';
import { ScriptedApp } from './test-support/scripted-app.js';
import { countOccurrences, MockSerialPorts } from './test-support/serial-mock.js';

const PASSWORD = 'door-secret-keys-1';
const PIN_ANA = '482913';
const PIN_BEA = '771205';
const TOKEN_ANA = 'LC1-MFRGGZDFMZTWQ2LKNNWG23TPOA';
const TOKEN_CARLOS = 'LC1-ONSWG4TFOQQGC3TEEBYGC43TO5XXEZA';
const CARD_ANA = '004E2B4E';
const HOUR = 3_600_000;

/** The converter's lines for keys: 4-bit bursts ("0100") or 8-bit ones ("10110100"), "*" = 10, "#" = 11. */
const keyCode = (key: string) => (key === '*' ? 10 : key === '#' ? 11 : Number(key));
const keys4 = (keys: string) => [...keys].map((key) => `${keyCode(key).toString(2).padStart(4, '0')}\r\n`).join('');
const keys8 = (keys: string) => [...keys].map((key) => `${(((~keyCode(key) & 0xf) << 4) | keyCode(key)).toString(2).padStart(8, '0')}\r\n`).join('');

function rdm6300Frame(tag: string): Buffer {
  const bytes = Buffer.from(`01${tag}`, 'hex');
  const checksum = bytes.reduce((xor, byte) => xor ^ byte, 0);
  const ascii = `01${tag}${checksum.toString(16).padStart(2, '0')}`.toUpperCase();
  return Buffer.concat([Buffer.from([0x02]), Buffer.from(ascii, 'latin1'), Buffer.from([0x03])]);
}

let broker: TestBroker;
let app: ScriptedApp;
const ports = new MockSerialPorts();
const logLines: string[] = [];
const running = new Set<BridgeHandle>();
let doorCount = 0;

interface KeyDoor {
  id: string;
  dataDir: string;
  cards: string;
  keypad: string;
  qr: string;
  relay: string;
  lcd: string;
  /** The bridge's clock, moved by the tests. */
  now: number;
}

async function newDoor(): Promise<KeyDoor> {
  doorCount += 1;
  const id = `keys-door-${doorCount}`;
  const base = `/dev/mock-keys-${doorCount}`;
  const door = {
    id,
    dataDir: await mkdtemp(path.join(tmpdir(), `bridge-${id}-`)),
    cards: `${base}-cards`,
    keypad: `${base}-keypad`,
    qr: `${base}-qr`,
    relay: `${base}-relay`,
    lcd: `${base}-lcd`,
    now: Date.now(),
  };
  ports.create(door.cards, door.keypad, door.qr, door.relay, door.lcd);
  return door;
}

/** A door with a card reader, a Wiegand keypad and a QR scanner, connected. */
async function startDoor(door: KeyDoor, overrides: Partial<BridgeConfigInput> = {}): Promise<BridgeHandle> {
  const log = (level: string) => (message: string) => logLines.push(`${door.id} ${level} ${message}`);
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const bridge = await startBridge(
    {
      doorId: door.id,
      mqtt: { url: broker.url, password: PASSWORD, reconnectMinMs: 50, reconnectMaxMs: 200 },
      readers: [
        { driver: 'rdm6300', port: door.cards },
        { driver: 'keypad', port: door.keypad },
        { driver: 'qr', port: door.qr, baudRate: 115200 },
      ],
      display: { driver: 'serlcd', port: door.lcd },
      lock: { driver: 'lcus1', port: door.relay },
      dataDir: door.dataDir,
      decisionTimeoutMs: 1000,
      displayHoldMs: 300,
      unlockMs: 150,
      logLevel: 'debug',
      ...overrides,
    },
    { serialPortFactory: ports.factory, logger, version: '0.0.0-test', clock: () => new Date(door.now) },
  );
  running.add(bridge);
  await eventually(() => bridge.status().connected, `${door.id} to connect`);
  return bridge;
}

const opens = (door: KeyDoor) => countOccurrences(ports.written(door.relay), LCUS1_OPEN);
/** A second grant while the door is still open only extends the opening: wait for it to close first. */
const shut = (bridge: BridgeHandle) => eventually(() => !bridge.status().lockOpen, 'the door to close again');
/** The LCD shows these two lines (SerLCD: line 2 starts after the cursor command FE C0). */
const shows = (door: KeyDoor, line1: string, line2: string) => ports.text(door.lcd).includes(`${line1.padEnd(16)}\xfe\xc0${line2.padEnd(16)}`);

beforeAll(async () => {
  broker = await TestBroker.create();
  app = await ScriptedApp.connect(broker.url);
});

afterEach(async () => {
  app.answering = true;
  app.receipting = true;
  await Promise.all([...running].map((bridge) => bridge.stop()));
  running.clear();
});

afterAll(async () => {
  await app.close();
  await broker.close();
  // Every bridge ran at debug level: no PIN and no QR token reached a log line.
  expect(logLines.some((line) => line.includes('PIN ****'))).toBe(true);
  for (const secret of [PIN_ANA, PIN_BEA, TOKEN_ANA, TOKEN_CARLOS, TOKEN_ANA.slice(4)]) {
    expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
  }
});

describe('keypad and QR scanner at a door (mock serial ports, aedes, scripted app)', () => {
  it('several readers at one door: a Wiegand PIN, a QR token and a card each make their swipe, decided by the app', async () => {
    const door = await newDoor();
    const bridge = await startDoor(door);
    await eventually(() => app.states.some((state) => JSON.stringify(state).includes('"reader":"rdm6300+keypad+qr"')), 'the state naming the readers');
    app.grantKey('pin', PIN_ANA, 'Hola, Ana', 'WELCOME');
    app.grantKey('qr', TOKEN_CARLOS, 'Hola, Carlos', 'WELCOME');
    app.grant(CARD_ANA, 'Hola, Ana', 'CARD');
    const before = app.swipes.length;

    // 4-bit bursts, split anywhere; a mistyped start cleared with "*".
    const typed = keys4(`99*${PIN_ANA}#`);
    ports.emit(door.keypad, typed.slice(0, 7));
    ports.emit(door.keypad, typed.slice(7));
    await eventually(() => opens(door) === 1, 'the PIN to open the door');
    await eventually(() => shows(door, 'Hola, Ana', 'WELCOME'), 'the greeting');
    expect(app.swipes[before]).toEqual({ id: expect.any(String), pin: PIN_ANA, at: expect.any(String), source: 'keypad' });
    await shut(bridge);

    ports.emit(door.qr, `${TOKEN_CARLOS}\r\n${TOKEN_CARLOS}\r\n`); // a scanner repeats a code held in front of it
    await eventually(() => opens(door) === 2, 'the QR code to open the door');
    await eventually(() => shows(door, 'Hola, Carlos', 'WELCOME'), 'the QR greeting');
    await shut(bridge);
    ports.emit(door.cards, rdm6300Frame(CARD_ANA));
    await eventually(() => opens(door) === 3, 'the card to open the door');
    expect(app.swipes.slice(before).map(({ id: _id, at: _at, ...rest }) => rest)).toEqual([
      { pin: PIN_ANA, source: 'keypad' },
      { qr: TOKEN_CARLOS, source: 'qr' },
      { card: CARD_ANA, source: 'reader' },
    ]);

    // A wrong PIN from 8-bit bursts: denied by the app with its lines, the door stays shut.
    ports.emit(door.keypad, keys8(`${PIN_BEA}#`));
    await eventually(() => shows(door, 'ACCESS DENIED', 'Codigo no valido'), 'the denial');
    expect(app.swipes.at(-1)).toMatchObject({ pin: PIN_BEA, source: 'keypad' });
    expect(await bridge.present({ kind: 'pin', pin: PIN_BEA })).toMatchObject({ pin: PIN_BEA, granted: false, reason: 'invalid_key', offline: false });
    expect(opens(door)).toBe(3);
    await expect(bridge.present({ kind: 'pin', pin: '12' })).rejects.toThrow(/4 to 12 digits/);
    await expect(bridge.present({ kind: 'qr', qr: 'https://example.org' })).rejects.toThrow(/QR token/);
  });

  it('an answered PIN swipe without a receipt is sent again on events with its pin', async () => {
    const door = await newDoor();
    const bridge = await startDoor(door, { eventResendMs: 100 });
    app.grantKey('pin', PIN_ANA);
    app.receipting = false;
    const outcome = await bridge.present({ kind: 'pin', pin: PIN_ANA });
    expect(outcome).toMatchObject({ granted: true, offline: false });
    const resent = await eventually(() => app.events.find((event) => event.id === outcome?.id), 'the answered swipe sent again');
    expect(resent).toEqual({ id: outcome?.id, pin: PIN_ANA, at: expect.any(String), granted: true, reason: 'granted', offline: false });
    app.receipting = true;
    await app.publishReceipt(door.id, { ids: [outcome?.id ?? ''] });
    await eventually(() => bridge.status().pendingEvents === 0, 'the receipt');
  });

  it('offline: keys from the list by the bridge\'s clock (in and out of their windows, expired, unknown); events carry pin or qr', async () => {
    const door = await newDoor();
    const bridge = await startDoor(door, { decisionTimeoutMs: 100 });
    const iso = (ms: number) => new Date(ms).toISOString();
    await app.publishCredentials(door.id, 1, [{ card: CARD_ANA }], 'a1b2c3', [
      { kind: 'pin', secret: PIN_ANA, win: [[iso(door.now - HOUR), iso(door.now + HOUR)]], name: 'Ana María López' },
      { kind: 'qr', secret: TOKEN_ANA, win: [[iso(door.now - HOUR), iso(door.now + HOUR)]], name: 'Ana' },
      // A visitor's pass for tomorrow, and a stay that ended yesterday.
      { kind: 'qr', secret: TOKEN_CARLOS, win: [[iso(door.now + 24 * HOUR), iso(door.now + 30 * HOUR)]], name: 'Carlos' },
      { kind: 'pin', secret: PIN_BEA, win: [[iso(door.now - 48 * HOUR), iso(door.now - 24 * HOUR)]], name: 'Bea' },
    ]);
    await eventually(() => bridge.status().credentialsVersion === 1, 'the list with keys');
    app.answering = false; // the app is away: every swipe is decided offline after 100 ms
    const eventsBefore = app.events.length;

    ports.emit(door.keypad, keys4(`${PIN_ANA}#`));
    await eventually(() => opens(door) === 1, 'the offline PIN grant');
    await eventually(() => shows(door, 'Hola, Ana', 'OFFLINE MODE'), 'the first-name greeting');
    await shut(bridge);
    ports.emit(door.qr, `${TOKEN_ANA.toLowerCase()}\r\n`);
    await eventually(() => opens(door) === 2, 'the offline QR grant');
    expect(await bridge.present({ kind: 'qr', qr: TOKEN_CARLOS })).toMatchObject({ granted: false, reason: 'outside_key_window', offline: true });
    expect(shows(door, 'ACCESS DENIED', 'Fuera de periodo')).toBe(true);
    expect(await bridge.present({ kind: 'pin', pin: PIN_BEA })).toMatchObject({ granted: false, reason: 'outside_key_window', offline: true });
    expect(await bridge.present({ kind: 'pin', pin: '000000' })).toMatchObject({ granted: false, reason: 'invalid_key', offline: true });
    expect(shows(door, 'ACCESS DENIED', 'Codigo no valido')).toBe(true);
    expect(opens(door)).toBe(2);

    // Tomorrow, by the bridge's clock: Carlos's pass opens, Ana's stay no longer does.
    door.now += 25 * HOUR;
    expect(await bridge.present({ kind: 'qr', qr: TOKEN_CARLOS })).toMatchObject({ granted: true, reason: 'granted', offline: true, unlockMs: 150 });
    expect(shows(door, 'Hola, Carlos', 'OFFLINE MODE')).toBe(true);
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: false, reason: 'outside_key_window', offline: true });

    await eventually(() => bridge.status().pendingEvents === 0, 'the events to be receipted');
    const mine = app.events.slice(eventsBefore);
    expect(mine.map((event) => [event.pin ?? event.qr, event.reason, event.granted, event.offline])).toEqual([
      [PIN_ANA, 'granted', true, true],
      [TOKEN_ANA, 'granted', true, true],
      [TOKEN_CARLOS, 'outside_key_window', false, true],
      [PIN_BEA, 'outside_key_window', false, true],
      ['000000', 'invalid_key', false, true],
      [TOKEN_CARLOS, 'granted', true, true],
      [PIN_ANA, 'outside_key_window', false, true],
    ]);
    expect(Object.keys(mine[0] ?? {}).sort()).toEqual(['at', 'granted', 'id', 'offline', 'pin', 'reason']);
    expect(Object.keys(mine[1] ?? {}).sort()).toEqual(['at', 'granted', 'id', 'offline', 'qr', 'reason']);
  });

  it('offline lockout: after 3 wrong PINs each one pauses the keypad for longer (1, 2, 4, 8, 16 s), the 8th locks it for a minute; QR codes and cards still work', async () => {
    const door = await newDoor();
    const bridge = await startDoor(door, { decisionTimeoutMs: 100 });
    const iso = (ms: number) => new Date(ms).toISOString();
    await app.publishCredentials(door.id, 1, [{ card: CARD_ANA }], 'd4e5', [
      { kind: 'pin', secret: PIN_ANA, win: [[iso(door.now - HOUR), iso(door.now + HOUR)]], name: 'Ana' },
      { kind: 'qr', secret: TOKEN_ANA, win: [[iso(door.now - HOUR), iso(door.now + HOUR)]], name: 'Ana' },
    ]);
    await eventually(() => bridge.status().credentialsVersion === 1, 'the list with keys');
    app.answering = false;
    const wrong = () => bridge.present({ kind: 'pin', pin: '111111' });

    // A guest's slips cost nothing: two wrong PINs, then theirs at once.
    for (let attempt = 0; attempt < 2; attempt += 1) expect(await wrong()).toMatchObject({ reason: 'invalid_key' });
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: true, reason: 'granted' });
    // The third pauses the keypad for 1 s: a PIN in the pause is refused and not counted.
    expect(await wrong()).toMatchObject({ reason: 'invalid_key' });
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: false, reason: 'keypad_locked' });
    door.now += keypadPauseMs(3);
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: true, reason: 'granted' });

    // Each later guess waits twice as long as the one before.
    for (let failures = 4; failures < WRONG_PIN_LIMIT; failures += 1) {
      expect(await wrong()).toMatchObject({ reason: 'invalid_key' });
      expect(keypadPauseMs(failures)).toBe(1000 * 2 ** (failures - 3));
      door.now += keypadPauseMs(failures) - 1;
      expect(await wrong()).toMatchObject({ reason: 'keypad_locked' });
      door.now += 1;
    }
    // The 8th locks it, and the screen says so at once.
    expect(await wrong()).toMatchObject({ reason: 'invalid_key' });
    expect(shows(door, 'Teclado', 'bloqueado')).toBe(true);
    const opened = opens(door);
    ports.emit(door.keypad, keys4(`${PIN_ANA}#`));
    await eventually(() => app.events.filter((event) => event.pin === PIN_ANA && event.reason === 'keypad_locked').length === 2, 'the locked PIN\'s event');
    expect(opens(door)).toBe(opened);
    expect(await bridge.present({ kind: 'qr', qr: TOKEN_ANA })).toMatchObject({ granted: true });
    expect(await bridge.swipe(CARD_ANA)).toMatchObject({ granted: true });

    expect(KEYPAD_LOCK_MS).toBe(60_000);
    door.now += KEYPAD_LOCK_MS - 1;
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: false, reason: 'keypad_locked' });
    door.now += 1;
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: true, reason: 'granted', offline: true });
    expect(logLines).toContain(`${door.id} warn keypad locked: too many wrong PINs offline`);

    // Ten quiet minutes later the count starts again: a slip is free.
    door.now += WRONG_PIN_WINDOW_MS;
    expect(await wrong()).toMatchObject({ reason: 'invalid_key' });
    expect(await bridge.present({ kind: 'pin', pin: PIN_ANA })).toMatchObject({ granted: true, reason: 'granted' });
  });

  it('a line keypad: one PIN per line', async () => {
    const door = await newDoor();
    await startDoor(door, {
      readers: [
        { driver: 'keypad', port: door.keypad, input: 'line' },
        { driver: 'qr', port: door.qr },
      ],
    });
    app.grantKey('pin', PIN_BEA, 'Hola, Bea', 'WELCOME');
    ports.emit(door.keypad, `${PIN_BEA}\r\n`);
    await eventually(() => opens(door) === 1, 'the line keypad\'s PIN to open the door');
    expect(app.swipes.at(-1)).toMatchObject({ pin: PIN_BEA, source: 'keypad' });
  });
});
