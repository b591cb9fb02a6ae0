// Guests' reservations ("stays"). The rules of the inventory are the
// database's (triggers in drizzle/0013_rooms_inventory.sql): the open stays
// of a room type never need more rooms on a night than there are in service,
// a room is never given to two stays on one night, and a meeting-room stay
// holds one sala for whole days that neither another guest nor a resident
// has. Each write here is one statement, so whatever the concurrency, of any
// number of requests for the last K rooms exactly K are stored; a refused
// write answers its reason instead of a row. A pending stay holds its place
// only from its hold's start to its lapse (holdsSql, issue 40).
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

/**
 * SQL: the stay (a row of anonymous_reservations under `alias`) holds its
 * place at `now` (epoch ms): confirmed, or pending, not awaiting its guest's
 * email (no link token, or the link followed: `held_since`) and not lapsed
 * (issue 40). The inventory's triggers say the same with the
 * database's clock (drizzle/0029_pending_holds.sql).
 */
export function holdsSql(alias: string, now: number) {
  const a = sql.raw(alias);
  return sql`(${a}.status = 'confirmed' OR (${a}.status = 'pending' AND (${a}.held_since IS NOT NULL OR ${a}.email_token_hash IS NULL) AND (${a}.expires_at IS NULL OR ${a}.expires_at > ${now})))`;
}

/** The stay awaits its guest's email (its first mail's link), holding nothing until then. */
export function awaitsEmail(stay: Pick<AnonymousReservation, "heldSince" | "emailTokenHash">) {
  return stay.heldSince === null && stay.emailTokenHash !== null;
}

/** SQL: the stay is confirmed by the house (what an availability without the pending holds counts). */
function confirmedSql(alias: string) {
  return sql`(${sql.raw(alias)}.status = 'confirmed')`;
}

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
function freeSalaSql({ heldFrom, heldTo }: SalaHold, exceptStayId: string | null = null, preferId: string | null = null, now = Date.now()) {
  const [from, to] = [heldFrom.getTime(), heldTo.getTime()];
  return sql`(SELECT f.id FROM facilities f
    WHERE f.type = 'meeting-room'
      AND NOT EXISTS (SELECT 1 FROM facility_bookings b
        WHERE b.facility_id = f.id AND b.status = 'confirmed' AND b.starts_at < ${to} AND ${from} < b.ends_at)
      AND NOT EXISTS (SELECT 1 FROM anonymous_reservations s
        WHERE s.sala_id = f.id AND ${holdsSql("s", now)} AND s.id IS NOT ${exceptStayId}
          AND s.held_from < ${to} AND ${from} < s.held_to)
    ORDER BY f.id IS NOT ${preferId}, f.sort_order, f.name LIMIT 1)`;
}

/**
 * How a new pending stay waits (issue 40): with `emailTokenHash` (the
 * SHA-256 of its first mail's link token) and no `heldSince`, it awaits the
 * guest's email and holds nothing; otherwise it holds from `heldSince`.
 * `expiresAt`: when it lapses (null: never, as a stay stored without one).
 */
export type PendingTerms = { heldSince: Date | null; expiresAt: Date | null; emailTokenHash: string | null };

/**
 * Stores a guest's reservation under a fresh random code (retrying on a
 * collision). A stay that holds (by default it does, at once) is refused when
 * its room type is full on one of its nights; a meeting-room stay that holds
 * takes the first sala free for all its days, and is refused when there is
 * none. A stay awaiting its guest's email holds nothing and gets its sala
 * when it begins to hold (confirmStayEmail).
 */
export async function createReservation(
  input: ReservationInput & { ipAddress: string | null },
  hold: SalaHold | null = null,
  terms: PendingTerms = { heldSince: new Date(), expiresAt: null, emailTokenHash: null },
): Promise<{ ok: true; reservation: Stay } | { ok: false; reason: StayRefusal }> {
  const place =
    input.reservationType === "sala" && hold
      ? { ...(awaitsEmail(terms) ? {} : { salaId: freeSalaSql(hold) }), heldFrom: hold.heldFrom, heldTo: hold.heldTo }
      : {};
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const [row] = await getDb()
        .insert(r)
        .values({ id: createId(), reservationCode: generateReservationCode(), ...input, ...terms, ...place })
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

/**
 * Whether a stay could not hold now: its room type full on one of its nights,
 * or no sala free on all its days (a booking that awaits its guest's email
 * is refused then, though the triggers only check stays that hold).
 */
export async function stayWouldBeFull(input: Pick<ReservationInput, "reservationType" | "roomType" | "startDate" | "endDate">, hold: SalaHold | null, now = Date.now()): Promise<StayRefusal | null> {
  if (input.reservationType === "sala") {
    if (!hold) return "salas-full";
    const [row] = await getDb().all<{ id: string | null }>(sql`SELECT ${freeSalaSql(hold, null, null, now)} AS id`);
    return row?.id ? null : "salas-full";
  }
  if (!input.roomType) return null;
  const [row] = await getDb().all<{ rooms: number }>(sql`SELECT count(*) AS rooms FROM rooms WHERE room_type = ${input.roomType} AND status = 'available'`);
  return Number(row?.rooms ?? 0) <= (await busiestNight(input.roomType, input.startDate, input.endDate, { now })) ? "rooms-full" : null;
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

/** Pending stays of this email that have not lapsed (the email compared in lower case). */
export async function countOpenPendingForEmail(email: string, now = new Date()) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)` })
    .from(r)
    .where(and(eq(r.status, "pending"), sql`lower(${r.guestEmail}) = ${email.toLowerCase()}`, sql`(${r.expiresAt} IS NULL OR ${r.expiresAt} > ${now.getTime()})`));
  return Number(row?.n ?? 0);
}

/** Pending stays booked from this client address since `since` that have not lapsed. */
export async function countOpenPendingFromAddress(ipAddress: string, since: Date, now = new Date()) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)` })
    .from(r)
    .where(and(eq(r.status, "pending"), eq(r.ipAddress, ipAddress), gte(r.createdAt, since), sql`(${r.expiresAt} IS NULL OR ${r.expiresAt} > ${now.getTime()})`));
  return Number(row?.n ?? 0);
}

export type EmailConfirmOutcome =
  | { ok: true; reservation: Stay }
  | { ok: false; reason: StayRefusal | "no-free-room" | "not-awaiting" };

/**
 * The guest confirmed their email with the link's token: a pending stay
 * awaiting it and not lapsed begins to hold, until `expiresAt`, in one
 * statement the inventory's triggers check (a full room type refuses it); a
 * meeting-room stay takes the first sala free on all its days. The token's
 * hash stays, so the same link again is recognised. "not-awaiting" when the
 * token does not match a stay that awaits it.
 */
export async function confirmStayEmail(
  stay: Pick<AnonymousReservation, "id" | "reservationType" | "heldFrom" | "heldTo">,
  tokenHash: string,
  { now, expiresAt }: { now: Date; expiresAt: Date },
): Promise<EmailConfirmOutcome> {
  const awaiting = and(
    eq(r.id, stay.id),
    eq(r.status, "pending"),
    sql`${r.heldSince} IS NULL`,
    eq(r.emailTokenHash, tokenHash),
    sql`${r.expiresAt} > ${now.getTime()}`,
  );
  let place: { salaId?: SQL } = {};
  let needsPlace: SQL | undefined;
  if (stay.reservationType === "sala" && stay.heldFrom && stay.heldTo) {
    const sala = freeSalaSql({ heldFrom: stay.heldFrom, heldTo: stay.heldTo }, stay.id, null, now.getTime());
    place = { salaId: sala };
    needsPlace = sql`${sala} IS NOT NULL`;
  }
  const updated = await updateStay(and(awaiting, needsPlace), { heldSince: now, expiresAt, updatedAt: now, ...place });
  if (updated) return updated;
  const [still] = await getDb().select({ id: r.id }).from(r).where(awaiting).limit(1);
  return { ok: false, reason: still ? "no-free-room" : "not-awaiting" };
}

/** Pending stays whose time ran out at `now` (the oldest first), for the release job. */
export async function listLapsedPendingStays(now: Date, limit = 100) {
  return getDb()
    .select({ id: r.id })
    .from(r)
    .where(and(eq(r.status, "pending"), sql`${r.expiresAt} <= ${now.getTime()}`))
    .orderBy(asc(r.expiresAt))
    .limit(limit);
}

/**
 * Releases a pending stay whose time ran out: cancelled, with `lapsedAt`
 * saying why (the admin sees it as 'Caducada'). Null when it is not (or no
 * longer) one, e.g. another process released it a moment earlier or the
 * house confirmed it.
 */
export async function expirePendingStay(id: string, now = new Date()) {
  const [row] = await getDb()
    .update(r)
    .set({ status: "cancelled", cancelledAt: now, lapsedAt: now, updatedAt: now })
    .where(and(eq(r.id, id), eq(r.status, "pending"), sql`${r.expiresAt} <= ${now.getTime()}`))
    .returning({ id: r.id });
  return row ? ((await getReservationById(row.id)) ?? null) : null;
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
export async function busiestNight(roomType: Room["roomType"], startDate: string, endDate: string, { now = Date.now(), confirmedOnly = false }: { now?: number; confirmedOnly?: boolean } = {}) {
  const counted = (alias: string) => (confirmedOnly ? confirmedSql(alias) : holdsSql(alias, now));
  const [row] = await getDb().all<{ n: number | null }>(sql`
    SELECT max((
      SELECT count(*) FROM anonymous_reservations s
      WHERE s.reservation_type = 'habitacion' AND s.room_type = ${roomType} AND s.status IN ('pending', 'confirmed') AND ${counted("s")}
        AND s.end_date > nights.night AND s.start_date <= nights.night
    )) AS n
    FROM (
      SELECT ${startDate} AS night
      UNION
      SELECT o.start_date FROM anonymous_reservations o
      WHERE o.reservation_type = 'habitacion' AND o.room_type = ${roomType} AND o.status IN ('pending', 'confirmed') AND ${counted("o")}
        AND o.end_date > ${startDate} AND o.start_date > ${startDate} AND o.start_date < ${endDate}
    ) AS nights`);
  return Number(row?.n ?? 0);
}

/**
 * The salas (meeting-room facilities, in the catalogue's order) and whether
 * each is free for the whole hold (the stay `exceptStayId` aside).
 */
export async function listSalasForHold({ heldFrom, heldTo }: SalaHold, exceptStayId: string | null = null, now = Date.now()) {
  const [from, to] = [heldFrom.getTime(), heldTo.getTime()];
  const rows = await getDb().all<{ id: string; name: string; capacity: number | null; free: number; pendingOnly: number }>(sql`
    SELECT f.id, f.name, f.capacity,
      NOT EXISTS (SELECT 1 FROM facility_bookings b
        WHERE b.facility_id = f.id AND b.status = 'confirmed' AND b.starts_at < ${to} AND ${from} < b.ends_at)
      AND NOT EXISTS (SELECT 1 FROM anonymous_reservations s
        WHERE s.sala_id = f.id AND ${holdsSql("s", now)} AND s.id IS NOT ${exceptStayId}
          AND s.held_from < ${to} AND ${from} < s.held_to) AS free,
      NOT EXISTS (SELECT 1 FROM facility_bookings b
        WHERE b.facility_id = f.id AND b.status = 'confirmed' AND b.starts_at < ${to} AND ${from} < b.ends_at)
      AND NOT EXISTS (SELECT 1 FROM anonymous_reservations s
        WHERE s.sala_id = f.id AND s.status = 'confirmed' AND s.id IS NOT ${exceptStayId}
          AND s.held_from < ${to} AND ${from} < s.held_to) AS pendingOnly
    FROM facilities f WHERE f.type = 'meeting-room' ORDER BY f.sort_order, f.name`);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    capacity: row.capacity === null ? null : Number(row.capacity),
    free: Boolean(Number(row.free)),
    /** Taken only by stays the house has not confirmed yet (pending holds, which may lapse). */
    heldUnconfirmed: !Number(row.free) && Boolean(Number(row.pendingOnly)),
  }));
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
export async function listSalaHoldsBetween(salaId: string, from: Date, to: Date, now = Date.now()) {
  return getDb()
    .select({ id: r.id, heldFrom: r.heldFrom, heldTo: r.heldTo })
    .from(r)
    .where(and(eq(r.salaId, salaId), inArray(r.status, [...OPEN]), holdsSql("anonymous_reservations", now), sql`${r.heldFrom} < ${to.getTime()}`, sql`${r.heldTo} > ${from.getTime()}`))
    .orderBy(asc(r.heldFrom));
}
