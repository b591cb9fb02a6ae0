// /admin/instalaciones: residents' facility bookings, filtered by facility,
// resident and day, and the cancellation modal (?modal=cancel&booking=…),
// through app/services/facility-bookings.server.ts (the same service as
// PUT /api/facility-bookings/{id}/cancel). Every answer keeps the page's query.
import { FACILITY_BOOKING_PAGE_SIZE, FacilityBookingFiltersSchema, type FacilityBookingFilters } from "~/schemas/calendar";
import { cancelBookingByAdmin, getAdminBooking, listBookingsPage, listFacilityCatalogue } from "~/services/facility-bookings.server";
import type { User } from "~/services/users.server";
import { filtersFromQuery } from "~/utils/api.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { throwRefusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const FACILITY_BOOKING_MODALS = ["cancel"] as const;

export async function loadFacilityBookingsPage(request: Request) {
  const url = new URL(request.url);
  const now = new Date();
  const filters: FacilityBookingFilters = filtersFromQuery(FacilityBookingFiltersSchema, url.searchParams);
  const modalName = modalOf(url.searchParams, FACILITY_BOOKING_MODALS);
  const [list, facilities, selected] = await Promise.all([
    listBookingsPage(filters, { page: requestedPage(url.searchParams), limit: FACILITY_BOOKING_PAGE_SIZE, clamp: true }, now),
    listFacilityCatalogue(),
    modalName ? getAdminBooking(url.searchParams.get("booking") ?? "", now) : null,
  ]);
  return { filters, facilities, ...list, modal: { name: modalName, booking: selected?.ok ? selected.booking : null } };
}

export async function facilityBookingsAction(request: Request, admin: User) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  switch (intent) {
    case "cancel-booking": {
      const cancelled = await cancelBookingByAdmin(String(formData.get("id") ?? ""), admin);
      if (!cancelled.ok) return refusedForm(cancelled, { intent, toastTitle: "No se pudo cancelar la reserva" });
      const { facilityName } = cancelled.booking;
      return redirectWithToast(pageUrl(request, { modal: null, booking: null }), successToast("Reserva cancelada", `${facilityName}: se ha avisado al residente.`));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
