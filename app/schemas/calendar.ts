// The house's calendar screens (issue 28): the occupancy grid's first day,
// the admin's filters of residents' facility bookings, and the day whose free
// slots the portal's booking form shows. Browser-safe.
import * as z from "zod/mini";
import { FACILITY_TYPES } from "~/db/schema-enums";
import { BOOKING_DURATIONS } from "./facility-booking";
import { isoDay, pagingFields, requiredText, timeOfDay } from "./fields";

/** /admin/ocupacion?from=YYYY-MM-DD (default today). */
export const OccupancyQuerySchema = z.object({ from: z.optional(isoDay("La fecha no es válida")) });

/** The admin's list of residents' bookings (page and API): a facility, a resident (name, username or email), a day. */
export const FacilityBookingFiltersSchema = z.object({
  facilityId: z.optional(requiredText("La instalación no es válida", 64)),
  resident: z.optional(requiredText("La búsqueda no es válida", 100)),
  date: z.optional(isoDay("La fecha no es válida")),
});
export type FacilityBookingFilters = z.infer<typeof FacilityBookingFiltersSchema>;

export const FACILITY_BOOKING_PAGE_SIZE = 20;

/** GET /api/facility-bookings (admin). */
export const FacilityBookingListQuerySchema = z.extend(FacilityBookingFiltersSchema, pagingFields(100, FACILITY_BOOKING_PAGE_SIZE));

/** GET /api/user-portal/facilities/{id}/slots?date=YYYY-MM-DD. */
export const DaySlotsQuerySchema = z.object({ date: isoDay("La fecha no es válida") });

/**
 * The portal's booking form as 'Ver horarios libres' sends it without
 * JavaScript (a GET of the form): what was chosen, kept as the form's values;
 * anything unreadable is left out.
 */
export const BookingDraftSchema = z.object({
  facilityType: z.optional(z.enum(FACILITY_TYPES)),
  facilityId: z.optional(requiredText("La instalación no es válida", 64)),
  date: z.optional(isoDay("La fecha no es válida")),
  startTime: z.optional(timeOfDay("La hora de inicio no es válida")),
  duration: z.optional(z.enum(BOOKING_DURATIONS)),
  notes: z.optional(requiredText("Las notas no son válidas", 500)),
});
export type BookingDraft = z.infer<typeof BookingDraftSchema>;
