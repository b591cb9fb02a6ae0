// One schema for the booking form, used by the browser (conform) and the
// server (page action and JSON API). `today` is the building's date.
import { z } from "zod";
import { CONTACT_PREFERENCES, RESERVATION_TYPES, ROOM_TYPES } from "~/db/schema-enums";
import { addDays } from "~/utils/dates";
import { email, isoDay, optionalText, requiredText } from "./fields";

/** A stay lasts at most this many nights, and starts at most this many days ahead. */
export const MAX_STAY_NIGHTS = 365;
export const MAX_DAYS_AHEAD = 730;

const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;


export const ROOM_TYPE_LABELS: Record<(typeof ROOM_TYPES)[number], string> = {
  individual: "Individual",
  doble: "Doble",
  suite: "Suite",
};
export const RESERVATION_TYPE_LABELS: Record<(typeof RESERVATION_TYPES)[number], string> = {
  habitacion: "Habitación",
  sala: "Sala de reuniones",
};
export const CONTACT_PREFERENCE_LABELS: Record<(typeof CONTACT_PREFERENCES)[number], string> = {
  email: "Email",
  phone: "Teléfono",
  both: "Ambos",
};

const reservationSchemas = new Map<string, ReturnType<typeof buildReservationSchema>>();

/** Built once per day: a zod schema is costly to build and to compile on first use. */
export function createReservationSchema({ today }: { today: string }) {
  let schema = reservationSchemas.get(today);
  if (!schema) {
    reservationSchemas.clear();
    schema = buildReservationSchema(today);
    reservationSchemas.set(today, schema);
  }
  return schema;
}

function buildReservationSchema(today: string) {
  const lastStart = addDays(today, MAX_DAYS_AHEAD);
  return z
    .object({
      reservationType: z.enum(RESERVATION_TYPES, { error: "El tipo de reserva no es válido" }).default("habitacion"),
      guestName: requiredText("El nombre es requerido", 100),
      guestEmail: email({ required: "El email es requerido", invalid: "El email no es válido" }),
      guestPhone: requiredText("El teléfono es requerido", 30),
      startDate: isoDay("La fecha de entrada es requerida")
        .refine((day) => day >= today, "La fecha de entrada no puede ser anterior a hoy")
        .refine((day) => day <= lastStart, "La fecha de entrada debe estar dentro de los próximos dos años"),
      endDate: isoDay("La fecha de salida es requerida"),
      roomType: z.enum(ROOM_TYPES, { error: "El tipo de habitación es requerido" }).optional(),
      contactPreference: z.enum(CONTACT_PREFERENCES, { error: "La preferencia de contacto no es válida" }).default("email"),
      specialRequests: optionalText(1000),
    })
    // `when`: also run when other fields are invalid, so every message shows at once
    // (then `value` may be anything the client sent, even null).
    .superRefine((value, ctx) => {
      if (typeof value !== "object" || value === null) return;
      const { startDate, endDate } = value as { startDate?: unknown; endDate?: unknown };
      if (typeof startDate === "string" && typeof endDate === "string" && endDate <= startDate) {
        ctx.addIssue({
          code: "custom",
          path: ["endDate"],
          message: "La fecha de salida debe ser posterior a la fecha de entrada",
        });
      } else if (typeof startDate === "string" && typeof endDate === "string" && daysBetween(startDate, endDate) > MAX_STAY_NIGHTS) {
        ctx.addIssue({ code: "custom", path: ["endDate"], message: "La estancia no puede superar un año" });
      }
      if ((value.reservationType ?? "habitacion") === "habitacion" && !value.roomType) {
        ctx.addIssue({ code: "custom", path: ["roomType"], message: "El tipo de habitación es requerido" });
      }
    }, { when: () => true })
    .transform((value) => ({
      ...value,
      // A meeting room has no room type, whatever the client sent.
      roomType: value.reservationType === "habitacion" ? value.roomType! : null,
      specialRequests: value.specialRequests || null,
    }));
}

export type ReservationInput = z.output<ReturnType<typeof buildReservationSchema>>;

export const RESERVATION_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export const LookupSchema = z.object({
  code: requiredText("Por favor complete todos los campos", 64).transform((code) => code.toUpperCase().slice(0, 8)),
  email: requiredText("Por favor complete todos los campos", 254).transform((value) => value.toLowerCase()),
});

export const RESERVATION_STATUS_LABELS = {
  pending: "Pendiente",
  confirmed: "Confirmada",
  cancelled: "Cancelada",
  completed: "Completada",
} as const;

/** A guest may cancel only while the reservation is pending or confirmed. */
export const GUEST_CANCELLABLE = ["pending", "confirmed"] as const;

export function isGuestCancellable(status: string) {
  return (GUEST_CANCELLABLE as readonly string[]).includes(status);
}
