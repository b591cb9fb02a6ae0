// Facilities (the fixed catalogue of SPEC §3) and residents' bookings of
// them. A facility's confirmed bookings never overlap: the database refuses
// the write (trigger in drizzle/0009_facility_booking_no_overlap.sql), so
// insertBooking answers "overlap" instead of a row under any concurrency; it
// also refuses a sala a guest holds that day (drizzle/0013_rooms_inventory.sql).
// Every query of a resident's bookings names its owner in its where. The
// booking windows at doors (a booking opens the doors linked to its facility)
// are read here too, for the access service.
import { and, asc, desc, eq, gt, inArray, lte, ne, sql, type SQL } from "drizzle-orm";
import { doors, facilities, facilityBookings, users, type Facility, type FacilityBooking } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, type Database } from "~/utils/db.server";

export type { Facility, FacilityBooking };

const OVERLAP_ERROR = "facility_booking_overlap";
// A guest's meeting-room stay holds the sala that day (drizzle/0013_rooms_inventory.sql).
const GUEST_SALA_ERROR = "facility_booking_guest_sala";

export async function listFacilities() {
  return getDb().select().from(facilities).orderBy(asc(facilities.sortOrder), asc(facilities.name));
}

export async function getFacility(id: string) {
  return getDb().query.facilities.findFirst({ where: eq(facilities.id, id) });
}

export async function facilityExists(id: string) {
  const [row] = await getDb().select({ id: facilities.id }).from(facilities).where(eq(facilities.id, id)).limit(1);
  return Boolean(row);
}

/** A booking with the name and type of its facility. */
export type BookingWithFacility = FacilityBooking & { facilityName: string; facilityType: Facility["type"] };

const withFacility = {
  booking: facilityBookings,
  facilityName: facilities.name,
  facilityType: facilities.type,
};

function flatten(row: { booking: FacilityBooking; facilityName: string; facilityType: Facility["type"] }): BookingWithFacility {
  return { ...row.booking, facilityName: row.facilityName, facilityType: row.facilityType };
}

export type NewBooking = {
  userId: string;
  facilityId: string;
  startsAt: Date;
  endsAt: Date;
  durationHours: number;
  notes?: string | null;
};

/**
 * Inserts a confirmed booking unless the resident already has `maxActive`
 * bookings of this facility type that are not over yet (confirmed or pending,
 * ending after `now`): "limit"; or "overlap" when the database refuses the
 * slot, or "guest-sala" when a guest holds the sala on one of its days. The
 * count and the insert are one statement (an INSERT … SELECT … WHERE count <
 * limit), so simultaneous requests cannot go past the limit, and
 * no transaction stays open across an await (a second connection's BEGIN
 * would wait for it synchronously, with the event loop, and time out).
 */
export async function insertBooking(
  input: NewBooking,
  { facilityType, maxActive, now }: { facilityType: Facility["type"]; maxActive: number; now: Date },
): Promise<{ ok: true; booking: FacilityBooking } | { ok: false; reason: "overlap" | "limit" | "guest-sala" }> {
  const id = createId();
  try {
    const inserted = await getDb().run(sql`
      INSERT INTO facility_bookings (id, user_id, facility_id, starts_at, ends_at, duration_hours, notes, status)
      SELECT ${id}, ${input.userId}, ${input.facilityId}, ${input.startsAt.getTime()}, ${input.endsAt.getTime()}, ${input.durationHours},
             ${input.notes ?? null}, 'confirmed'
      WHERE (SELECT count(*) FROM facility_bookings b JOIN facilities f ON f.id = b.facility_id
             WHERE b.user_id = ${input.userId} AND f.type = ${facilityType}
               AND b.status IN ('confirmed', 'pending') AND b.ends_at > ${now.getTime()}) < ${maxActive}`);
    if (inserted.rowsAffected === 0) return { ok: false, reason: "limit" };
  } catch (error) {
    const text = `${String((error as { cause?: unknown })?.cause ?? "")} ${(error as Error)?.message ?? ""}`;
    if (text.includes(OVERLAP_ERROR)) return { ok: false, reason: "overlap" };
    if (text.includes(GUEST_SALA_ERROR)) return { ok: false, reason: "guest-sala" };
    throw error;
  }
  const [booking] = await getDb().select().from(facilityBookings).where(eq(facilityBookings.id, id));
  return { ok: true, booking: booking! };
}

/** A confirmed booking of the facility that overlaps [startsAt, endsAt), if any (to name the slot taken). */
export async function findOverlappingBooking(facilityId: string, startsAt: Date, endsAt: Date) {
  const [row] = await getDb()
    .select()
    .from(facilityBookings)
    .where(
      and(
        eq(facilityBookings.facilityId, facilityId),
        eq(facilityBookings.status, "confirmed"),
        sql`${facilityBookings.startsAt} < ${endsAt.getTime()}`,
        sql`${startsAt.getTime()} < ${facilityBookings.endsAt}`,
      ),
    )
    .orderBy(asc(facilityBookings.startsAt))
    .limit(1);
  return row;
}

/** Bookings with their facility's name and type: the start of every read of them. */
function selectWithFacility(db: Database) {
  return db.select(withFacility).from(facilityBookings).innerJoin(facilities, eq(facilities.id, facilityBookings.facilityId));
}

/**
 * The user's bookings for the portal: those not over yet (soonest first),
 * then up to `pastLimit` of those over (most recent first).
 */
export async function listBookingsOfUser(userId: string, now: Date, { pastLimit = 10 } = {}) {
  const db = getDb();
  const ofUser = eq(facilityBookings.userId, userId);
  const [upcoming, past] = await Promise.all([
    selectWithFacility(db)
      .where(and(ofUser, gt(facilityBookings.endsAt, now)))
      .orderBy(asc(facilityBookings.startsAt), asc(facilityBookings.id)),
    selectWithFacility(db)
      .where(and(ofUser, lte(facilityBookings.endsAt, now)))
      .orderBy(desc(facilityBookings.startsAt), desc(facilityBookings.id))
      .limit(pastLimit),
  ]);
  return [...upcoming, ...past].map(flatten);
}

/** The user's booking with this id; undefined when it is not theirs. */
export async function getBookingOfUser(userId: string, id: string) {
  const [row] = await selectWithFacility(getDb())
    .where(and(eq(facilityBookings.id, id), eq(facilityBookings.userId, userId)))
    .limit(1);
  return row ? flatten(row) : undefined;
}

/** Any booking (for admins). */
export async function getBookingById(id: string) {
  const [row] = await selectWithFacility(getDb())
    .where(eq(facilityBookings.id, id))
    .limit(1);
  return row ? flatten(row) : undefined;
}

/**
 * Cancels the booking unless it is cancelled already or over; `userId`
 * limits it to that owner's bookings (null: any owner, for admins). Answers
 * the cancelled row, or undefined when nothing matched.
 */
export async function cancelBooking(id: string, { userId, now }: { userId: string | null; now: Date }) {
  const [row] = await getDb()
    .update(facilityBookings)
    .set({ status: "cancelled", updatedAt: now })
    .where(
      and(
        eq(facilityBookings.id, id),
        userId === null ? undefined : eq(facilityBookings.userId, userId),
        ne(facilityBookings.status, "cancelled"),
        gt(facilityBookings.endsAt, now),
      ),
    )
    .returning();
  return row;
}

/** A booking with its facility and its resident's names (the admin's list and the calendar). */
export type BookingWithResident = BookingWithFacility & {
  username: string;
  firstName: string | null;
  lastName: string | null;
  unitNumber: string | null;
};

const withResident = {
  ...withFacility,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  unitNumber: users.unitNumber,
};

type RowWithResident = {
  booking: FacilityBooking;
  facilityName: string;
  facilityType: Facility["type"];
  username: string;
  firstName: string | null;
  lastName: string | null;
  unitNumber: string | null;
};

function flattenWithResident({ booking, facilityName, facilityType, ...resident }: RowWithResident): BookingWithResident {
  return { ...booking, facilityName, facilityType, ...resident };
}

type BookingsBetween = { facilityType?: Facility["type"]; facilityId?: string; from: Date; to: Date };

/** Confirmed bookings of the facilities of a type (or of one facility) overlapping [from, to), soonest first. */
export async function listConfirmedBookingsBetween({ facilityType, facilityId, from, to }: BookingsBetween) {
  const rows = await getDb()
    .select(withResident)
    .from(facilityBookings)
    .innerJoin(facilities, eq(facilities.id, facilityBookings.facilityId))
    .innerJoin(users, eq(users.id, facilityBookings.userId))
    .where(
      and(
        facilityType ? eq(facilities.type, facilityType) : undefined,
        facilityId ? eq(facilityBookings.facilityId, facilityId) : undefined,
        eq(facilityBookings.status, "confirmed"),
        sql`${facilityBookings.startsAt} < ${to.getTime()}`,
        sql`${facilityBookings.endsAt} > ${from.getTime()}`,
      ),
    )
    .orderBy(asc(facilityBookings.startsAt), asc(facilityBookings.id));
  return rows.map(flattenWithResident);
}

export type AdminBookingFilters = { facilityId?: string; resident?: string; from?: Date; to?: Date; id?: string };

function adminFilter({ facilityId, resident, from, to, id }: AdminBookingFilters): SQL | undefined {
  const pattern = resident ? `%${resident.replace(/[\\%_]/g, (char) => `\\${char}`)}%` : null;
  return and(
    id ? eq(facilityBookings.id, id) : undefined,
    facilityId ? eq(facilityBookings.facilityId, facilityId) : undefined,
    pattern
      ? sql`(${users.username} LIKE ${pattern} ESCAPE '\\' OR ${users.email} LIKE ${pattern} ESCAPE '\\'
          OR coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, '') LIKE ${pattern} ESCAPE '\\')`
      : undefined,
    from ? sql`${facilityBookings.endsAt} > ${from.getTime()}` : undefined,
    to ? sql`${facilityBookings.startsAt} < ${to.getTime()}` : undefined,
  );
}

/** Residents' bookings for the admin, latest start first: one page, and how many match. */
export async function listBookingsForAdmin(filters: AdminBookingFilters, { limit, offset }: { limit: number; offset: number }) {
  const rows = await getDb()
    .select(withResident)
    .from(facilityBookings)
    .innerJoin(facilities, eq(facilities.id, facilityBookings.facilityId))
    .innerJoin(users, eq(users.id, facilityBookings.userId))
    .where(adminFilter(filters))
    .orderBy(desc(facilityBookings.startsAt), desc(facilityBookings.id))
    .limit(limit)
    .offset(offset);
  return rows.map(flattenWithResident);
}

export async function countBookingsForAdmin(filters: AdminBookingFilters) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)` })
    .from(facilityBookings)
    .innerJoin(users, eq(users.id, facilityBookings.userId))
    .where(adminFilter(filters));
  return Number(row?.n ?? 0);
}

/** Row ids of the doors linked to the facility. */
export async function listDoorIdsForFacility(facilityId: string) {
  const rows = await getDb().select({ id: doors.id }).from(doors).where(eq(doors.facilityId, facilityId));
  return rows.map((row) => row.id);
}

// --- Booking windows at doors (for the access service) ---

/** [from, to) in epoch ms: from `leadMs` before a booking's start until its end. */
export type BookingWindow = { from: number; to: number };

type Executor = Pick<Database, "all">;

/**
 * The booking windows, at the given doors, of the given cards' holders: their
 * confirmed bookings of the facility each door is linked to, whose window
 * overlaps [from, to). A card with an explicit denial (a permission with
 * granted = false) on a door gets no window there. One statement; `executor`
 * is the access batch's transaction. Keyed by `${cardId}|${doorId}`.
 */
export async function readBookingWindows(
  executor: Executor,
  { cardNumbers, doorCodes, from, to, leadMs }: { cardNumbers: string[]; doorCodes: string[]; from: number; to: number; leadMs: number },
) {
  const windows = new Map<string, BookingWindow[]>();
  if (cardNumbers.length === 0 || doorCodes.length === 0) return windows;
  const rows = await executor.all<{ cardId: string; doorId: string; startsAt: number; endsAt: number }>(sql`
    SELECT c.id AS cardId, d.id AS doorId, b.starts_at AS startsAt, b.ends_at AS endsAt
    FROM cards c
    JOIN facility_bookings b ON b.user_id = c.user_id AND b.status = 'confirmed'
    JOIN doors d ON d.facility_id = b.facility_id
    WHERE c.card_number IN (SELECT value FROM json_each(${JSON.stringify(cardNumbers)}))
      AND d.door_id IN (SELECT value FROM json_each(${JSON.stringify(doorCodes)}))
      AND b.ends_at > ${from} AND b.starts_at - ${leadMs} < ${to}
      AND NOT EXISTS (SELECT 1 FROM card_permissions p WHERE p.card_id = c.id AND p.door_id = d.id AND p.granted = 0)
    ORDER BY b.starts_at`);
  for (const row of rows) {
    const key = `${row.cardId}|${row.doorId}`;
    const list = windows.get(key) ?? [];
    list.push({ from: Number(row.startsAt) - leadMs, to: Number(row.endsAt) });
    windows.set(key, list);
  }
  return windows;
}

/** readBookingWindows on what is committed now, outside any transaction (the access service's decisions). */
export function readCommittedBookingWindows(query: Parameters<typeof readBookingWindows>[1]) {
  return readBookingWindows(getDb(), query);
}

/**
 * The cards a door's offline list carries only for bookings: the cards of
 * residents with a confirmed booking of the door's facility whose window
 * overlaps [from, to), that would otherwise be granted (active, not expired,
 * holder active) and have no permission of their own on the door (a granted
 * one puts them in the list without windows; a denied one keeps them out).
 */
export async function listBookingWindowCardsForDoor(doorId: string, { from, to, leadMs }: { from: number; to: number; leadMs: number }) {
  const rows = await getDb().all<{ cardNumber: string; expiresAt: number | null; startsAt: number; endsAt: number }>(sql`
    SELECT c.card_number AS cardNumber, c.expires_at AS expiresAt, b.starts_at AS startsAt, b.ends_at AS endsAt
    FROM doors d
    JOIN facility_bookings b ON b.facility_id = d.facility_id AND b.status = 'confirmed'
    JOIN users u ON u.id = b.user_id AND u.status = 'active'
    JOIN cards c ON c.user_id = u.id AND c.status = 'active' AND (c.expires_at IS NULL OR c.expires_at > ${from})
    WHERE d.id = ${doorId}
      AND b.ends_at > ${from} AND b.starts_at - ${leadMs} < ${to}
      AND NOT EXISTS (SELECT 1 FROM card_permissions p WHERE p.card_id = c.id AND p.door_id = d.id)
    ORDER BY c.card_number, b.starts_at`);
  const byCard = new Map<string, { cardNumber: string; expiresAt: Date | null; windows: BookingWindow[] }>();
  for (const row of rows) {
    const card = byCard.get(row.cardNumber) ?? {
      cardNumber: row.cardNumber,
      expiresAt: row.expiresAt === null ? null : new Date(Number(row.expiresAt)),
      windows: [],
    };
    card.windows.push({ from: Number(row.startsAt) - leadMs, to: Number(row.endsAt) });
    byCard.set(row.cardNumber, card);
  }
  return [...byCard.values()];
}

/** Doors whose offline lists may carry these users' cards for their bookings (not over yet). */
export async function listBookingDoorIdsForUsers(userIds: string[], now = new Date()) {
  if (userIds.length === 0) return [];
  const rows = await getDb()
    .selectDistinct({ doorId: doors.id })
    .from(facilityBookings)
    .innerJoin(doors, eq(doors.facilityId, facilityBookings.facilityId))
    .where(and(inArray(facilityBookings.userId, userIds), eq(facilityBookings.status, "confirmed"), gt(facilityBookings.endsAt, now)));
  return rows.map((row) => row.doorId);
}

/** The same for the holders of these cards. */
export async function listBookingDoorIdsForCards(cardIds: string[], now = new Date()) {
  if (cardIds.length === 0) return [];
  const rows = await getDb().all<{ doorId: string }>(sql`
    SELECT DISTINCT d.id AS doorId
    FROM cards c
    JOIN facility_bookings b ON b.user_id = c.user_id AND b.status = 'confirmed' AND b.ends_at > ${now.getTime()}
    JOIN doors d ON d.facility_id = b.facility_id
    WHERE c.id IN (SELECT value FROM json_each(${JSON.stringify(cardIds)}))`);
  return rows.map((row) => row.doorId);
}
