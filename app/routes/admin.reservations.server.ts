// /admin/reservations: the list with its stats, the open modal's
// reservation, and the forms' intents (confirm, cancel, move, dates, notes), through
// app/services/reservations.server.ts. Every answer keeps the page's query.
import { parseWithZod } from "@conform-to/zod/v4";
import {
  createReservationDatesSchema,
  RESERVATION_PAGE_SIZE,
  ReservationFiltersSchema,
  ReservationNotesSchema,
  ReservationRoomSchema,
  ReservationStatusFormSchema,
  type ReservationFilters,
} from "~/schemas/reservation";
import * as reservations from "~/services/reservations.server";
import { filtersFromQuery } from "~/utils/api.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { formatIsoDay, todayInMadrid } from "~/utils/dates";
import { refuse, throwRefusal } from "~/utils/refusal.server";
import { successToast, type Toast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const RESERVATION_MODALS = ["detail", "cancel"] as const;

export async function loadReservationsPage(request: Request) {
  const url = new URL(request.url);
  const filters: ReservationFilters = filtersFromQuery(ReservationFiltersSchema, url.searchParams);
  const list = await reservations.listReservationsPage(filters, { page: requestedPage(url.searchParams), limit: RESERVATION_PAGE_SIZE, clamp: true });
  const modalName = modalOf(url.searchParams, RESERVATION_MODALS);
  const reservationId = url.searchParams.get("reservation");
  const selected = modalName && reservationId ? await reservations.getAdminReservation(reservationId) : null;
  const reservation = selected?.ok ? selected.reservation : null;
  // The details offer the rooms (or salas) the stay could be given or moved to.
  const open = reservation && modalName === "detail" && (reservation.status === "pending" || reservation.status === "confirmed");
  const places = open ? await reservations.listPlacesForStay(reservation) : [];
  // `today`: the building's date, for the date change's rules in the browser.
  return { filters, ...list, today: todayInMadrid(), modal: { name: modalName, reservation, places } };
}

const STATUS_FAILED = "Error al actualizar el estado";

export async function reservationsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const id = String(formData.get("id") ?? "");

  switch (intent) {
    case "set-status": {
      const submission = parseWithZod(formData, { schema: ReservationStatusFormSchema });
      if (submission.status !== "success") {
        return refusedForm(refuse(400, "status debe ser confirmed (confirmar) o cancelled (cancelar)"), { intent, toastTitle: STATUS_FAILED });
      }
      const { status: target, roomId } = submission.value;
      const changed = await reservations.changeReservationStatus(id, target, new Date(), { roomId: target === "confirmed" ? roomId : undefined });
      if (!changed.ok) return refusedForm(changed, { intent, toastTitle: STATUS_FAILED });
      const { reservationCode, status } = changed.reservation;
      const done = status === "confirmed" ? "confirmada" : "cancelada";
      const mail = changed.emailSent ? "Se ha enviado un email al huésped." : "No se pudo enviar el email al huésped.";
      const toast: Toast = successToast("Estado actualizado correctamente", `Reserva ${reservationCode} ${done}. ${mail}`);
      // A cancellation closes its confirmation; a confirmation from the details keeps them open.
      const next = status === "cancelled" ? pageUrl(request, { modal: null, reservation: null }) : pageUrl(request);
      return redirectWithToast(next, toast);
    }
    case "move-room": {
      const submission = parseWithZod(formData, { schema: ReservationRoomSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const moved = await reservations.moveReservationRoom(id, submission.value.roomId);
      if (!moved.ok) return refusedForm(moved, { intent, submission, toastTitle: "No se pudo cambiar la habitación" });
      const { reservationCode, room } = moved.reservation;
      return redirectWithToast(pageUrl(request), successToast("Habitación cambiada", `Reserva ${reservationCode}: ${room?.name ?? ""}`));
    }
    case "change-dates": {
      const submission = parseWithZod(formData, { schema: createReservationDatesSchema({ today: todayInMadrid() }) });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const changed = await reservations.changeReservationDates(id, submission.value);
      if (!changed.ok) return refusedForm(changed, { intent, submission, toastTitle: "No se pudieron cambiar las fechas" });
      const { reservationCode, startDate, endDate } = changed.reservation;
      return redirectWithToast(
        pageUrl(request),
        successToast("Fechas actualizadas", `Reserva ${reservationCode}: del ${formatIsoDay(startDate)} al ${formatIsoDay(endDate)}`),
      );
    }
    case "save-notes": {
      const submission = parseWithZod(formData, { schema: ReservationNotesSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const saved = await reservations.saveReservationNotes(id, submission.value.adminNotes);
      if (!saved.ok) return refusedForm(saved, { intent, submission, toastTitle: "No se pudieron guardar las notas" });
      return redirectWithToast(pageUrl(request), successToast("Notas actualizadas", `Reserva ${saved.reservation.reservationCode}`));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
