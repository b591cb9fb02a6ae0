// Guests' reservations ("stays"). The rules of the inventory are the
// database's (triggers in drizzle/0013_rooms_inventory.sql): the open stays
// of a room type never need more rooms on a night than there are in service,
// a room is never given to two stays on one night, and a meeting-room stay
// holds one sala for whole days that neither another guest nor a resident
// has. Each write here is one statement, so whatever the concurrency, of any
// number of requests for the last K rooms exactly K are stored; a refused
// write answers its reason instead of a row.
import crypto from "node:crypto";
import { and, asc, eq, getTableColumns, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { anonymousReservations, facilities, rooms, type AnonymousReservation, type Room } from "~/db/schema";
import {
  ADMIN_CANCELLABLE,
  ADMIN_CONFIRMABLE,
  GUEST_CANCELLABLE,
  RESERVATION_CODE_ALPHABET,
  type ReservationInput,
} from "~/schemas/reservation";
import { createId } from "~/utils/crypto.server";
import { getDb, isUniqueViolation, likePattern } from "~/utils/db.server";

export type { AnonymousReservation };

/** A reservation with the name of its room or sala (null while it has none). */
export type Stay = AnonymousReservation & { roomName: string | null; salaName: string | null };

/** Why the database refused a stay (the triggers' texts, see the migration). */
export type StayRefusal = "rooms-full" | "salas-full" | "room-taken" | "room-unfit" | "sala-taken" | "sala-resident";

const REFUSALS: Array<[string, StayRefusal]> = [
  ["reservation_rooms_full", "rooms-full"],
  ["reservation_salas_full", "salas-full"],
  ["reservation_room_taken", "room-taken"],
  ["reservation_room_unfit", "room-unfit"],
  ["reservation_sala_taken", "sala-taken"],
  ["reservation_sala_resident", "sala-resident"],
];

function stayRefusalOf(error: unknown): StayRefusal | null {
  const text = `${String((error as { cause?: unknown })?.cause ?? "")} ${(error as Error)?.message ?? ""}`;
  return REFUSALS.find(([code]) => text.includes(code))?.[1] ?? null;
}

const r = anonymousReservations;
const OPEN = ["pending", "confirmed"] as const;

const withPlace = { ...getTableColumns(r), roomName: rooms.name, salaName: facilities.name };

function selectStays() {
  return getDb().select(withPlace).from(r).leftJoin(rooms, eq(rooms.id, r.roomId)).leftJoin(facilities, eq(facilities.id, r.salaId));
}

/**
 * One guarded UPDATE of a stay (the triggers refuse a place that is taken):
 * the stay as it is now, null when `where` matched no row, or the triggers' refusal.
 */
async function updateStay(where: SQL | undefined, fields: SQLiteUpdateSetSource<typeof r>): Promise<{ ok: true; reservation: Stay } | { ok: false; reason: StayRefusal } | null> {
  try {
    const [row] = await getDb().update(r).set(fields).where(where).returning({ id: r.id });
    return row ? { ok: true, reservation: (await getReservationById(row.id))! } : null;
  } catch (error) {
    const reason = stayRefusalOf(error);
    if (reason) return { ok: false, reason };
    throw error;
  }
}

export function generateReservationCode(length = 8) {
  let code = "";
  for (let i = 0; i < length; i++) code += RESERVATION_CODE_ALPHABET[crypto.randomInt(RESERVATION_CODE_ALPHABET.length)];
  return code;
}

/** The instants a meeting-room stay holds its sala: Madrid's midnights of its entry and exit days. */
export type SalaHold = { heldFrom: Date; heldTo: Date };

/** SQL: the first sala (by the catalogue's order; `preferId` before the others) free for the whole hold, or NULL. */
function freeSalaSql({ heldFrom, heldTo }: SalaHold, exceptStayId: string | null = null, preferId: string | null = null) {
  const [from, to] = [heldFrom.getTime(), heldTo.getTime()];
  return sql`(SELECT f.id FROM facilities f
    WHERE f.type = 'meeting-room'
      AND NOT EXISTS (SELECT 1 FROM facility_bookings b
        WHERE b.facility_id = f.id AND b.status = 'confirmed' AND b.starts_at < ${to} AND ${from} < b.ends_at)
      AND NOT EXISTS (SELECT 1 FROM anonymous_reservations s
        WHERE s.sala_id = f.id AND s.status IN ('pending', 'confirmed') AND s.id IS NOT ${exceptStayId}
          AND s.held_from < ${to} AND ${from} < s.held_to)
    ORDER BY f.id IS NOT ${preferId}, f.sort_order, f.name LIMIT 1)`;
}

/**
 * Stores a guest's reservation under a fresh random code (retrying on a
 * collision). A room stay is refused when its type is full on one of its
 * nights; a meeting-room stay takes the first sala free for all its days, and
 * is refused when there is none.
 */
export async function createReservation(
  input: ReservationInput & { ipAddress: string | null },
  hold: SalaHold | null = null,
): Promise<{ ok: true; reservation: Stay } | { ok: false; reason: StayRefusal }> {
  const place = input.reservationType === "sala" && hold ? { salaId: freeSalaSql(hold), heldFrom: hold.heldFrom, heldTo: hold.heldTo } : {};
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const [row] = await getDb()
        .insert(r)
        .values({ id: createId(), reservationCode: generateReservationCode(), ...input, ...place })
        .returning({ id: r.id });
      return { ok: true, reservation: (await getReservationById(row!.id))! };
    } catch (error) {
      const reason = stayRefusalOf(error);
      if (reason) return { ok: false, reason };
      if (!isUniqueViolation(error, "reservation_code")) throw error;
    }
  }
  throw new Error("Could not find a free reservation code after 5 attempts");
}

export async function getReservationByCode(code: string): Promise<Stay | undefined> {
  const [row] = await selectStays().where(eq(r.reservationCode, code.toUpperCase())).limit(1);
  return row;
}

export async function getReservationById(id: string): Promise<Stay | undefined> {
  const [row] = await selectStays().where(eq(r.id, id)).limit(1);
  return row;
}

/** Cancels only if the reservation is still pending or confirmed; null otherwise. */
export async function cancelReservationByGuest(id: string, now = new Date()) {
  const [cancelled] = await getDb()
    .update(r)
    .set({ status: "cancelled", cancelledAt: now, updatedAt: now })
    .where(and(eq(r.id, id), inArray(r.status, [...GUEST_CANCELLABLE])))
    .returning({ id: r.id });
  return cancelled ? ((await getReservationById(cancelled.id)) ?? null) : null;
}

export async function countReservations() {
  const [row] = await getDb().select({ n: sql<number>`count(*)` }).from(r);
  return Number(row?.n ?? 0);
}

// --- Availability ---

/**
 * The most rooms of the type that open stays use on one night of [startDate,
 * endDate): the busiest night is the first or one on which a stay starts.
 */
export async function busiestNight(roomType: Room["roomType"], startDate: string, endDate: string) {
  const [row] = await getDb().all<{ n: number | null }>(sql`
    SELECT max((
      SELECT count(*) FROM anonymous_reservations s
      WHERE s.reservation_type = 'habitacion' AND s.room_type = ${roomType} AND s.status IN ('pending', 'confirmed')
        AND s.end_date > nights.night AND s.start_date <= nights.night
    )) AS n
    FROM (
      SELECT ${startDate} AS night
      UNION
      SELECT o.start_date FROM anonymous_reservations o
      WHERE o.reservation_type = 'habitacion' AND o.room_type = ${roomType} AND o.status IN ('pending', 'confirmed')
        AND o.end_date > ${startDate} AND o.start_date > ${startDate} AND o.start_date < ${endDate}
    ) AS nights`);
  return Number(row?.n ?? 0);
}

/**
 * The salas (meeting-room facilities, in the catalogue's order) and whether
 * each is free for the whole hold (the stay `exceptStayId` aside).
 */
export async function listSalasForHold({ heldFrom, heldTo }: SalaHold, exceptStayId: string | null = null) {
  const [from, to] = [heldFrom.getTime(), heldTo.getTime()];
  const rows = await getDb().all<{ id: string; name: string; capacity: number | null; free: number }>(sql`
    SELECT f.id, f.name, f.capacity,
      NOT EXISTS (SELECT 1 FROM facility_bookings b
        WHERE b.facility_id = f.id AND b.status = 'confirmed' AND b.starts_at < ${to} AND ${from} < b.ends_at)
      AND NOT EXISTS (SELECT 1 FROM anonymous_reservations s
        WHERE s.sala_id = f.id AND s.status IN ('pending', 'confirmed') AND s.id IS NOT ${exceptStayId}
          AND s.held_from < ${to} AND ${from} < s.held_to) AS free
    FROM facilities f WHERE f.type = 'meeting-room' ORDER BY f.sort_order, f.name`);
  return rows.map((row) => ({ id: row.id, name: row.name, capacity: row.capacity === null ? null : Number(row.capacity), free: Boolean(Number(row.free)) }));
}

// --- Confirmation and rooms ---

type StayNights = Pick<AnonymousReservation, "id" | "roomType" | "startDate" | "endDate">;

/**
 * SQL: the rooms of the stay's type in service and free for all its nights
 * (its own room aside), the best fit first: the room whose last stay ends
 * nearest before this one starts, so free nights stay together.
 */
function freeRoomsSql(stay: StayNights, columns: SQL, limit: number) {
  return sql`SELECT ${columns} FROM rooms rm
    WHERE rm.room_type = ${stay.roomType} AND rm.status = 'available'
      AND NOT EXISTS (SELECT 1 FROM anonymous_reservations s
        WHERE s.room_id = rm.id AND s.id <> ${stay.id} AND s.status IN ('pending', 'confirmed')
          AND s.start_date < ${stay.endDate} AND ${stay.startDate} < s.end_date)
    ORDER BY (SELECT max(p.end_date) FROM anonymous_reservations p
        WHERE p.room_id = rm.id AND p.status IN ('pending', 'confirmed') AND p.end_date <= ${stay.startDate}) DESC NULLS LAST,
      rm.floor, length(rm.name), rm.name
    LIMIT ${limit}`;
}

/** SQL: the free room that fits the stay best, or NULL. */
const freeRoomSql = (stay: StayNights) => sql`(${freeRoomsSql(stay, sql`rm.id`, 1)})`;

/** The rooms the stay could have (for the admin's choice), best fit first. */
export async function listFreeRoomsForStay(stay: StayNights) {
  const rows = await getDb().all<{ id: string; name: string; floor: number }>(freeRoomsSql(stay, sql`rm.id, rm.name, rm.floor`, 1000));
  return rows.map((row) => ({ id: row.id, name: row.name, floor: Number(row.floor) }));
}

export type ConfirmOutcome =
  | { ok: true; reservation: Stay }
  | { ok: false; reason: StayRefusal | "not-confirmable" | "no-free-room" };

/**
 * The admin confirms a pending reservation whose stay is not over, giving it
 * a room of its type (`roomId`, or the free one that fits best) or, for a
 * meeting room, keeping the sala it holds (`roomId` another sala; a stay
 * booked before salas were held gets the first free one). One statement: two
 * confirmations at once never get the same room. The allowed status is
 * checked by the write itself, so a reservation the guest cancelled a moment
 * ago is never confirmed.
 */
export async function confirmReservation(
  stay: Pick<AnonymousReservation, "id" | "reservationType" | "roomType" | "startDate" | "endDate" | "salaId">,
  { roomId, hold, today, now = new Date() }: { roomId?: string; hold: SalaHold | null; today: string; now?: Date },
): Promise<ConfirmOutcome> {
  const confirmable = and(eq(r.id, stay.id), inArray(r.status, [...ADMIN_CONFIRMABLE]), gte(r.endDate, today));
  let place: Partial<Record<"roomId" | "salaId", SQL | string>> & Partial<SalaHold> = {};
  let needsPlace: SQL | undefined;
  if (stay.reservationType === "habitacion") {
    const room = roomId ?? freeRoomSql(stay);
    place = { roomId: room };
    needsPlace = sql`${room} IS NOT NULL`;
  } else if (roomId || !stay.salaId) {
    const sala = roomId ?? (hold ? freeSalaSql(hold, stay.id) : null);
    if (sala === null) return { ok: false, reason: "no-free-room" };
    place = { salaId: sala, ...(hold ?? {}) };
    needsPlace = sql`${sala} IS NOT NULL`;
  }
  const updated = await updateStay(and(confirmable, needsPlace), { status: "confirmed", confirmedAt: now, updatedAt: now, ...place });
  if (updated) return updated;
  const [still] = await getDb().select({ id: r.id }).from(r).where(confirmable).limit(1);
  return { ok: false, reason: still ? "no-free-room" : "not-confirmable" };
}

/**
 * Moves a confirmed stay that is not over to another room of its type (or
 * another sala); the database refuses a room that is taken, of another type
 * or out of service. "not-movable" when the stay is not (or no longer) one.
 */
export async function moveReservation(stay: Pick<AnonymousReservation, "id" | "reservationType">, placeId: string, today: string, now = new Date()) {
  const place = stay.reservationType === "habitacion" ? { roomId: placeId } : { salaId: placeId };
  const updated = await updateStay(and(eq(r.id, stay.id), eq(r.status, "confirmed"), gte(r.endDate, today)), { ...place, updatedAt: now });
  return updated ?? { ok: false as const, reason: "not-movable" as const };
}

export type DatesOutcome = { ok: true; reservation: Stay } | { ok: false; reason: StayRefusal | "not-changeable" | "no-free-room" };

/**
 * New nights for a pending or confirmed stay that is not over, in one
 * statement the inventory's triggers check: a room stay keeps the room it
 * has (refused when it is taken on a new night, or the type is full); a
 * confirmed sala stay keeps its sala (refused when it is held or booked on a
 * new day); a pending one keeps it if free on all the new days, else takes
 * the first free sala. "not-changeable" when the stay is not (or no longer)
 * one in the state it was read in.
 */
export async function changeReservationDates(
  stay: Pick<AnonymousReservation, "id" | "reservationType" | "status" | "salaId">,
  { startDate, endDate, hold }: { startDate: string; endDate: string; hold: SalaHold | null },
  today: string,
  now = new Date(),
): Promise<DatesOutcome> {
  const changeable = and(eq(r.id, stay.id), eq(r.status, stay.status), inArray(r.status, [...OPEN]), gte(r.endDate, today));
  let place: Partial<Record<"salaId", SQL>> & Partial<SalaHold> = {};
  let needsPlace: SQL | undefined;
  if (stay.reservationType === "sala" && hold) {
    place = { ...hold };
    if (stay.status === "pending" || !stay.salaId) {
      const sala = freeSalaSql(hold, stay.id, stay.salaId);
      place.salaId = sala;
      needsPlace = sql`${sala} IS NOT NULL`;
    }
  }
  const updated = await updateStay(and(changeable, needsPlace), { startDate, endDate, updatedAt: now, ...place });
  if (updated) return updated;
  const [still] = await getDb().select({ id: r.id }).from(r).where(changeable).limit(1);
  return { ok: false, reason: still ? "no-free-room" : "not-changeable" };
}

/** Cancels a pending or confirmed reservation whose stay is not over; null when it is not (or no longer) one. */
export async function cancelReservationByAdmin(id: string, today: string, now = new Date()) {
  const [row] = await getDb()
    .update(r)
    .set({ status: "cancelled", cancelledAt: now, updatedAt: now })
    .where(and(eq(r.id, id), inArray(r.status, [...ADMIN_CANCELLABLE]), gte(r.endDate, today)))
    .returning({ id: r.id });
  return row ? ((await getReservationById(row.id)) ?? null) : null;
}

export async function setReservationNotes(id: string, adminNotes: string | null, now = new Date()) {
  const [row] = await getDb().update(r).set({ adminNotes, updatedAt: now }).where(eq(r.id, id)).returning({ id: r.id });
  return row ? ((await getReservationById(row.id)) ?? null) : null;
}

// --- The admin's list ---
// A pending or confirmed reservation whose exit day is before `today` (the
// building's date) counts and shows as completed: the stay is over, though no
// action stored it so (SPEC §4).
type Status = AnonymousReservation["status"];

const stayOver = (today: string) => lt(r.endDate, today);

/** The rows whose status, as the admin sees it today, is `status`. */
function shownStatusIs(status: Status, today: string): SQL {
  if (status === "completed") return or(eq(r.status, "completed"), and(inArray(r.status, ["pending", "confirmed"]), stayOver(today)))!;
  if (status === "cancelled") return eq(r.status, "cancelled");
  return and(eq(r.status, status), gte(r.endDate, today))!;
}

/** The code is the text (any case), or the guest's name or email contains it (case ignored for unaccented letters). */
function searchMatches(search: string): SQL {
  const pattern = likePattern(search);
  return sql`(${r.reservationCode} = ${search.toUpperCase()} OR ${r.guestName} LIKE ${pattern} ESCAPE '\\' OR ${r.guestEmail} LIKE ${pattern} ESCAPE '\\')`;
}

/**
 * The list's order: newest booking first, ties in the order of
 * anonymous_reservations_list_idx (created_at, status, end_date, rowid), so a
 * page is a walk down that index and no sort.
 */
const newestFirst = sql`created_at DESC, status DESC, end_date DESC, rowid DESC`;

export type ReservationListFilters = { status?: Status; search?: string };

/**
 * One page, newest booking first: the rowids of the page read from the list
 * index (its columns answer every status filter, and an OFFSET skips index
 * entries only; a search reads the rows it walks), then those rows.
 */
export async function listReservations({ status, search }: ReservationListFilters, today: string, { limit, offset }: { limit: number; offset: number }) {
  const filter = and(status ? shownStatusIs(status, today) : sql`1`, search ? searchMatches(search) : undefined)!;
  const page = sql`SELECT rowid FROM anonymous_reservations INDEXED BY anonymous_reservations_list_idx
    WHERE ${filter} ORDER BY ${newestFirst} LIMIT ${limit} OFFSET ${offset}`;
  return selectStays().where(sql`${r}.rowid IN (${page})`).orderBy(sql`${r.createdAt} DESC, ${r.status} DESC, ${r.endDate} DESC, ${r}.rowid DESC`);
}

export type ReservationStatusCounts = Record<Status, number> & { total: number };

/** Every reservation (or those the search matches) by the status the admin sees today. */
export async function countReservationsByShownStatus(today: string, search?: string): Promise<ReservationStatusCounts> {
  // Without a search: in the order of anonymous_reservations_status_end_idx, from it alone.
  const rows = await getDb()
    .select({ status: r.status, over: sql<number>`coalesce(sum(${r.endDate} < ${today}), 0)`, count: sql<number>`count(*)` })
    .from(r)
    .where(search ? searchMatches(search) : undefined)
    .groupBy(r.status);
  const counts: ReservationStatusCounts = { total: 0, pending: 0, confirmed: 0, cancelled: 0, completed: 0 };
  for (const row of rows) {
    const over = Number(row.over);
    const count = Number(row.count);
    if (row.status === "pending" || row.status === "confirmed") {
      counts[row.status] += count - over;
      counts.completed += over;
    } else {
      counts[row.status] += count;
    }
    counts.total += count;
  }
  return counts;
}

// --- The calendar ---

/** Stays that are not cancelled and have a night in [from, to) (days "YYYY-MM-DD"), by entry day. */
export async function listStaysBetween(from: string, to: string) {
  return selectStays()
    .where(and(inArray(r.status, [...OPEN, "completed"]), sql`${r.endDate} > ${from}`, sql`${r.startDate} < ${to}`))
    .orderBy(asc(r.startDate), asc(r.reservationCode));
}

/** Open stays holding the sala during [from, to) (epoch instants), for a day's free slots. */
export async function listSalaHoldsBetween(salaId: string, from: Date, to: Date) {
  return getDb()
    .select({ id: r.id, heldFrom: r.heldFrom, heldTo: r.heldTo })
    .from(r)
    .where(and(eq(r.salaId, salaId), inArray(r.status, [...OPEN]), sql`${r.heldFrom} < ${to.getTime()}`, sql`${r.heldTo} > ${from.getTime()}`))
    .orderBy(asc(r.heldFrom));
}
