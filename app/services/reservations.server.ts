// Guests' reservations as the house manages them, shared by
// /admin/reservations and the admin calls of /api/anonymous-reservations:
// the list with its stats, confirming and cancelling (each mails the guest),
// moving a stay to another room, new dates, and the admin's notes. What a
// guest does with their own reservation is in
// visitor.server.ts.
import { reservationCancelledByHouseMail, reservationConfirmedByHouseMail, reservationDatesChangedMail } from "~/mail/visitor-mail.server";
import { getFacility } from "~/models/facility-booking.server";
import * as reservationModel from "~/models/reservation.server";
import type { AnonymousReservation, Stay, StayRefusal } from "~/models/reservation.server";
import { getRoom } from "~/models/room.server";
import { ROOM_TYPE_WORDS } from "~/schemas/room";
import { stayDays, type AdminReservationStatus, type ReservationDates, type ReservationFilters } from "~/schemas/reservation";
import { todayInMadrid } from "~/utils/dates";
import { trySendMail } from "~/utils/mail.server";
import { qrPng } from "~/utils/qr-code.server";
import { pageWindow } from "~/utils/paging";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { notifyAccessChange } from "~/access/notify.server";
import { audited } from "./audit.server";
import { getStayAccess, syncStayKey } from "./door-keys.server";
import { fullRefusal, salaHold } from "./availability.server";
import { toGuestView } from "./visitor.server";

export const RESERVATION_NOT_FOUND = "Reserva no encontrada";
export const RESERVATION_REFUSALS = {
  notConfirmable: "Solo se puede confirmar una reserva pendiente",
  notCancellable: "Solo se puede cancelar una reserva pendiente o confirmada",
  stayOver: "La estancia de esta reserva ya ha terminado",
  notMovable: "Solo se puede cambiar la habitación de una reserva confirmada cuya estancia no ha terminado",
  roomNotFound: "Habitación no encontrada",
  salaNotFound: "Sala no encontrada",
  notRedatable: "Solo se pueden cambiar las fechas de una reserva pendiente o confirmada",
} as const;

/** SPEC §4: a pending or confirmed reservation whose exit day has passed shows as completed. */
export function shownStatus(reservation: Pick<AnonymousReservation, "status" | "endDate">, today: string): AnonymousReservation["status"] {
  const open = reservation.status === "pending" || reservation.status === "confirmed";
  return open && reservation.endDate < today ? "completed" : reservation.status;
}

/** SPEC §3 stored reservation as the admin sees it: the status shown today, the stay's days, when it was cancelled, its room. */
export function toAdminReservationJson(reservation: Stay, today = todayInMadrid()) {
  return {
    ...toGuestView(reservation),
    status: shownStatus(reservation, today),
    days: stayDays(reservation.startDate, reservation.endDate),
    cancelledAt: reservation.cancelledAt ? reservation.cancelledAt.toISOString() : null,
  };
}
export type AdminReservationJson = ReturnType<typeof toAdminReservationJson>;

/** One page (newest booking first) with the stats of every reservation. */
export async function listReservationsPage(filters: ReservationFilters, paging: { page: number; limit: number; clamp?: boolean }, now = new Date()) {
  const today = todayInMadrid(now);
  const counts = await reservationModel.countReservationsByShownStatus(today, filters.search);
  const total = filters.status ? counts[filters.status] : counts.total;
  const window = pageWindow(total, paging);
  const rows = total > 0 ? await reservationModel.listReservations(filters, today, window) : [];
  return {
    reservations: rows.map((row) => toAdminReservationJson(row, today)),
    stats: counts,
    total,
    page: window.page,
    pages: window.pages,
    limit: window.limit,
  };
}

export async function getAdminReservation(id: string, now = new Date()): Promise<Result<{ reservation: AdminReservationJson }>> {
  const reservation = await reservationModel.getReservationById(id);
  return reservation ? { ok: true, reservation: toAdminReservationJson(reservation, todayInMadrid(now)) } : refuse(404, RESERVATION_NOT_FOUND);
}

/** Why a stay cannot have the room (or sala) it asked for, or cannot be confirmed: the 409 that names it. */
async function placeRefusal(stay: Stay, reason: StayRefusal | "no-free-room", placeId: string | undefined): Promise<Refusal> {
  if (reason === "no-free-room" || reason === "rooms-full" || reason === "salas-full" || !placeId) return fullRefusal(stay);
  if (stay.reservationType === "sala") {
    const sala = await getFacility(placeId);
    return refuse(409, `${sala?.name ?? "La sala"} no está libre en esas fechas`);
  }
  const room = await getRoom(placeId);
  return refuse(409, `La habitación ${room?.name ?? placeId} no está libre en esas fechas`);
}

/** The room (or sala) the admin chose is one the stay could have: it exists, is of its type and in service. */
async function checkChosenPlace(stay: Stay, placeId: string): Promise<Refusal | null> {
  if (stay.reservationType === "sala") {
    const sala = await getFacility(placeId);
    return sala?.type === "meeting-room" ? null : refuse(404, RESERVATION_REFUSALS.salaNotFound, { field: "roomId" });
  }
  const room = await getRoom(placeId);
  if (!room) return refuse(404, RESERVATION_REFUSALS.roomNotFound, { field: "roomId" });
  if (room.roomType !== stay.roomType) {
    return refuse(409, `La habitación ${room.name} no es ${stay.roomType ? ROOM_TYPE_WORDS[stay.roomType].one : "de ese tipo"}`, { field: "roomId" });
  }
  if (room.status !== "available") return refuse(409, `La habitación ${room.name} está fuera de servicio`, { field: "roomId" });
  return null;
}

/** Why a stay the admin acted on is not (or no longer) in a state for it. */
async function stateRefusal(id: string, today: string, notAllowed: string): Promise<Refusal> {
  const current = await reservationModel.getReservationById(id);
  if (!current) return refuse(404, RESERVATION_NOT_FOUND);
  if (shownStatus(current, today) === "completed") return refuse(409, RESERVATION_REFUSALS.stayOver);
  return refuse(409, notAllowed);
}

/** The confirmed stay's key as its mail carries it (with the QR as a PNG), or null. */
async function mailedAccess(stay: Stay) {
  const access = await getStayAccess(stay);
  return access ? { ...access, qrPng: await qrPng(access.qr) } : null;
}

/**
 * SPEC §4: the admin confirms a pending reservation or cancels a pending or
 * confirmed one, while the stay is not over; the guest gets a mail either
 * way. A confirmation gives the stay a room of its type (`roomId`, or the
 * free one that fits best) or keeps the sala it holds (`roomId`: another);
 * the database never gives one room to two stays on one night. The allowed
 * statuses are checked by the write itself, so a guest's cancellation a
 * moment earlier wins over a confirmation.
 */
export async function changeReservationStatus(
  id: string,
  status: AdminReservationStatus,
  now = new Date(),
  { roomId }: { roomId?: string } = {},
): Promise<Result<{ reservation: AdminReservationJson; emailSent: boolean }>> {
  const today = todayInMadrid(now);
  let changed: Stay | null;
  if (status === "confirmed") {
    const stay = await reservationModel.getReservationById(id);
    if (!stay) return refuse(404, RESERVATION_NOT_FOUND);
    if (roomId) {
      const unfit = await checkChosenPlace(stay, roomId);
      if (unfit) return unfit;
    }
    const hold = stay.reservationType === "sala" ? salaHold(stay.startDate, stay.endDate) : null;
    let keyDoorIds: string[] = [];
    const confirmed = await audited(async (audit) => {
      const result = await reservationModel.confirmReservation(stay, { roomId, hold, today, now });
      if (result.ok) {
        // The confirmed stay's key (PIN and QR) opens its doors from check-in to check-out.
        keyDoorIds = (await syncStayKey(result.reservation, now)).doorIds;
        audit({
          action: "reservation.confirm",
          entityType: "reservation",
          entityId: id,
          summary: `confirmó la reserva ${result.reservation.reservationCode} de ${result.reservation.guestName}`,
          before: { status: stay.status, roomId: stay.roomId },
          after: { status: result.reservation.status, roomId: result.reservation.roomId },
        });
      }
      return result;
    });
    if (!confirmed.ok) {
      if (confirmed.reason === "not-confirmable") return stateRefusal(id, today, RESERVATION_REFUSALS.notConfirmable);
      return placeRefusal(stay, confirmed.reason, roomId);
    }
    changed = confirmed.reservation;
    await notifyAccessChange({ doorIds: keyDoorIds });
  } else {
    let keyDoorIds: string[] = [];
    changed = await audited(async (audit) => {
      const before = await reservationModel.getReservationById(id);
      const cancelled = before ? await reservationModel.cancelReservationByAdmin(id, today, now) : null;
      if (!before || !cancelled) return null;
      // Its key is revoked: the doors refuse it at once.
      keyDoorIds = (await syncStayKey(cancelled, now)).doorIds;
      audit({
        action: "reservation.cancel",
        entityType: "reservation",
        entityId: id,
        summary: `canceló la reserva ${cancelled.reservationCode} de ${cancelled.guestName}`,
        before: { status: before.status },
        after: { status: cancelled.status },
      });
      return cancelled;
    });
    if (!changed) return stateRefusal(id, today, RESERVATION_REFUSALS.notCancellable);
    await notifyAccessChange({ doorIds: keyDoorIds });
  }
  const mail = status === "confirmed" ? reservationConfirmedByHouseMail(changed, await mailedAccess(changed)) : reservationCancelledByHouseMail(changed);
  const emailSent = await trySendMail(mail);
  return { ok: true, reservation: toAdminReservationJson(changed, today), emailSent };
}

/**
 * Moves a confirmed stay that is not over to another free room of its type
 * (or another free sala); refused naming the room when it is taken.
 */
export async function moveReservationRoom(id: string, roomId: string, now = new Date()): Promise<Result<{ reservation: AdminReservationJson }>> {
  const today = todayInMadrid(now);
  const stay = await reservationModel.getReservationById(id);
  if (!stay) return refuse(404, RESERVATION_NOT_FOUND);
  const unfit = await checkChosenPlace(stay, roomId);
  if (unfit) return unfit;
  let keyDoorIds: string[] = [];
  const moved = await audited(async (audit) => {
    const result = await reservationModel.moveReservation(stay, roomId, today, now);
    if (result.ok) {
      // The key follows the stay: the old room's door refuses it, the new one opens.
      keyDoorIds = (await syncStayKey(result.reservation, now)).doorIds;
      audit({
        action: "reservation.room",
        entityType: "reservation",
        entityId: id,
        summary: `cambió la habitación de la reserva ${result.reservation.reservationCode}`,
        before: { roomId: stay.roomId },
        after: { roomId: result.reservation.roomId },
      });
    }
    return result;
  });
  if (!moved.ok) {
    if (moved.reason === "not-movable") return stateRefusal(id, today, RESERVATION_REFUSALS.notMovable);
    return placeRefusal(stay, moved.reason, roomId);
  }
  await notifyAccessChange({ doorIds: keyDoorIds });
  return { ok: true, reservation: toAdminReservationJson(moved.reservation, today) };
}

/**
 * New dates for a pending or confirmed stay that is not over, within the
 * rooms inventory (issue 28): a confirmed stay keeps its room (or sala) only
 * if it is free on the new nights, and is refused naming it otherwise; a
 * pending one needs a free room of its type (or a free sala) as a booking
 * does. Read and written in one write transaction, so two changes cannot
 * race. A confirmed stay's key follows (issue 29): new windows, the same QR
 * and PIN (a new PIN only if the old one now overlaps another key's), and its
 * doors hear of it once committed.
 */
export async function changeReservationDates(
  id: string,
  { startDate, endDate }: ReservationDates,
  now = new Date(),
): Promise<Result<{ reservation: AdminReservationJson; emailSent: boolean }>> {
  const today = todayInMadrid(now);
  let keyDoorIds: string[] = [];
  const changed = await audited(async (audit) => {
    const stay = await reservationModel.getReservationById(id);
    if (!stay) return { ok: false as const, reason: "not-changeable" as const, stay };
    const open = (stay.status === "pending" || stay.status === "confirmed") && stay.endDate >= today;
    // The same dates: nothing to write.
    if (open && stay.startDate === startDate && stay.endDate === endDate) return { ok: true as const, reservation: stay, stay };
    const hold = stay.reservationType === "sala" ? salaHold(startDate, endDate) : null;
    const result = await reservationModel.changeReservationDates(stay, { startDate, endDate, hold }, today, now);
    if (result.ok) {
      // The key's windows follow the new dates; the doors it opens stay the same.
      keyDoorIds = (await syncStayKey(result.reservation, now)).doorIds;
      audit({
        action: "reservation.dates",
        entityType: "reservation",
        entityId: id,
        summary: `cambió las fechas de la reserva ${result.reservation.reservationCode}`,
        before: { startDate: stay.startDate, endDate: stay.endDate, salaId: stay.salaId },
        after: { startDate: result.reservation.startDate, endDate: result.reservation.endDate, salaId: result.reservation.salaId },
      });
    }
    return { ...result, stay };
  });
  if (!changed.ok) {
    if (changed.reason === "not-changeable" || !changed.stay) return stateRefusal(id, today, RESERVATION_REFUSALS.notRedatable);
    const { stay } = changed;
    const keptPlace = stay.reservationType === "sala" ? (stay.status === "confirmed" ? (stay.salaId ?? undefined) : undefined) : (stay.roomId ?? undefined);
    return placeRefusal({ ...stay, startDate, endDate }, changed.reason, keptPlace);
  }
  await notifyAccessChange({ doorIds: keyDoorIds });
  const moved = changed.stay.startDate !== changed.reservation.startDate || changed.stay.endDate !== changed.reservation.endDate;
  const emailSent = moved ? await trySendMail(reservationDatesChangedMail(changed.reservation, await mailedAccess(changed.reservation))) : false;
  return { ok: true, reservation: toAdminReservationJson(changed.reservation, today), emailSent };
}

/** The rooms (or salas) a stay could be given now, best fit first, for the admin's choice. */
export async function listPlacesForStay(reservation: Pick<AdminReservationJson, "_id" | "reservationType" | "roomType" | "startDate" | "endDate">) {
  if (reservation.reservationType === "sala") {
    const salas = await reservationModel.listSalasForHold(salaHold(reservation.startDate, reservation.endDate), reservation._id);
    return salas.filter((sala) => sala.free).map((sala) => ({ _id: sala.id, name: sala.name }));
  }
  const rooms = await reservationModel.listFreeRoomsForStay({ id: reservation._id, roomType: reservation.roomType, startDate: reservation.startDate, endDate: reservation.endDate });
  return rooms.map((room) => ({ _id: room.id, name: room.name }));
}

/** The admin's notes (the guest sees them when looking the reservation up); empty clears them. */
export async function saveReservationNotes(id: string, adminNotes: string | null | undefined, now = new Date()): Promise<Result<{ reservation: AdminReservationJson }>> {
  const notes = adminNotes || null;
  const saved = await audited(async (audit) => {
    const before = await reservationModel.getReservationById(id);
    if (!before || before.adminNotes === notes) return before;
    const updated = await reservationModel.setReservationNotes(id, notes, now);
    if (!updated) return null;
    audit({
      action: "reservation.notes",
      entityType: "reservation",
      entityId: id,
      summary: `cambió las notas de la reserva ${updated.reservationCode}`,
      before: { adminNotes: before.adminNotes },
      after: { adminNotes: updated.adminNotes },
    });
    return updated;
  });
  return saved ? { ok: true, reservation: toAdminReservationJson(saved, todayInMadrid(now)) } : refuse(404, RESERVATION_NOT_FOUND);
}
