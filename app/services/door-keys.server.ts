// Door keys (issue 29; docs/access-keys.md): a guest's confirmed stay holds a
// key, a 6-digit PIN and a QR token, that opens the building entrances and
// the stay's room door (a sala's door for a sala) inside its windows. The
// reservation services call syncStayKey inside their audited transaction
// whenever a stay is confirmed, cancelled or moved, then notify the doors it
// names once committed (architecture rule 8), so online decisions and offline lists follow.
import crypto from "node:crypto";
import * as keyModel from "~/models/door-key.server";
import { listDoorIdsForFacility } from "~/models/facility-booking.server";
import type { Stay } from "~/models/reservation.server";
import { getRoom } from "~/models/room.server";
import { addDays, madridInstant } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import { sha256 } from "~/utils/crypto.server";

/** Tries at a PIN no overlapping key has before giving up (a million PINs: it never runs out in a house). */
const PIN_TRIES = 50;
const QR_PREFIX = "LC1-";
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32, no padding. */
function base32(bytes: Buffer) {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** `LC1-` + base32 of 160 random bits (32 characters): one line a serial QR scanner sends. */
export function newQrToken() {
  return `${QR_PREFIX}${base32(crypto.randomBytes(20))}`;
}

export function qrHashOf(token: string) {
  return sha256(token);
}

function randomPin() {
  return String(crypto.randomInt(0, 1_000_000)).padStart(6, "0");
}

/**
 * A PIN no other active key has in an overlapping span (inside the caller's
 * write transaction, so two issuers cannot both take one); `draw` is for tests.
 */
export async function freePin(from: Date, until: Date, exceptId?: string, draw: () => string = randomPin) {
  for (let attempt = 0; attempt < PIN_TRIES; attempt++) {
    const pin = draw();
    if (!(await keyModel.isPinTaken(pin, from, until, exceptId))) return pin;
  }
  throw new Error("no free PIN for this window");
}

type Window = [number, number];

/**
 * A stay's windows in the building's zone: a room stay from its first day at
 * CHECKIN_TIME to its last at CHECKOUT_TIME; a sala on each booked day
 * ([startDate, endDate)) during SALA_HOURS.
 */
export function stayKeyWindows(stay: Pick<Stay, "reservationType" | "startDate" | "endDate">): Window[] {
  const env = getEnv();
  const at = (day: string, time: string) => (madridInstant(day, time) ?? madridInstant(day, "12:00")!).getTime();
  if (stay.reservationType === "sala") {
    const windows: Window[] = [];
    for (let day = stay.startDate; day < stay.endDate; day = addDays(day, 1)) windows.push([at(day, env.SALA_HOURS.from), at(day, env.SALA_HOURS.to)]);
    return windows;
  }
  return [[at(stay.startDate, env.CHECKIN_TIME), at(stay.endDate, env.CHECKOUT_TIME)]];
}

/** The doors a stay's key opens besides the entrances: its room's door, or its sala's doors. */
async function stayDoorIds(stay: Stay): Promise<string[]> {
  if (stay.reservationType === "sala") return stay.salaId ? listDoorIdsForFacility(stay.salaId) : [];
  if (!stay.roomId) return [];
  const room = await getRoom(stay.roomId);
  return room?.doorId ? [room.doorId] : [];
}

/** 'Huésped Ana López · LC7Q2M4A': how the log and the admin name a stay key's holder. */
export function stayHolderLabel(stay: Pick<Stay, "guestName" | "reservationCode">) {
  return `Huésped ${stay.guestName} · ${stay.reservationCode}`;
}

/**
 * Brings the stay's key in step with the stay: a confirmed stay gets one (or
 * keeps its PIN and token with new windows and doors), any other status has
 * it revoked. Runs inside the caller's audited transaction; answers the doors
 * (row ids) whose offline lists change, for notifyAccessChange after the commit.
 */
export async function syncStayKey(stay: Stay, now = new Date()): Promise<{ doorIds: string[] }> {
  const existing = await keyModel.getActiveKeyOfReservation(stay.id);
  if (stay.status !== "confirmed") {
    if (!existing) return { doorIds: [] };
    await keyModel.revokeKeysOfReservation(stay.id, now);
    return { doorIds: [...existing.doorIds, ...(await keyModel.listEntranceDoorIds())] };
  }
  const windows = stayKeyWindows(stay);
  if (windows.length === 0) return { doorIds: [] };
  const validFrom = new Date(windows[0]![0]);
  const validUntil = new Date(windows.at(-1)![1]);
  const doorIds = await stayDoorIds(stay);
  const holder = { holderLabel: stayHolderLabel(stay), holderFirstName: stay.guestName.trim().split(/\s+/)[0] ?? "" };
  const entrances = await keyModel.listEntranceDoorIds();
  if (existing) {
    const pin = (await keyModel.isPinTaken(existing.pin, validFrom, validUntil, existing.id)) ? await freePin(validFrom, validUntil, existing.id) : existing.pin;
    await keyModel.updateDoorKey(existing.id, { pin, windows, validFrom, validUntil, entrances: true, ...holder }, doorIds);
    return { doorIds: [...new Set([...existing.doorIds, ...doorIds, ...entrances])] };
  }
  const qrToken = newQrToken();
  await keyModel.insertDoorKey(
    {
      kind: "stay",
      reservationId: stay.id,
      pin: await freePin(validFrom, validUntil),
      qrToken,
      qrHash: qrHashOf(qrToken),
      windows,
      validFrom,
      validUntil,
      entrances: true,
      ...holder,
    },
    doorIds,
  );
  return { doorIds: [...new Set([...doorIds, ...entrances])] };
}

/** What a guest is shown of their stay's key (the lookup page, the API, the mail). */
export type StayAccess = {
  pin: string;
  qr: string;
  validFrom: string;
  validUntil: string;
  doors: { _id: string; name: string }[];
};

/** The confirmed stay's key, or null (pending, cancelled, none issued). */
export async function getStayAccess(stay: Pick<Stay, "id" | "status">): Promise<StayAccess | null> {
  if (stay.status !== "confirmed") return null;
  const key = await keyModel.getActiveKeyOfReservation(stay.id);
  if (!key) return null;
  const doors = await keyModel.listKeyDoors(key);
  return { pin: key.pin, qr: key.qrToken, validFrom: key.validFrom.toISOString(), validUntil: key.validUntil.toISOString(), doors };
}
