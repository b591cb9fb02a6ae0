// Issue 29 through the real chain: a Wiegand keypad and a QR scanner beside the
// card reader, on mock serial ports → the bridge → the app's embedded broker →
// the access service and libSQL → relay and LCD bytes. A confirmed guest's key
// is issued by the app (reservations service) and reaches the door's offline
// list as salted hashes; the bridge decides it by its own clock.
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
import { provisionDoor, updateDoor } from "~/services/doors.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { createTestReservation, hexPrefix } from "../setup/fixtures";
import { quietLogger, RestartableAccessService } from "../setup/door-chain";

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
const access = new RestartableAccessService();
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
async function entranceWithKeypad() {
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
    { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test" },
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

  it("offline, a confirmed guest's PIN and QR code open the entrance from the app's list; a wrong PIN does not", async () => {
    const { paths, bridge } = await entranceWithKeypad();
    const versionBefore = bridge.status().credentialsVersion ?? 0;
    const { key } = await confirmedStay();
    await eventually(() => (bridge.status().credentialsVersion ?? 0) > versionBefore, "the entrance's list with the new key");

    await access.stop();
    await eventually(() => !bridge.status().connected, "the bridge to notice the app is away");
    ports.emit(paths.keypad, keyBursts(`${key.pin}#`));
    await eventually(() => opens(paths.relay) === 1, "the guest's PIN to open the entrance offline");
    await eventually(() => ports.text(paths.lcd).includes("Hola, Ana"), "the first-name greeting");
    await eventually(() => !bridge.status().lockOpen, "the door to close again");
    ports.emit(paths.qr, `${key.qrToken}\r\n`);
    await eventually(() => opens(paths.relay) === 2, "the guest's QR code to open the entrance offline");
    const wrong = key.pin === "000000" ? "111111" : "000000";
    expect(await bridge.present({ kind: "pin", pin: wrong })).toMatchObject({ granted: false, reason: "invalid_key", offline: true });
    expect(opens(paths.relay)).toBe(2);
  });
});
