// Residents' bookings of shared facilities, for the portal and its JSON
// API, and the admin's cancellation. The database refuses overlapping
// confirmed bookings (app/models/facility-booking.server.ts); a refused one
// is answered with the slot already taken. A booking of a facility linked to
// a door opens that door to the resident's cards during the booking, so
// every booking change is announced to the access service.
import { notifyAccessChange } from "~/access/notify.server";
import * as bookingModel from "~/models/facility-booking.server";
import type { AdminBookingFilters, BookingWithFacility, BookingWithResident, Facility } from "~/models/facility-booking.server";
import { listSalaHoldsBetween } from "~/models/reservation.server";
import type { User } from "~/models/user.server";
import { FACILITY_TYPES } from "~/db/schema-enums";
import { FACILITY_TYPE_LABELS, MAX_BOOKING_DAYS_AHEAD, type BookingInput, type BookingStatus, type FacilityType } from "~/schemas/facility-booking";
import { addDays, formatIsoDay, formatTime, formatTimeRange, madridDayOf, madridInstant, startOfMadridDay, todayInMadrid } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import { pageWindow } from "~/utils/paging";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";
import { notifyUser } from "./notifications.server";

export const BOOKING_NOT_FOUND = "Reserva no encontrada";

const HOUR_MS = 3600_000;

/** SPEC §3 facility, as the booking form and the API list them. */
export function toFacilityJson(facility: Facility) {
  return {
    _id: facility.id,
    type: facility.type,
    typeLabel: FACILITY_TYPE_LABELS[facility.type],
    name: facility.name,
    capacity: facility.capacity,
  };
}
export type FacilityJson = ReturnType<typeof toFacilityJson>;

export async function listFacilityCatalogue() {
  return (await bookingModel.listFacilities()).map(toFacilityJson);
}

/** SPEC §4: a confirmed booking that is over shows as completed. */
function shownStatus(booking: BookingWithFacility, now: Date): BookingStatus {
  if (booking.status === "confirmed" && booking.endsAt.getTime() <= now.getTime()) return "completed";
  return booking.status;
}

/** SPEC §3 resident booking (_id, facilityName, startTime, status, …), as the portal and the API see it. */
export function toBookingJson(booking: BookingWithFacility, now = new Date()) {
  const status = shownStatus(booking, now);
  return {
    _id: booking.id,
    facilityId: booking.facilityId,
    facilityName: booking.facilityName,
    facilityType: booking.facilityType,
    startTime: booking.startsAt.toISOString(),
    endTime: booking.endsAt.toISOString(),
    duration: booking.durationHours,
    notes: booking.notes,
    status,
    cancellable: status !== "cancelled" && status !== "completed",
    createdAt: booking.createdAt.toISOString(),
  };
}
export type BookingJson = ReturnType<typeof toBookingJson>;

export async function listResidentBookings(user: Pick<User, "id">, now = new Date()) {
  return (await bookingModel.listBookingsOfUser(user.id, now)).map((booking) => toBookingJson(booking, now));
}

/** The resident's booking with this id (for the cancel confirmation); 404 when it is not theirs. */
export async function getResidentBooking(user: Pick<User, "id">, bookingId: string, now = new Date()): Promise<Result<{ booking: BookingJson }>> {
  const booking = await bookingModel.getBookingOfUser(user.id, bookingId);
  return booking ? { ok: true, booking: toBookingJson(booking, now) } : refuse(404, BOOKING_NOT_FOUND);
}

/**
 * How many bookings of each facility type a resident may have that are not
 * over yet (MAX_ACTIVE_BOOKINGS, MAX_ACTIVE_BOOKINGS_BY_TYPE): a booking of a
 * door-linked facility opens that door, so unlimited bookings would be
 * standing access.
 */
export function activeBookingLimits(): Record<FacilityType, number> {
  const { MAX_ACTIVE_BOOKINGS, MAX_ACTIVE_BOOKINGS_BY_TYPE } = getEnv();
  return Object.fromEntries(FACILITY_TYPES.map((type) => [type, MAX_ACTIVE_BOOKINGS_BY_TYPE?.[type] ?? MAX_ACTIVE_BOOKINGS])) as Record<FacilityType, number>;
}

function tooManyActiveBookings(type: FacilityType, limit: number) {
  const bookings = limit === 1 ? "1 reserva activa" : `${limit} reservas activas`;
  return refuse(409, `Ya tienes ${bookings} de ${FACILITY_TYPE_LABELS[type]}, el máximo por residente. Cancela una o espera a que termine para reservar otra.`);
}

async function announceFacility(facilityId: string) {
  const doorIds = await bookingModel.listDoorIdsForFacility(facilityId);
  if (doorIds.length > 0) await notifyAccessChange({ doorIds });
}

/**
 * Books the facility for the resident: the facility must be of the chosen
 * type, the day between today and 90 days ahead (in Europe/Madrid), the start
 * still to come; a resident at their limit of active bookings of that type is
 * refused (409), and so is a slot overlapping a confirmed booking, naming it.
 */
export async function createResidentBooking(
  user: Pick<User, "id">,
  input: BookingInput,
  now = new Date(),
): Promise<Result<{ booking: BookingJson }>> {
  const facility = await bookingModel.getFacility(input.facilityId);
  if (!facility) return refuse(400, "La instalación no existe", { field: "facilityId" });
  if (facility.type !== input.facilityType) return refuse(400, "La instalación no corresponde al tipo elegido", { field: "facilityId" });
  const today = todayInMadrid(now);
  if (input.date < today) return refuse(400, "La fecha no puede ser anterior a hoy", { field: "date" });
  if (input.date > addDays(today, MAX_BOOKING_DAYS_AHEAD)) {
    return refuse(400, `Solo se puede reservar con un máximo de ${MAX_BOOKING_DAYS_AHEAD} días de antelación`, { field: "date" });
  }
  const startsAt = madridInstant(input.date, input.startTime);
  if (!startsAt) return refuse(400, "Esa hora no existe ese día por el cambio al horario de verano", { field: "startTime" });
  if (startsAt.getTime() <= now.getTime()) return refuse(400, "La hora de inicio ya ha pasado", { field: "startTime" });
  const endsAt = new Date(startsAt.getTime() + input.duration * HOUR_MS);

  const maxActive = activeBookingLimits()[facility.type];
  const inserted = await audited(async (audit) => {
    const stored = await bookingModel.insertBooking(
      { userId: user.id, facilityId: facility.id, startsAt, endsAt, durationHours: input.duration, notes: input.notes || null },
      { facilityType: facility.type, maxActive, now },
    );
    if (stored.ok) {
      audit({
        action: "booking.create",
        entityType: "booking",
        entityId: stored.booking.id,
        summary: `reservó ${facility.name} (${formatTimeRange(startsAt, endsAt)})`,
        after: { facility: facility.name, startsAt, endsAt, status: stored.booking.status, notes: stored.booking.notes },
      });
    }
    return stored;
  });
  if (!inserted.ok && inserted.reason === "limit") return tooManyActiveBookings(facility.type, maxActive);
  if (!inserted.ok && inserted.reason === "guest-sala") {
    // One calendar with guests' meeting rooms: a guest holds this sala all day.
    const [hold] = await listSalaHoldsBetween(facility.id, startsAt, endsAt);
    const day = madridDayOf(Math.max(startsAt.getTime(), hold?.heldFrom?.getTime() ?? 0));
    return refuse(409, `${facility.name} está reservada todo el día por un huésped el ${formatIsoDay(day)}. Elige otro día u otra sala.`);
  }
  if (!inserted.ok) {
    const taken = await bookingModel.findOverlappingBooking(facility.id, startsAt, endsAt);
    const slot = taken ? ` de ${formatTimeRange(taken.startsAt, taken.endsAt)}` : "";
    return refuse(409, `${facility.name} ya está reservada${slot}. Elige otro horario.`);
  }
  await announceFacility(facility.id);
  return {
    ok: true,
    booking: toBookingJson({ ...inserted.booking, facilityName: facility.name, facilityType: facility.type }, now),
  };
}

/** Why a cancellation was refused, once the booking is known to be the caller's (or, for admins, to exist). */
function notCancellable(booking: BookingWithFacility, now: Date) {
  if (booking.status === "cancelled") return refuse(409, "La reserva ya está cancelada");
  if (booking.endsAt.getTime() <= now.getTime()) return refuse(409, "No se puede cancelar una reserva que ya ha terminado");
  return refuse(409, "No se pudo cancelar la reserva");
}

/** SPEC §4: the resident cancels their booking unless it is cancelled already (or over). */
export async function cancelResidentBooking(user: Pick<User, "id">, bookingId: string, now = new Date()): Promise<Result<{ booking: BookingJson }>> {
  const cancelled = await cancelAudited(bookingId, user.id, now, "canceló su reserva de");
  const booking = await bookingModel.getBookingOfUser(user.id, bookingId);
  if (!booking) return refuse(404, BOOKING_NOT_FOUND);
  if (!cancelled) return notCancellable(booking, now);
  await announceFacility(booking.facilityId);
  return { ok: true, booking: toBookingJson(booking, now) };
}

/** An admin cancels a resident's booking; the resident is notified. */
export async function cancelBookingByAdmin(bookingId: string, _admin: Pick<User, "id">, now = new Date()): Promise<Result<{ booking: BookingJson }>> {
  const cancelled = await cancelAudited(bookingId, null, now, "canceló la reserva de");
  const booking = await bookingModel.getBookingById(bookingId);
  if (!booking) return refuse(404, BOOKING_NOT_FOUND);
  if (!cancelled) return notCancellable(booking, now);
  await notifyUser(booking.userId, {
    type: "booking",
    title: "Reserva cancelada",
    message: `La administración ha cancelado tu reserva de ${booking.facilityName} (${formatTimeRange(booking.startsAt, booking.endsAt)}).`,
  });
  await announceFacility(booking.facilityId);
  return { ok: true, booking: toBookingJson(booking, now) };
}

/** Cancels the booking (of `userId` only, unless null) with its event; false when it was not cancellable. */
function cancelAudited(bookingId: string, userId: string | null, now: Date, verb: string) {
  return audited(async (audit) => {
    const before = await bookingModel.getBookingById(bookingId);
    if (!before || !(await bookingModel.cancelBooking(bookingId, { userId, now }))) return false;
    audit({
      action: "booking.cancel",
      entityType: "booking",
      entityId: bookingId,
      summary: `${verb} ${before.facilityName} (${formatTimeRange(before.startsAt, before.endsAt)})`,
      before: { status: before.status },
      after: { status: "cancelled" },
    });
    return true;
  });
}

// --- The admin's list of residents' bookings, and a day's free slots ---

/** A resident's booking as the admin sees it: the booking and who made it. */
export function toAdminBookingJson(booking: BookingWithResident, now = new Date()) {
  const name = [booking.firstName, booking.lastName].filter(Boolean).join(" ");
  return {
    ...toBookingJson(booking, now),
    resident: { _id: booking.userId, username: booking.username, name: name || booking.username, unitNumber: booking.unitNumber },
  };
}
export type AdminBookingJson = ReturnType<typeof toAdminBookingJson>;

export type BookingFilters = { facilityId?: string; resident?: string; date?: string };

function modelFilters({ facilityId, resident, date }: BookingFilters): AdminBookingFilters {
  return { facilityId, resident, ...(date ? { from: startOfMadridDay(date), to: startOfMadridDay(addDays(date, 1)) } : {}) };
}

/** One page of residents' bookings (latest start first), filtered by facility, resident (name, username or email) and day. */
export async function listBookingsPage(filters: BookingFilters, paging: { page: number; limit: number; clamp?: boolean }, now = new Date()) {
  const criteria = modelFilters(filters);
  const total = await bookingModel.countBookingsForAdmin(criteria);
  const window = pageWindow(total, paging);
  const rows = total > 0 ? await bookingModel.listBookingsForAdmin(criteria, window) : [];
  return { bookings: rows.map((row) => toAdminBookingJson(row, now)), total, page: window.page, pages: window.pages, limit: window.limit };
}

export async function getAdminBooking(id: string, now = new Date()): Promise<Result<{ booking: AdminBookingJson }>> {
  const [booking] = await bookingModel.listBookingsForAdmin({ id }, { limit: 1, offset: 0 });
  return booking ? { ok: true, booking: toAdminBookingJson(booking, now) } : refuse(404, BOOKING_NOT_FOUND);
}

/** A slot of a day on the building's clock; the end of the day is "24:00". */
export type DaySlot = { startTime: string; endTime: string };

/** A facility's day: its free slots from now on, and what is taken ("guest": a guest holds the sala all day). */
export type DaySlots = { facilityId: string; facilityName: string; date: string; free: DaySlot[]; busy: Array<DaySlot & { kind: "booking" | "guest" }> };

/**
 * What is free and taken of a facility on a day (the portal's booking form
 * shows it before the resident submits): its confirmed bookings, a guest's
 * hold of a sala (the whole day), and the free slots between them from now on.
 */
export async function listDaySlots(facilityId: string, date: string, now = new Date()): Promise<Result<{ slots: DaySlots }>> {
  const facility = await bookingModel.getFacility(facilityId);
  if (!facility) return refuse(404, "La instalación no existe");
  const [from, to] = [startOfMadridDay(date), startOfMadridDay(addDays(date, 1))];
  const [bookings, holds] = await Promise.all([
    bookingModel.listConfirmedBookingsBetween({ facilityId, from, to }),
    facility.type === "meeting-room" ? listSalaHoldsBetween(facilityId, from, to) : Promise.resolve([]),
  ]);
  const clock = (instant: number) => (instant >= to.getTime() ? "24:00" : formatTime(Math.max(instant, from.getTime())));
  const taken = [
    ...holds.map((hold) => ({ from: hold.heldFrom!.getTime(), to: hold.heldTo!.getTime(), kind: "guest" as const })),
    ...bookings.map((booking) => ({ from: booking.startsAt.getTime(), to: booking.endsAt.getTime(), kind: "booking" as const })),
  ].sort((a, b) => a.from - b.from);
  const free: DaySlot[] = [];
  // Free time starts at the next whole minute from now on (a start must be in the future).
  let cursor = Math.max(from.getTime(), Math.ceil((now.getTime() + 1) / 60_000) * 60_000);
  for (const slot of taken) {
    if (slot.from > cursor) free.push({ startTime: clock(cursor), endTime: clock(Math.min(slot.from, to.getTime())) });
    cursor = Math.max(cursor, slot.to);
  }
  if (cursor < to.getTime()) free.push({ startTime: clock(cursor), endTime: "24:00" });
  return {
    ok: true,
    slots: {
      facilityId,
      facilityName: facility.name,
      date,
      free,
      busy: taken.map((slot) => ({ startTime: clock(slot.from), endTime: clock(slot.to), kind: slot.kind })),
    },
  };
}
