// Issue 29 through the real chain: a Wiegand keypad and a QR scanner beside the
// card reader, on mock serial ports → the bridge → the app's embedded broker →
// the access service and libSQL → relay and LCD bytes. A confirmed guest's key
// is issued by the app (reservations service) and reaches the door's offline
// list as salted hashes; the bridge decides it by its own clock. A resident's
// visitor pass goes the same way, on its day only, and tells the resident once.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { LCUS1_OPEN } from "../../bridge/src/locks/lcus1";
import { eventually } from "../../bridge/src/test-support/eventually";
import { countOccurrences, MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { getAccessLog } from "~/models/access-log.server";
import { getActiveKeyOfReservation } from "~/models/door-key.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import { provisionDoor, updateDoor } from "~/services/doors.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { createVisitorPass, notifyVisitorArrivals } from "~/services/visitor-passes.server";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import { createTestCard, createTestReservation, hexPrefix } from "../setup/fixtures";
import { quietLogger, RestartableAccessService } from "../setup/door-chain";

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
/** The app's clock runs this far ahead of the real one while a test moves it (the visitor's day). */
let appOffsetMs = 0;
const access = new RestartableAccessService({ clock: () => new Date(Date.now() + appOffsetMs) });
let doorCount = 0;

const keyCode = (key: string) => (key === "#" ? 11 : key === "*" ? 10 : Number(key));
/** What the Wiegand-to-serial converter prints for each key: its 4-bit burst, or its 8-bit one (the complement in the high nibble). */
function keyBursts(keys: string, bits: 4 | 8 = 4) {
  return [...keys]
    .map((key) => {
      const code = keyCode(key);
      const value = bits === 4 ? code : ((~code & 0xf) << 4) | code;
      return `${value.toString(2).padStart(bits, "0")}\r\n`;
    })
    .join("");
}

/** An entrance door ('Acceso principal') with a bridge reading cards, a keypad and a QR scanner. */
async function entranceWithKeypad({ clock }: { clock?: () => Date } = {}) {
  doorCount += 1;
  const { door, credential } = await provisionDoor(`kpc-${hexPrefix(2).toLowerCase()}-${doorCount}`, { name: `Portal ${doorCount}`, location: "Pruebas" });
  const marked = await updateDoor(door.id, { isEntrance: true });
  if (!marked.ok) throw new Error(marked.message);
  const base = `/dev/kpc-${doorCount}`;
  const paths = { cards: `${base}-cards`, keypad: `${base}-keypad`, qr: `${base}-qr`, relay: `${base}-relay`, lcd: `${base}-lcd` };
  ports.create(...Object.values(paths));
  const bridge = await startBridge(
    {
      doorId: door.code,
      mqtt: { url: `mqtt://127.0.0.1:${access.port}`, password: credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
      readers: [
        { driver: "rdm6300", port: paths.cards },
        { driver: "keypad", port: paths.keypad },
        { driver: "qr", port: paths.qr },
      ],
      display: { driver: "serlcd", port: paths.lcd },
      lock: { driver: "lcus1", port: paths.relay },
      dataDir: await mkdtemp(path.join(tmpdir(), "keypad-chain-")),
      decisionTimeoutMs: 1000,
      displayHoldMs: 200,
      unlockMs: 100,
    },
    { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test", ...(clock ? { clock } : {}) },
  );
  bridges.add(bridge);
  await eventually(() => bridge.status().connected, "the bridge to connect");
  return { door, paths, bridge };
}

/** A guest's stay from yesterday to tomorrow, confirmed: its key's window (check-in 15:00 to check-out 11:00) holds now. */
async function confirmedStay() {
  const today = todayInMadrid();
  const stay = await createTestReservation({ guestName: `Ana López ${hexPrefix(2)}`, roomType: "individual", startDate: addDays(today, -1), endDate: addDays(today, 1) });
  const confirmed = await changeReservationStatus(stay.id, "confirmed");
  if (!confirmed.ok) throw new Error(confirmed.message);
  const key = await getActiveKeyOfReservation(stay.id);
  if (key === null) throw new Error("no key for the confirmed stay");
  return { stay, key };
}

const opens = (relay: string) => countOccurrences(ports.written(relay), LCUS1_OPEN);

beforeAll(() => access.start());
afterEach(async () => {
  appOffsetMs = 0;
  await Promise.all([...bridges].map((bridge) => bridge.stop()));
  bridges.clear();
  if (!access.running) await access.start();
});
afterAll(() => access.stop());

describe("keypad and QR scanner on the real chain", () => {
  it("online, a confirmed guest's PIN typed on the keypad opens the entrance and the app greets them; cancelled, it no longer does", async () => {
    const { paths, bridge } = await entranceWithKeypad();
    const { stay, key } = await confirmedStay();

    // 8-bit bursts this time, a slip cleared with "*" first.
    ports.emit(paths.keypad, keyBursts(`9*${key.pin}#`, 8));
    await eventually(() => opens(paths.relay) === 1, "the guest's PIN to open the entrance");
    await eventually(() => ports.text(paths.lcd).includes("Hola, Ana"), "the app's greeting on the LCD");
    await eventually(() => !bridge.status().lockOpen, "the door to close again");

    const byQr = await bridge.present({ kind: "qr", qr: key.qrToken });
    expect(byQr).toMatchObject({ granted: true, reason: "granted", offline: false });
    const row = await eventually(() => getAccessLog(byQr?.id ?? ""), "the QR swipe's row");
    expect(row).toMatchObject({ credentialKind: "qr", holder: `Huésped ${stay.guestName} · ${stay.reservationCode}`, accessGranted: true });

    expect((await changeReservationStatus(stay.id, "cancelled")).ok).toBe(true);
    expect(await bridge.present({ kind: "pin", pin: key.pin })).toMatchObject({ granted: false, reason: "invalid_key", offline: false });
    await eventually(() => ports.text(paths.lcd).includes("Codigo no valido"), "the refusal on the LCD");
    expect(opens(paths.relay)).toBe(2);
  });

  it("offline, a confirmed guest's QR code opens the entrance from the app's list; their PIN, which also opens their room and the other entrances, is not on it (issue 40)", async () => {
    const { paths, bridge } = await entranceWithKeypad();
    const versionBefore = bridge.status().credentialsVersion ?? 0;
    const { key } = await confirmedStay();
    await eventually(() => (bridge.status().credentialsVersion ?? 0) > versionBefore, "the entrance's list with the new key");

    await access.stop();
    await eventually(() => !bridge.status().connected, "the bridge to notice the app is away");
    ports.emit(paths.qr, `${key.qrToken}\r\n`);
    await eventually(() => opens(paths.relay) === 1, "the guest's QR code to open the entrance offline");
    await eventually(() => ports.text(paths.lcd).includes("Hola, Ana"), "the first-name greeting");
    await eventually(() => !bridge.status().lockOpen, "the door to close again");
    expect(await bridge.present({ kind: "pin", pin: key.pin })).toMatchObject({ granted: false, reason: "invalid_key", offline: true });
    expect(opens(paths.relay)).toBe(1);
  });

  it("a resident's visitor pass opens the entrance on its day only, online and offline, and tells the resident once", async () => {
    const doorClock = { now: new Date() };
    const { door, paths, bridge } = await entranceWithKeypad({ clock: () => doorClock.now });
    const { user } = await createTestCard(hexPrefix(4), [door.id], { firstName: "Carlos" });
    await eventually(() => (bridge.status().credentialsVersion ?? 0) > 0 || null, "the entrance's first list");
    const versionBefore = bridge.status().credentialsVersion ?? 0;
    const day = addDays(todayInMadrid(), 2);
    const created = await createVisitorPass(user!, { visitorName: "Bea Suárez", visitorEmail: "bea@example.com", date: day, startTime: "10:00", endTime: "12:00" });
    if (!created.ok) throw new Error(created.message);
    const pass = created.pass;
    expect(pass.doors.map((passDoor) => passDoor.doorId)).toEqual([door.code]);
    await eventually(() => (bridge.status().credentialsVersion ?? 0) > versionBefore || null, "the entrance's list with the pass");

    // Online, the app deciding by its clock on the visit's day.
    const at = (time: string) => madridInstant(day, time)!;
    appOffsetMs = at("10:30").getTime() - Date.now();
    doorClock.now = at("10:30");
    ports.emit(paths.keypad, keyBursts(`${pass.pin}#`));
    await eventually(() => opens(paths.relay) === 1, "the visitor's PIN to open the entrance");
    await eventually(() => ports.text(paths.lcd).includes("Hola, Bea"), "the visitor's greeting");
    await eventually(() => !bridge.status().lockOpen, "the door to close again");
    await eventually(async () => {
      await notifyVisitorArrivals();
      return (await listNotificationsOfUser(user!.id)).some((n) => n.message === "Tu visita Bea Suárez ha llegado") || null;
    }, "the resident told of the arrival");
    const byQr = await bridge.present({ kind: "qr", qr: pass.qr });
    expect(byQr).toMatchObject({ granted: true, offline: false });
    expect(await eventually(() => getAccessLog(byQr?.id ?? ""), "the QR's row")).toMatchObject({ credentialKind: "qr", holder: "Visita de Bea Suárez: Carlos" });
    await eventually(() => !bridge.status().lockOpen, "the door to close again");
    await notifyVisitorArrivals();
    expect((await listNotificationsOfUser(user!.id)).filter((n) => n.message.startsWith("Tu visita"))).toHaveLength(1);
    appOffsetMs = at("12:30").getTime() - Date.now();
    expect(await bridge.present({ kind: "pin", pin: pass.pin })).toMatchObject({ granted: false, reason: "outside_key_window", offline: false });

    // Offline, the bridge deciding by its own clock from the list's hashes and window.
    await access.stop();
    await eventually(() => !bridge.status().connected, "the bridge to notice the app is away");
    doorClock.now = at("11:00");
    ports.emit(paths.qr, `${pass.qr}\r\n`);
    await eventually(() => opens(paths.relay) === 3, "the visitor's QR to open the entrance offline");
    await eventually(() => !bridge.status().lockOpen, "the door to close again");
    doorClock.now = at("12:30");
    expect(await bridge.present({ kind: "pin", pin: pass.pin })).toMatchObject({ granted: false, offline: true });
    expect(opens(paths.relay)).toBe(3);
  });
});
