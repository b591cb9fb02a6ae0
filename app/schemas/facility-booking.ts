// A resident's booking of a shared facility (SPEC §3 Resident booking, §5
// Resident booking form): the form's and the API's schema, and the labels.
// The rules that need a clock or the database (the date window, a start in
// the future, the facility's type, overlaps) are the service's.
import * as z from "zod/mini";
import { BOOKING_STATUSES, FACILITY_TYPES } from "~/db/schema-enums";
import { isCalendarDay, optionalMultilineText, requiredText } from "./fields";

export type FacilityType = (typeof FACILITY_TYPES)[number];
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const FACILITY_TYPE_LABELS: Record<FacilityType, string> = {
  "meeting-room": "Salas de Reuniones",
  gym: "Gimnasio",
  pool: "Piscina",
  parking: "Estacionamiento",
  "event-room": "Sala de Eventos",
};

export const BOOKING_STATUS_LABELS: Record<BookingStatus, string> = {
  confirmed: "Confirmada",
  pending: "Pendiente",
  cancelled: "Cancelada",
  completed: "Completada",
};

/** SPEC §9: a booking lasts 1, 2, 4 or 8 hours. */
export const BOOKING_DURATIONS = ["1", "2", "4", "8"] as const;
export const BOOKING_DURATION_LABELS: Record<(typeof BOOKING_DURATIONS)[number], string> = {
  "1": "1 hora",
  "2": "2 horas",
  "4": "4 horas",
  "8": "8 horas",
};

/** How far ahead a facility can be booked. */
export const MAX_BOOKING_DAYS_AHEAD = 90;

export const BOOKING_MESSAGES = {
  facilityType: "El tipo de instalación es requerido",
  facilityId: "La instalación es requerida",
  dateRequired: "La fecha es requerida",
  dateInvalid: "La fecha no es válida",
  startTimeRequired: "La hora de inicio es requerida",
  startTimeInvalid: "La hora de inicio no es válida",
  duration: "La duración debe ser de 1, 2, 4 u 8 horas",
} as const;

export const BookingSchema = z.object({
  facilityType: z.enum(FACILITY_TYPES, { error: BOOKING_MESSAGES.facilityType }),
  facilityId: requiredText(BOOKING_MESSAGES.facilityId, 64),
  date: requiredText(BOOKING_MESSAGES.dateRequired, 10).check(z.refine(isCalendarDay, BOOKING_MESSAGES.dateInvalid)),
  startTime: requiredText(BOOKING_MESSAGES.startTimeRequired, 5).check(
    z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, BOOKING_MESSAGES.startTimeInvalid),
  ),
  // The SPEC's payload sends the hours as text; a number is accepted too.
  duration: z.pipe(
    z.pipe(
      z.transform((value: unknown) => (typeof value === "number" ? String(value) : value)),
      z.enum(BOOKING_DURATIONS, { error: BOOKING_MESSAGES.duration }),
    ),
    z.transform(Number),
  ),
  notes: optionalMultilineText(500),
});

export type BookingInput = z.output<typeof BookingSchema>;
