// Guests' reservations as the house manages them, shared by
// /admin/reservations and the admin calls of /api/anonymous-reservations:
// the list with its stats, confirming and cancelling (each mails the guest)
// and the admin's notes. What a guest does with their own reservation is in
// visitor.server.ts.
import { reservationCancelledByHouseMail, reservationConfirmedByHouseMail } from "~/mail/visitor-mail.server";
import * as reservationModel from "~/models/reservation.server";
import type { AnonymousReservation } from "~/models/reservation.server";
import { stayDays, type AdminReservationStatus, type ReservationFilters } from "~/schemas/reservation";
import { todayInMadrid } from "~/utils/dates";
import { trySendMail } from "~/utils/mail.server";
import { pageWindow } from "~/utils/paging";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";
import { toGuestView } from "./visitor.server";

export const RESERVATION_NOT_FOUND = "Reserva no encontrada";
export const RESERVATION_REFUSALS = {
  notConfirmable: "Solo se puede confirmar una reserva pendiente",
  notCancellable: "Solo se puede cancelar una reserva pendiente o confirmada",
  stayOver: "La estancia de esta reserva ya ha terminado",
} as const;

/** SPEC §4: a pending or confirmed reservation whose exit day has passed shows as completed. */
export function shownStatus(reservation: Pick<AnonymousReservation, "status" | "endDate">, today: string): AnonymousReservation["status"] {
  const open = reservation.status === "pending" || reservation.status === "confirmed";
  return open && reservation.endDate < today ? "completed" : reservation.status;
}

/** SPEC §3 stored reservation as the admin sees it: the status shown today, the stay's days, when it was cancelled. */
export function toAdminReservationJson(reservation: AnonymousReservation, today = todayInMadrid()) {
  return {
    ...toGuestView(reservation),
    status: shownStatus(reservation, today),
    days: stayDays(reservation.startDate, reservation.endDate),
    cancelledAt: reservation.cancelledAt?.toISOString() ?? null,
  };
}
export type AdminReservationJson = ReturnType<typeof toAdminReservationJson>;

/** One page (newest booking first) with the stats of every reservation. */
export async function listReservationsPage(filters: ReservationFilters, paging: { page: number; limit: number; clamp?: boolean }, now = new Date()) {
  const today = todayInMadrid(now);
  const counts = await reservationModel.countReservationsByShownStatus(today);
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

/**
 * SPEC §4: the admin confirms a pending reservation or cancels a pending or
 * confirmed one, while the stay is not over; the guest gets a mail either
 * way. The allowed statuses are checked by the write itself, so a guest's
 * cancellation a moment earlier wins over a confirmation.
 */
export async function changeReservationStatus(
  id: string,
  status: AdminReservationStatus,
  now = new Date(),
): Promise<Result<{ reservation: AdminReservationJson; emailSent: boolean }>> {
  const today = todayInMadrid(now);
  const changed = await audited(async (audit) => {
    const before = await reservationModel.getReservationById(id);
    const updated = before ? await reservationModel.setReservationStatusByAdmin(id, status, today, now) : null;
    if (!before || !updated) return null;
    audit({
      action: status === "confirmed" ? "reservation.confirm" : "reservation.cancel",
      entityType: "reservation",
      entityId: id,
      summary: `${status === "confirmed" ? "confirmó" : "canceló"} la reserva ${updated.reservationCode} de ${updated.guestName}`,
      before: { status: before.status },
      after: { status: updated.status },
    });
    return updated;
  });
  if (!changed) {
    const current = await reservationModel.getReservationById(id);
    if (!current) return refuse(404, RESERVATION_NOT_FOUND);
    if (shownStatus(current, today) === "completed") return refuse(409, RESERVATION_REFUSALS.stayOver);
    return refuse(409, status === "confirmed" ? RESERVATION_REFUSALS.notConfirmable : RESERVATION_REFUSALS.notCancellable);
  }
  const mail = status === "confirmed" ? reservationConfirmedByHouseMail(changed) : reservationCancelledByHouseMail(changed);
  const emailSent = await trySendMail(mail);
  return { ok: true, reservation: toAdminReservationJson(changed, today), emailSent };
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
