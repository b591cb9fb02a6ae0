// PIN and QR swipes (issue 29) through the real access service and its
// embedded broker, played by scripted MQTT clients (FakeBridge): decided on
// the cards' path with the keys' reasons, logged with the kind and the
// holder, refused at once after a cancellation or a move, the keypad paused
// and then locked by wrong PINs (one staff notice, over the real SMTP receiver), and the
// doors' offline events with a PIN or QR recorded.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccessLog } from "~/models/access-log.server";
import { getActiveKeyOfReservation } from "~/models/door-key.server";
import { updateDoor } from "~/services/doors.server";
import { changeReservationStatus, moveReservationRoom } from "~/services/reservations.server";
import { createRoom } from "~/services/rooms.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { eventually } from "../../bridge/src/test-support/eventually";
import { FakeDoorChain } from "../setup/door-chain";
import { createTestReservation, hexPrefix } from "../setup/fixtures";
import { mimePart } from "../setup/mime";
import * as logsRoute from "~/routes/api.logs";
import * as logsPage from "~/routes/admin.logs";
import { callApi, callRoute, pageRequest } from "../setup/route";
import { createApiCallers, createTestUser, sessionCookie } from "../setup/fixtures";

const STAFF = "conserjeria@lacasona.test";
const chain = new FakeDoorChain("kd", { STAFF_EMAIL: STAFF });
const door = chain.door.bind(chain);

beforeAll(() => chain.start());
afterAll(() => chain.stop());

async function room() {
  const roomDoor = await door(`Habitación ${hexPrefix(2)}`);
  const created = await createRoom({ name: `D${hexPrefix(3)}`, floor: 1, roomType: "individual", doorId: roomDoor.door.code, status: "available" });
  if (!created.ok) throw new Error(created.message);
  return { ...roomDoor, room: created.room };
}

/** A confirmed stay in the room; `from` days from today (negative: begun), two nights. */
async function confirmedStay(roomId: string, from = -1) {
  const today = todayInMadrid();
  const stay = await createTestReservation({ guestName: "Ana López", roomType: "individual", startDate: addDays(today, from), endDate: addDays(today, from + 2) });
  const confirmed = await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId });
  if (!confirmed.ok) throw new Error(confirmed.message);
  return { stay, key: (await getActiveKeyOfReservation(stay.id))! };
}

/** A six-digit PIN no key has (keys' PINs are random; one in a million collides). */
const wrongPin = () => String(100000 + Math.floor(Math.random() * 900000));

describe("PIN and QR at the door", () => {
  it("open the entrance and the room's door inside the window, greeting the guest, and log the kind and the holder", async () => {
    const entrance = await door("Portal", { entrance: true });
    const stayRoom = await room();
    const { stay, key } = await confirmedStay(stayRoom.room._id);

    const byPin = await entrance.bridge.typePin(key.pin);
    expect(byPin).toMatchObject({ granted: true, reason: "granted", display: { line1: "Hola, Ana" }, unlockMs: 3000 });
    const pinRow = await eventually(() => getAccessLog(byPin.id), "the PIN's row");
    expect(pinRow).toMatchObject({
      credentialKind: "pin",
      holder: `Huésped Ana López · ${stay.reservationCode}`,
      cardNumber: stay.reservationCode,
      keyId: key.id,
      cardId: null,
      doorId: entrance.door.id,
      accessGranted: true,
      source: "keypad",
    });

    const byQr = await stayRoom.bridge.scanQr(key.qrToken);
    expect(byQr).toMatchObject({ granted: true, reason: "granted", display: { line1: "Hola, Ana" } });
    expect(await eventually(() => getAccessLog(byQr.id), "the QR's row")).toMatchObject({ credentialKind: "qr", source: "qr", keyId: key.id });
  });

  it("refuse at doors the key does not open (a PIN: invalid_key, as a code that does not exist; a QR: no_permission), outside its window (outside_key_window), and an unknown code (invalid_key)", async () => {
    const entrance = await door("Portal 2", { entrance: true });
    const stayRoom = await room();
    const otherRoom = await room();
    const { key } = await confirmedStay(stayRoom.room._id);
    const later = await confirmedStay(stayRoom.room._id, 30);

    // Issue 40: a keypad does not tell a PIN of another door from one that does not exist.
    const elsewhere = await otherRoom.bridge.typePin(key.pin);
    const nowhere = await otherRoom.bridge.typePin(wrongPin());
    expect(elsewhere).toMatchObject({ granted: false, reason: "invalid_key", display: { line1: "Acceso denegado", line2: "Código no válido" } });
    const seen = ({ granted, reason, display, unlockMs }: typeof elsewhere) => ({ granted, reason, display, unlockMs });
    expect(seen(elsewhere)).toEqual(seen(nowhere));
    expect(await otherRoom.bridge.scanQr(key.qrToken)).toMatchObject({ granted: false, reason: "no_permission", display: { line2: "Sin permiso" } });
    expect(await entrance.bridge.scanQr(later.key.qrToken)).toMatchObject({ granted: false, reason: "outside_key_window", display: { line2: "Fuera de periodo" } });
    const unknown = await entrance.bridge.typePin(wrongPin());
    expect(unknown).toMatchObject({ granted: false, reason: "invalid_key", display: { line1: "Acceso denegado", line2: "Código no válido" } });
    expect(await eventually(() => getAccessLog(unknown.id), "the row")).toMatchObject({ credentialKind: "pin", holder: null, cardNumber: "", reason: "invalid_key" });
    // A token that differs from a real one in its last character.
    const forged = key.qrToken.slice(0, -1) + (key.qrToken.endsWith("A") ? "B" : "A");
    expect(await entrance.bridge.scanQr(forged)).toMatchObject({ granted: false, reason: "invalid_key" });
    expect(await entrance.bridge.typePin("12345")).toMatchObject({ granted: false, reason: "invalid_key" });
  });

  it("refuse a cancelled stay's key at once, and follow a move to another room", async () => {
    const entrance = await door("Portal 3", { entrance: true });
    const first = await room();
    const second = await room();
    const cancelled = await confirmedStay(first.room._id);
    expect(await entrance.bridge.typePin(cancelled.key.pin)).toMatchObject({ granted: true });
    await changeReservationStatus(cancelled.stay.id, "cancelled");
    expect(await entrance.bridge.typePin(cancelled.key.pin)).toMatchObject({ granted: false, reason: "invalid_key" });
    expect(await first.bridge.scanQr(cancelled.key.qrToken)).toMatchObject({ granted: false, reason: "invalid_key" });

    const moving = await confirmedStay(first.room._id);
    expect(await first.bridge.typePin(moving.key.pin)).toMatchObject({ granted: true });
    expect((await moveReservationRoom(moving.stay.id, second.room._id)).ok).toBe(true);
    expect(await first.bridge.typePin(moving.key.pin)).toMatchObject({ granted: false, reason: "invalid_key" });
    expect(await second.bridge.typePin(moving.key.pin)).toMatchObject({ granted: true });
  });

  it("make each guess cost the guesser: after 3 wrong PINs the keypad pauses for 1, 2, 4, 8, 16 s, the 8th locks it for a minute (logged, one staff notice), QR still read", async () => {
    const entrance = await door("Portal 4", { entrance: true });
    const other = await door("Portal 5", { entrance: true });
    const stayRoom = await room();
    const { key } = await confirmedStay(stayRoom.room._id);
    // A guest's slips cost nothing.
    for (let i = 0; i < 2; i++) expect(await entrance.bridge.typePin(wrongPin())).toMatchObject({ reason: "invalid_key" });
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true });
    // The third pauses the keypad for 1 s: a PIN typed in the pause is refused and not counted.
    expect(await entrance.bridge.typePin(wrongPin())).toMatchObject({ reason: "invalid_key" });
    const paused = await entrance.bridge.typePin(key.pin);
    expect(paused).toMatchObject({ granted: false, reason: "keypad_locked", display: { line2: "Teclado bloq." } });
    expect(await eventually(() => getAccessLog(paused.id), "the row")).toMatchObject({ reason: "keypad_locked", credentialKind: "pin" });
    chain.clockOffsetMs += 1000;
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true });
    for (let failures = 4; failures < 8; failures++) {
      expect(await entrance.bridge.typePin(wrongPin())).toMatchObject({ reason: "invalid_key" });
      // The app's clock runs on meanwhile: the check lands well inside the pause.
      const pause = 1000 * 2 ** (failures - 3);
      chain.clockOffsetMs += pause - 300;
      expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ reason: "keypad_locked" });
      chain.clockOffsetMs += 300;
    }
    expect(chain.smtp.messages.some((m) => (mimePart(m.raw, "text/plain") ?? "").includes(entrance.door.code))).toBe(false);
    expect(await entrance.bridge.typePin(wrongPin())).toMatchObject({ reason: "invalid_key" });
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: false, reason: "keypad_locked" });
    // Only this door's keypad; the QR scanner and other doors are not locked.
    expect(await entrance.bridge.scanQr(key.qrToken)).toMatchObject({ granted: true });
    expect(await other.bridge.typePin(key.pin)).toMatchObject({ granted: true });

    const notice = await eventually(() => chain.smtp.messages.find((m) => m.to.includes(STAFF) && (mimePart(m.raw, "text/plain") ?? "").includes(entrance.door.code)), "the staff notice");
    expect(mimePart(notice.raw, "text/plain")).toContain("se ha bloqueado por intentos fallidos: 8 códigos erróneos en 10 minutos");

    chain.clockOffsetMs += 60_000 - 300;
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ reason: "keypad_locked" });
    chain.clockOffsetMs += 300;
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true });
    // Still within the 10 minutes: the next wrong PIN locks it again, with no second notice.
    expect(await entrance.bridge.typePin(wrongPin())).toMatchObject({ reason: "invalid_key" });
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ reason: "keypad_locked" });
    chain.clockOffsetMs += 60_000;
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true });
    expect(chain.smtp.messages.filter((m) => m.to.includes(STAFF) && (mimePart(m.raw, "text/plain") ?? "").includes(entrance.door.code))).toHaveLength(1);
  });

  it("record a door's offline events with a PIN or QR, naming the key's holder", async () => {
    const entrance = await door("Portal 6", { entrance: true });
    const stayRoom = await room();
    const { stay, key } = await confirmedStay(stayRoom.room._id);
    const pinEvent = randomUUID();
    const qrEvent = randomUUID();
    const at = new Date().toISOString();
    await entrance.bridge.publishJson("events", { id: pinEvent, pin: key.pin, at, granted: true, reason: "granted", offline: true });
    await entrance.bridge.publishJson("events", { id: qrEvent, qr: "LC1-NOSUCHTOKEN", at, granted: false, reason: "invalid_key", offline: true });
    await entrance.bridge.waitForReceipt(qrEvent, { as: "event" });
    expect(await getAccessLog(pinEvent)).toMatchObject({
      offline: true,
      accessGranted: true,
      credentialKind: "pin",
      holder: `Huésped Ana López · ${stay.reservationCode}`,
      keyId: key.id,
    });
    expect(await getAccessLog(qrEvent)).toMatchObject({ offline: true, accessGranted: false, reason: "invalid_key", credentialKind: "qr", holder: null });
  });

  it("are told apart in the log: GET /api/logs and /admin/logs filter by credentialKind and show the holder", async () => {
    const entrance = await door("Portal 7", { entrance: true });
    const stayRoom = await room();
    const { stay, key } = await confirmedStay(stayRoom.room._id);
    const pin = await entrance.bridge.typePin(key.pin);
    const qr = await entrance.bridge.scanQr(key.qrToken);
    const holder = `Huésped Ana López · ${stay.reservationCode}`;
    const { adminToken } = await createApiCallers();
    const list = async (kind: string) =>
      (await callApi(logsRoute.loader, `/api/logs?doorId=${entrance.door.code}&credentialKind=${kind}&limit=200`, { token: adminToken })).body;
    const pins = await list("pin");
    expect(pins.data.logs.map((row: { _id: string }) => row._id)).toEqual([pin.id]);
    expect(pins.data.logs[0]).toMatchObject({ credentialKind: "pin", holder, cardId: stay.reservationCode, reason: "granted" });
    expect(pins.data.stats).toMatchObject({ total: 1, granted: 1 });
    expect((await list("qr")).data.logs.map((row: { _id: string }) => row._id)).toEqual([qr.id]);
    expect((await list("card")).data.logs).toEqual([]);
    expect((await list("all")).data.logs).toHaveLength(2);
    const refused = await callApi(logsRoute.loader, "/api/logs?credentialKind=llave", { token: adminToken });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe("credentialKind debe ser all, card, pin o qr");

    const cookie = await sessionCookie((await createTestUser({ role: "admin" })).id);
    const page = await callRoute(logsPage.loader, pageRequest(`/admin/logs?doorId=${entrance.door.code}&credentialKind=qr`, cookie));
    const data = (await page.json()) as { lines: { id: string; credentialKind: string; holder: string }[] };
    expect(data.lines).toEqual([expect.objectContaining({ id: qr.id, credentialKind: "qr", holder })]);
  });
});
