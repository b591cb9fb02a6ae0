import crypto from "node:crypto";
import { and, eq, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { anonymousReservations, type AnonymousReservation } from "~/db/schema";
import {
  ADMIN_CANCELLABLE,
  ADMIN_CONFIRMABLE,
  GUEST_CANCELLABLE,
  RESERVATION_CODE_ALPHABET,
  type AdminReservationStatus,
  type ReservationInput,
} from "~/schemas/reservation";
import { createId } from "~/utils/crypto.server";
import { getDb, isUniqueViolation } from "~/utils/db.server";

export type { AnonymousReservation };

export function generateReservationCode(length = 8) {
  let code = "";
  for (let i = 0; i < length; i++) code += RESERVATION_CODE_ALPHABET[crypto.randomInt(RESERVATION_CODE_ALPHABET.length)];
  return code;
}

/** Stores a reservation under a fresh random code, retrying on a collision. */
export async function createReservation(input: ReservationInput & { ipAddress: string | null }) {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const [reservation] = await getDb()
        .insert(anonymousReservations)
        .values({ id: createId(), reservationCode: generateReservationCode(), ...input })
        .returning();
      return reservation!;
    } catch (error) {
      if (!isUniqueViolation(error, "reservation_code")) throw error;
    }
  }
  throw new Error("Could not find a free reservation code after 5 attempts");
}

export async function getReservationByCode(code: string) {
  return getDb().query.anonymousReservations.findFirst({
    where: eq(anonymousReservations.reservationCode, code.toUpperCase()),
  });
}

/** Cancels only if the reservation is still pending or confirmed; null otherwise. */
export async function cancelReservationByGuest(id: string, now = new Date()) {
  const [cancelled] = await getDb()
    .update(anonymousReservations)
    .set({ status: "cancelled", cancelledAt: now, updatedAt: now })
    .where(and(eq(anonymousReservations.id, id), inArray(anonymousReservations.status, [...GUEST_CANCELLABLE])))
    .returning();
  return cancelled ?? null;
}

export async function countReservations() {
  const [row] = await getDb().select({ n: sql<number>`count(*)` }).from(anonymousReservations);
  return Number(row?.n ?? 0);
}

// The admin's list. A pending or confirmed reservation whose exit day is
// before `today` (the building's date) counts and shows as completed: the
// stay is over, though no action stored it so (SPEC §4).
const r = anonymousReservations;
type Status = AnonymousReservation["status"];

const stayOver = (today: string) => lt(r.endDate, today);

/** The rows whose status, as the admin sees it today, is `status`. */
function shownStatusIs(status: Status, today: string): SQL {
  if (status === "completed") return or(eq(r.status, "completed"), and(inArray(r.status, ["pending", "confirmed"]), stayOver(today)))!;
  if (status === "cancelled") return eq(r.status, "cancelled");
  return and(eq(r.status, status), gte(r.endDate, today))!;
}

/**
 * The list's order: newest booking first, ties in the order of
 * anonymous_reservations_list_idx (created_at, status, end_date, rowid), so a
 * page is a walk down that index and no sort.
 */
const newestFirst = sql`created_at DESC, status DESC, end_date DESC, rowid DESC`;

/**
 * One page, newest booking first: the rowids of the page read from the list
 * index alone (its columns answer every status filter, and an OFFSET skips
 * index entries only), then those rows.
 */
export async function listReservations({ status }: { status?: Status }, today: string, { limit, offset }: { limit: number; offset: number }) {
  const filter = status ? shownStatusIs(status, today) : sql`1`;
  const page = sql`SELECT rowid FROM anonymous_reservations INDEXED BY anonymous_reservations_list_idx
    WHERE ${filter} ORDER BY ${newestFirst} LIMIT ${limit} OFFSET ${offset}`;
  return getDb().select().from(r).where(sql`rowid IN (${page})`).orderBy(newestFirst);
}

export type ReservationStatusCounts = Record<Status, number> & { total: number };

/** Every reservation by the status the admin sees today. */
export async function countReservationsByShownStatus(today: string): Promise<ReservationStatusCounts> {
  // Read in the order of anonymous_reservations_status_end_idx, from it alone.
  const rows = await getDb()
    .select({ status: r.status, over: sql<number>`coalesce(sum(${r.endDate} < ${today}), 0)`, count: sql<number>`count(*)` })
    .from(r)
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

export async function getReservationById(id: string) {
  return getDb().query.anonymousReservations.findFirst({ where: eq(r.id, id) });
}

/**
 * The admin confirms (pending only) or cancels (pending or confirmed) a
 * reservation whose stay is not over. The allowed statuses are checked in
 * the UPDATE itself, so a reservation the guest cancelled a moment ago is
 * never confirmed: null when the row is not (or no longer) in one of them.
 */
export async function setReservationStatusByAdmin(id: string, status: AdminReservationStatus, today: string, now = new Date()) {
  const [row] = await getDb()
    .update(r)
    .set(status === "confirmed" ? { status, confirmedAt: now, updatedAt: now } : { status, cancelledAt: now, updatedAt: now })
    .where(
      and(
        eq(r.id, id),
        inArray(r.status, status === "confirmed" ? [...ADMIN_CONFIRMABLE] : [...ADMIN_CANCELLABLE]),
        gte(r.endDate, today),
      ),
    )
    .returning();
  return row ?? null;
}

export async function setReservationNotes(id: string, adminNotes: string | null, now = new Date()) {
  const [row] = await getDb().update(r).set({ adminNotes, updatedAt: now }).where(eq(r.id, id)).returning();
  return row ?? null;
}
