// Issue 40, point 1, as it was found: with one entrance's bridge account
// (over MQTT, the real access service and its embedded broker, doors played
// by FakeBridge) the attacker reads that door's retained offline list and
// tries all 10^6 PINs against its salted verifiers. Nothing recovered may
// open any other door, online or offline; the guest still opens the entrance
// (and their room) with their one PIN online, and with their QR offline.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsMessage } from "~/doors/contract";
import { getActiveKeyOfReservation } from "~/models/door-key.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { createRoom } from "~/services/rooms.server";
import { createVisitorPass } from "~/services/visitor-passes.server";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import { eventually } from "../../bridge/src/test-support/eventually";
import { FakeDoorChain } from "../setup/door-chain";
import { createTestCard, createTestReservation, hexPrefix } from "../setup/fixtures";

const chain = new FakeDoorChain("kol");

beforeAll(() => chain.start());
afterAll(() => chain.stop());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** What the attack recovers: every 6-digit PIN whose verifier is on the list. */
function bruteForcePins(list: CredentialsMessage) {
  const verifiers = new Set(list.keys.filter((key) => key.k === "pin").map((key) => key.h));
  const found: string[] = [];
  if (verifiers.size === 0) return found;
  for (let n = 0; n < 1_000_000; n++) {
    const pin = String(n).padStart(6, "0");
    if (verifiers.has(sha256(`${list.salt}pin:${pin}`))) found.push(pin);
  }
  return found;
}

describe("one door's offline list", () => {
  it("yields, by brute force of all 10^6 PINs, no code that opens another door", async () => {
    const entrance = await chain.door("Portal robado", { entrance: true });
    const otherEntrance = await chain.door("Portal trasero", { entrance: true });
    const roomDoor = await chain.door(`Habitación ${hexPrefix(2)}`);
    const room = await createRoom({ name: `R${hexPrefix(3)}`, floor: 1, roomType: "individual", doorId: roomDoor.door.code, status: "available" });
    if (!room.ok) throw new Error(room.message);

    // A guest staying now, and a resident's two visitor passes for tomorrow: one for the stolen entrance alone, one for both entrances.
    const today = todayInMadrid();
    const stay = await createTestReservation({ guestName: "Ana López", roomType: "individual", startDate: addDays(today, -1), endDate: addDays(today, 1) });
    expect((await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room.room._id })).ok).toBe(true);
    const key = (await getActiveKeyOfReservation(stay.id))!;
    const { user } = await createTestCard(hexPrefix(4), [entrance.door.id, otherEntrance.door.id], { firstName: "Carlos" });
    const visit = { visitorEmail: "bea@example.com", date: addDays(today, 1), startTime: "09:00", endTime: "11:00" };
    const single = await createVisitorPass(user!, { ...visit, visitorName: "Bea", doorIds: [entrance.door.code] });
    const both = await createVisitorPass(user!, { ...visit, visitorName: "Luis", doorIds: [entrance.door.code, otherEntrance.door.code] });
    if (!single.ok || !both.ok) throw new Error("the passes were refused");

    // The door's account receives its retained list: the stay and both passes are on it (their QR entries).
    const listed = (list: CredentialsMessage | undefined, token: string) => Boolean(list?.keys.some((entry) => entry.k === "qr" && entry.h === sha256(`${list.salt}qr:${token}`)));
    const list = await eventually(() => {
      const latest = entrance.bridge.latest("credentials")?.json as CredentialsMessage | undefined;
      return [key.qrToken, single.pass.qr, both.pass.qr].every((token) => listed(latest, token)) ? latest : null;
    }, "the stolen entrance's list with the three keys");

    // Only the PIN that opens this door alone is recoverable.
    const recovered = bruteForcePins(list!);
    expect(recovered).toEqual([single.pass.pin]);

    // Online, inside the passes' window: what was recovered opens the stolen entrance only.
    chain.clockOffsetMs = madridInstant(visit.date, "09:30")!.getTime() - Date.now();
    try {
      for (const pin of recovered) {
        expect(await entrance.bridge.typePin(pin)).toMatchObject({ granted: true });
        expect(await otherEntrance.bridge.typePin(pin)).toMatchObject({ granted: false, reason: "invalid_key" });
        expect(await roomDoor.bridge.typePin(pin)).toMatchObject({ granted: false, reason: "invalid_key" });
      }
      // The pass for both entrances still opens both with its one PIN, online.
      expect(await otherEntrance.bridge.typePin(both.pass.pin)).toMatchObject({ granted: true });
    } finally {
      chain.clockOffsetMs = 0;
    }
    // The guest keeps one code: their PIN opens the entrances and their room, online.
    expect(await entrance.bridge.typePin(key.pin)).toMatchObject({ granted: true, display: { line1: "Hola, Ana" } });
    expect(await roomDoor.bridge.typePin(key.pin)).toMatchObject({ granted: true, reason: "granted" });
    // No list of any door carries a verifier of a PIN that opens more than that door.
    for (const bridge of [otherEntrance.bridge, roomDoor.bridge]) {
      const other = bridge.latest("credentials")?.json as CredentialsMessage;
      expect(other.keys.filter((entry) => entry.k === "pin" && [key.pin, both.pass.pin].some((pin) => entry.h === sha256(`${other.salt}pin:${pin}`)))).toEqual([]);
    }
  });
});
