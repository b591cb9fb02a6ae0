// Stay keys (issue 29): a confirmed guest's stay gets a key (PIN and QR)
// opening the entrances and its room's door from check-in to check-out; a
// cancellation revokes it, a move re-points it, new dates re-issue it with
// new windows (decided online by the service's clock), and the doors' offline
// lists (read here by fake bridges on the real embedded broker) follow within
// a second, carrying only salted hashes of the PIN and token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsMessage } from "~/doors/contract";
import { getActiveKeyOfReservation } from "~/models/door-key.server";
import { getReservationById } from "~/models/reservation.server";
import { updateDoor } from "~/services/doors.server";
import { freePin, stayKeyWindows } from "~/services/door-keys.server";
import { changeReservationDates, changeReservationStatus, moveReservationRoom } from "~/services/reservations.server";
import { createRoom, updateRoom } from "~/services/rooms.server";
import { cancelGuestReservation } from "~/services/visitor.server";
import { sha256 } from "~/utils/crypto.server";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import { resetEnvForTests } from "~/utils/env.server";
import { FakeBridge } from "../setup/access";
import { RestartableAccessService } from "../setup/door-chain";
import { createTestDoorWithBridge, createTestReservation, hexPrefix } from "../setup/fixtures";
import { eventually } from "../../bridge/src/test-support/eventually";

/** The service decides by this clock: a test moves it forward (and back). */
let clockOffsetMs = 0;
const access = new RestartableAccessService({ clock: () => new Date(Date.now() + clockOffsetMs) });
const bridges: FakeBridge[] = [];
let doorCount = 0;

beforeAll(() => access.start());
afterAll(async () => {
  await Promise.all(bridges.map((bridge) => bridge.end()));
  await access.stop();
});

async function doorWithBridge(name: string, entrance = false) {
  doorCount += 1;
  const code = `key-${hexPrefix(2).toLowerCase()}-${doorCount}`;
  const { door, password } = await createTestDoorWithBridge(code, name);
  if (entrance) {
    const marked = await updateDoor(door.id, { isEntrance: true });
    if (!marked.ok) throw new Error(marked.message);
  }
  const bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${access.port}`, code, password);
  bridges.push(bridge);
  return { door, bridge };
}

async function roomWithDoor(name: string) {
  const { door, bridge } = await doorWithBridge(`Habitación ${name}`);
  const created = await createRoom({ name, floor: 1, roomType: "individual", doorId: door.code, status: "available" });
  if (!created.ok) throw new Error(created.message);
  return { room: created.room, door, bridge };
}

/** The door's latest offline list. */
const latestList = (bridge: FakeBridge) => bridge.latest("credentials")?.json as CredentialsMessage | undefined;
type ListedKey = { pin: string; qrToken: string };
/**
 * Whether the list carries the key, by its QR token's entry. A stay's PIN
 * opens the entrances and the room, so it never rides on a list (issue 40:
 * it could be brute-forced from one door's list and used at the others).
 */
const listHasKey = (list: CredentialsMessage | undefined, key: ListedKey) => {
  if (list?.keys.some((entry) => entry.k === "pin" && entry.h === sha256(`${list.salt}pin:${key.pin}`))) throw new Error(`a list carries the stay's PIN ${key.pin}`);
  return Boolean(list?.keys?.some((entry) => entry.k === "qr" && entry.h === sha256(`${list.salt}qr:${key.qrToken}`)));
};

/** Waits (at most 1 s, the bound) for the door's list to carry the key, or not. */
async function listCarries(bridge: FakeBridge, key: ListedKey, carries: boolean) {
  return eventually(() => listHasKey(latestList(bridge), key) === carries, `the list of ${bridge.doorCode} ${carries ? "with" : "without"} ${key.pin}`, 1000);
}

/** A stay from yesterday to tomorrow: its key's window holds now. */
async function currentStay(guestName = `Ana López ${hexPrefix(2)}`) {
  const today = todayInMadrid();
  return createTestReservation({ guestName, roomType: "individual", startDate: addDays(today, -1), endDate: addDays(today, 1) });
}

describe("a confirmed stay's key", () => {
  it("is issued on confirmation: 6-digit PIN, LC1- QR token, check-in to check-out, entrances and the room's door", async () => {
    const entrance = await doorWithBridge("Portal", true);
    const other = await doorWithBridge("Trastero");
    const { room, door: roomDoor, bridge: roomBridge } = await roomWithDoor(`K${hexPrefix(2)}`);
    const stay = await currentStay();
    const confirmed = await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id });
    if (!confirmed.ok) throw new Error(confirmed.message);
    const key = (await getActiveKeyOfReservation(stay.id))!;
    expect(key.pin).toMatch(/^\d{6}$/);
    expect(key.qrToken).toMatch(/^LC1-[A-Z2-7]{32}$/);
    expect(key.qrHash).toBe(sha256(key.qrToken));
    expect(key.holderLabel).toBe(`Huésped ${stay.guestName} · ${stay.reservationCode}`);
    expect(key.validFrom.getTime()).toBe(madridInstant(stay.startDate, "15:00")!.getTime());
    expect(key.validUntil.getTime()).toBe(madridInstant(stay.endDate, "11:00")!.getTime());
    expect(key.doorIds).toEqual([roomDoor.id]);
    expect(key.entrances).toBe(true);

    await listCarries(entrance.bridge, key, true);
    await listCarries(roomBridge, key, true);
    const list = latestList(roomBridge)!;
    const qr = list.keys.find((entry) => entry.k === "qr" && entry.h === sha256(`${list.salt}qr:${key.qrToken}`));
    expect(qr).toEqual({ h: expect.any(String), k: "qr", win: [[key.validFrom.toISOString(), key.validUntil.toISOString()]], n: "Ana" });
    // Never the PIN or token in clear.
    const text = JSON.stringify(list);
    expect(text).not.toContain(key.pin);
    expect(text).not.toContain(key.qrToken);
    expect(listHasKey(latestList(other.bridge), key)).toBe(false);
  });

  it("is revoked by a cancellation, the house's or the guest's, and leaves the lists within a second", async () => {
    const entrance = await doorWithBridge("Portal B", true);
    const { room } = await roomWithDoor(`C${hexPrefix(2)}`);
    const byHouse = await currentStay();
    await changeReservationStatus(byHouse.id, "confirmed", new Date(), { roomId: room._id });
    const houseKey = (await getActiveKeyOfReservation(byHouse.id))!;
    await listCarries(entrance.bridge, houseKey, true);
    expect((await changeReservationStatus(byHouse.id, "cancelled")).ok).toBe(true);
    expect(await getActiveKeyOfReservation(byHouse.id)).toBeNull();
    await listCarries(entrance.bridge, houseKey, false);

    const byGuest = await currentStay();
    await changeReservationStatus(byGuest.id, "confirmed", new Date(), { roomId: room._id });
    const guestKey = (await getActiveKeyOfReservation(byGuest.id))!;
    await listCarries(entrance.bridge, guestKey, true);
    expect((await cancelGuestReservation(byGuest.reservationCode, byGuest.guestEmail, { ip: "192.0.2.1" })).ok).toBe(true);
    expect(await getActiveKeyOfReservation(byGuest.id)).toBeNull();
    await listCarries(entrance.bridge, guestKey, false);
  });

  it("follows a move to another room: same PIN, the old room's door drops it, the new one carries it", async () => {
    const first = await roomWithDoor(`M${hexPrefix(2)}`);
    const second = await roomWithDoor(`N${hexPrefix(2)}`);
    const stay = await currentStay();
    await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: first.room._id });
    const key = (await getActiveKeyOfReservation(stay.id))!;
    await listCarries(first.bridge, key, true);
    const moved = await moveReservationRoom(stay.id, second.room._id);
    if (!moved.ok) throw new Error(moved.message);
    const after = (await getActiveKeyOfReservation(stay.id))!;
    expect(after).toMatchObject({ id: key.id, pin: key.pin, qrToken: key.qrToken, doorIds: [second.door.id] });
    await listCarries(first.bridge, key, false);
    await listCarries(second.bridge, key, true);
  });

  it("follows new dates: same PIN and QR, refused online inside the old window only, granted inside the new one, the lists carry the new window", async () => {
    const entrance = await doorWithBridge("Portal F", true);
    const { room, bridge: roomBridge } = await roomWithDoor(`F${hexPrefix(2)}`);
    const stay = await currentStay();
    await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id });
    const key = (await getActiveKeyOfReservation(stay.id))!;
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true });
    await listCarries(roomBridge, key, true);

    const today = todayInMadrid();
    const [startDate, endDate] = [addDays(today, 2), addDays(today, 4)];
    const changed = await changeReservationDates(stay.id, { startDate, endDate });
    if (!changed.ok) throw new Error(changed.message);
    expect(changed.reservation).toMatchObject({ startDate, endDate, room: { _id: room._id } });
    const after = (await getActiveKeyOfReservation(stay.id))!;
    const [from, until] = [madridInstant(startDate, "15:00")!, madridInstant(endDate, "11:00")!];
    expect(after).toMatchObject({ id: key.id, pin: key.pin, qrToken: key.qrToken, doorIds: key.doorIds, validFrom: from, validUntil: until });

    // Now is inside the old window, not the new one: refused at once, by PIN and by QR.
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: false, reason: "outside_key_window" });
    expect(await roomBridge.scanQr(key.qrToken)).toMatchObject({ granted: false, reason: "outside_key_window" });
    // Every door's offline list carries the new window within a second.
    const newWindow = [[from.toISOString(), until.toISOString()]];
    for (const bridge of [entrance.bridge, roomBridge]) {
      await eventually(() => {
        const list = latestList(bridge);
        return JSON.stringify(list?.keys.find((entry) => entry.k === "qr" && entry.h === sha256(`${list.salt}qr:${key.qrToken}`))?.win) === JSON.stringify(newWindow);
      }, `the list of ${bridge.doorCode} with the new window`, 1000);
    }

    // Inside the new window (an hour after check-in), the same PIN opens.
    clockOffsetMs = from.getTime() + 3600_000 - Date.now();
    try {
      expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true, display: { line1: "Hola, Ana" } });
    } finally {
      clockOffsetMs = 0;
    }
  });

  it("keeps the stay and its key as they were when its room is taken on the new dates", async () => {
    const entrance = await doorWithBridge("Portal G", true);
    const { room } = await roomWithDoor(`G${hexPrefix(2)}`);
    const today = todayInMadrid();
    // Another guest has the room on days of its own, far beyond the fixtures' stays.
    const other = await createTestReservation({ roomType: "individual", startDate: addDays(today, 571), endDate: addDays(today, 574) });
    expect((await changeReservationStatus(other.id, "confirmed", new Date(), { roomId: room._id })).ok).toBe(true);
    const stay = await currentStay();
    await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id });
    const key = (await getActiveKeyOfReservation(stay.id))!;
    await listCarries(entrance.bridge, key, true);

    const refused = await changeReservationDates(stay.id, { startDate: addDays(today, 572), endDate: addDays(today, 575) });
    expect(refused).toMatchObject({ ok: false, status: 409, message: `La habitación ${room.name} no está libre en esas fechas` });
    expect(await getReservationById(stay.id)).toMatchObject({ startDate: stay.startDate, endDate: stay.endDate, roomId: room._id, status: "confirmed" });
    expect(await getActiveKeyOfReservation(stay.id)).toEqual(key);
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true });
    expect(listHasKey(latestList(entrance.bridge), key)).toBe(true);
  });

  it("follows the room's lock when the room is given another door", async () => {
    const { room, bridge: oldBridge } = await roomWithDoor(`L${hexPrefix(2)}`);
    const stay = await currentStay();
    await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id });
    const key = (await getActiveKeyOfReservation(stay.id))!;
    await listCarries(oldBridge, key, true);
    const { door: newDoor, bridge: newBridge } = await doorWithBridge("Cerradura nueva");
    expect((await updateRoom(room._id, { doorId: newDoor.code })).ok).toBe(true);
    expect((await getActiveKeyOfReservation(stay.id))!.doorIds).toEqual([newDoor.id]);
    await listCarries(oldBridge, key, false);
    await listCarries(newBridge, key, true);
  });

  it("never gives two keys with overlapping windows the same PIN", async () => {
    const { room } = await roomWithDoor(`P${hexPrefix(2)}`);
    const stay = await currentStay();
    await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id });
    const key = (await getActiveKeyOfReservation(stay.id))!;
    const draws = (...pins: string[]) => () => pins.shift()!;
    // Taken while the windows overlap: drawn again.
    expect(await freePin(key.validFrom, key.validUntil, undefined, draws(key.pin, "000001"))).toBe("000001");
    expect(await freePin(new Date(key.validUntil.getTime() - 1), new Date(key.validUntil.getTime() + 3600_000), undefined, draws(key.pin, "000002"))).toBe("000002");
    // Free once the windows do not overlap, or for the key itself.
    expect(await freePin(key.validUntil, new Date(key.validUntil.getTime() + 3600_000), undefined, draws(key.pin))).toBe(key.pin);
    expect(await freePin(key.validFrom, key.validUntil, key.id, draws(key.pin))).toBe(key.pin);
  });
});

describe("the windows", () => {
  it("of a sala: each booked day during SALA_HOURS; CHECKIN_TIME and CHECKOUT_TIME move a room stay's", () => {
    const sala = stayKeyWindows({ reservationType: "sala", startDate: "2026-12-10", endDate: "2026-12-12" });
    expect(sala).toEqual([
      [madridInstant("2026-12-10", "08:00")!.getTime(), madridInstant("2026-12-10", "21:00")!.getTime()],
      [madridInstant("2026-12-11", "08:00")!.getTime(), madridInstant("2026-12-11", "21:00")!.getTime()],
    ]);
    process.env.CHECKIN_TIME = "16:30";
    process.env.CHECKOUT_TIME = "10:00";
    process.env.SALA_HOURS = "09:00–20:00";
    resetEnvForTests();
    try {
      expect(stayKeyWindows({ reservationType: "habitacion", startDate: "2026-12-10", endDate: "2026-12-14" })).toEqual([
        [madridInstant("2026-12-10", "16:30")!.getTime(), madridInstant("2026-12-14", "10:00")!.getTime()],
      ]);
      expect(stayKeyWindows({ reservationType: "sala", startDate: "2026-12-10", endDate: "2026-12-11" })).toEqual([
        [madridInstant("2026-12-10", "09:00")!.getTime(), madridInstant("2026-12-10", "20:00")!.getTime()],
      ]);
    } finally {
      delete process.env.CHECKIN_TIME;
      delete process.env.CHECKOUT_TIME;
      delete process.env.SALA_HOURS;
      resetEnvForTests();
    }
  });
});
