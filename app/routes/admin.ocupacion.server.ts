// /admin/ocupacion: the house's calendar of 14 days from `?from=` (default
// today), and the open modal's stay (?modal=stay&reservation=…) or resident's
// booking (?modal=booking&booking=…), through the services.
import { OccupancyQuerySchema } from "~/schemas/calendar";
import { getAdminBooking } from "~/services/facility-bookings.server";
import { getOccupancy } from "~/services/occupancy.server";
import { getAdminReservation } from "~/services/reservations.server";
import { filtersFromQuery } from "~/utils/api.server";
import { todayInMadrid } from "~/utils/dates";
import { modalOf } from "~/utils/page-url";

export const OCCUPANCY_MODALS = ["stay", "booking"] as const;

export async function loadOccupancyPage(request: Request) {
  const url = new URL(request.url);
  const now = new Date();
  const { from } = filtersFromQuery(OccupancyQuerySchema, url.searchParams);
  const modalName = modalOf(url.searchParams, OCCUPANCY_MODALS);
  const [occupancy, stay, booking] = await Promise.all([
    getOccupancy(from ?? todayInMadrid(now), now),
    modalName === "stay" ? getAdminReservation(url.searchParams.get("reservation") ?? "", now) : null,
    modalName === "booking" ? getAdminBooking(url.searchParams.get("booking") ?? "", now) : null,
  ]);
  return {
    occupancy,
    modal: { name: modalName, stay: stay?.ok ? stay.reservation : null, booking: booking?.ok ? booking.booking : null },
  };
}
