// One schema for the booking form, used by the browser (conform) and the
// server (page action and JSON API). `today` is the building's date.
import * as z from "zod/mini";
import { CONTACT_PREFERENCES, RESERVATION_STATUSES, RESERVATION_TYPES, ROOM_TYPES } from "~/db/schema-enums";
import { addDays } from "~/utils/dates";
import { builtOncePerDay, email, isoDay, multilineText, optionalMultilineText, pagingFields, phone, requiredText } from "./fields";

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

/** The booking form's schema for a day in the building. */
export const createReservationSchema = builtOncePerDay(buildReservationSchema);

/** A stay's entry and exit days with the booking's rules and messages (the booking form, the admin's date change). */
function stayDateFields(today: string) {
  const lastStart = addDays(today, MAX_DAYS_AHEAD);
  return {
    startDate: isoDay("La fecha de entrada es requerida").check(
      z.refine((day) => day >= today, "La fecha de entrada no puede ser anterior a hoy"),
      z.refine((day) => day <= lastStart, "La fecha de entrada debe estar dentro de los próximos dos años"),
    ),
    endDate: isoDay("La fecha de salida es requerida"),
  };
}

/** What is wrong with the exit day given the entry day (on `endDate`), or null; `value` may be anything the client sent. */
function stayLengthProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  const { startDate, endDate } = value as { startDate?: unknown; endDate?: unknown };
  if (typeof startDate !== "string" || typeof endDate !== "string") return null;
  if (endDate <= startDate) return "La fecha de salida debe ser posterior a la fecha de entrada";
  if (daysBetween(startDate, endDate) > MAX_STAY_NIGHTS) return "La estancia no puede superar un año";
  return null;
}

function buildReservationSchema(today: string) {
  const fields = z
    .object({
      reservationType: z._default(z.enum(RESERVATION_TYPES, { error: "El tipo de reserva no es válido" }), "habitacion"),
      guestName: requiredText("El nombre es requerido", 100),
      guestEmail: email({ required: "El email es requerido", invalid: "El email no es válido" }),
      guestPhone: phone({ required: "El teléfono es requerido", invalid: "El teléfono no es válido" }),
      ...stayDateFields(today),
      roomType: z.optional(z.enum(ROOM_TYPES, { error: "El tipo de habitación es requerido" })),
      contactPreference: z._default(z.enum(CONTACT_PREFERENCES, { error: "La preferencia de contacto no es válida" }), "email"),
      specialRequests: optionalMultilineText(1000),
    })
    // `when`: also run when other fields are invalid, so every message shows at once
    // (then `value` may be anything the client sent, even null).
    .check(
      z.superRefine(
        (value, ctx) => {
          if (typeof value !== "object" || value === null) return;
          const length = stayLengthProblem(value);
          if (length) ctx.addIssue({ code: "custom", path: ["endDate"], message: length });
          if ((value.reservationType ?? "habitacion") === "habitacion" && !value.roomType) {
            ctx.addIssue({ code: "custom", path: ["roomType"], message: "El tipo de habitación es requerido" });
          }
        },
        { when: () => true },
      ),
    );
  return z.pipe(
    fields,
    z.transform((value: z.output<typeof fields>) => ({
      ...value,
      // A meeting room has no room type, whatever the client sent.
      roomType: value.reservationType === "habitacion" ? value.roomType! : null,
      specialRequests: value.specialRequests || null,
    })),
  );
}

export type ReservationInput = z.output<ReturnType<typeof buildReservationSchema>>;

export const RESERVATION_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export const LookupSchema = z.object({
  code: z.pipe(
    requiredText("Por favor complete todos los campos", 64),
    z.transform((code: string) => code.toUpperCase().slice(0, 8)),
  ),
  email: z.pipe(
    requiredText("Por favor complete todos los campos", 254),
    z.transform((value: string) => value.toLowerCase()),
  ),
});

export const RESERVATION_STATUS_LABELS = {
  pending: "Pendiente",
  confirmed: "Confirmada",
  cancelled: "Cancelada",
  completed: "Completada",
} as const;

/**
 * Issue 40: a pending booking awaiting its guest's email holds nothing; one
 * released because its time ran out is cancelled with `lapsedAt`, and shown so.
 */
export const AWAITING_EMAIL_LABEL = "Email sin confirmar";
export const LAPSED_LABEL = "Caducada";

/** The status in words, a released pending booking as 'Caducada'. */
export function reservationStatusLabel(status: keyof typeof RESERVATION_STATUS_LABELS, lapsed: boolean) {
  return lapsed && status === "cancelled" ? LAPSED_LABEL : RESERVATION_STATUS_LABELS[status];
}

/** The first mail's link (/reserva-confirmar?codigo&token) and its form: the booking's code and the link's token. */
export const EmailConfirmationSchema = z.object({
  codigo: z.pipe(
    requiredText("El enlace de confirmación no es válido", 64),
    z.transform((code: string) => code.toUpperCase().slice(0, 8)),
  ),
  token: z.string().check(z.regex(/^[A-Za-z0-9_-]{16,128}$/, "El enlace de confirmación no es válido")),
});

/** POST /api/anonymous-reservations/code/{code}/confirm-email: the link's token. */
export const EmailConfirmationTokenSchema = z.object({
  token: z.string({ error: "El enlace de confirmación no es válido" }).check(z.regex(/^[A-Za-z0-9_-]{16,128}$/, "El enlace de confirmación no es válido")),
});

/** A guest may cancel only while the reservation is pending or confirmed. */
export const GUEST_CANCELLABLE = ["pending", "confirmed"] as const;

export function isGuestCancellable(status: string) {
  return (GUEST_CANCELLABLE as readonly string[]).includes(status);
}

// The admin's reservations (SPEC §2 Admin reservations, §4, §7, §9).

/** SPEC §9. */
export const RESERVATION_PAGE_SIZE = 20;
export const RESERVATION_API_MAX_LIMIT = 100;

/** The short type label of the admin's table (SPEC §2: Habitación or Sala). */
export const RESERVATION_TYPE_SHORT_LABELS: Record<(typeof RESERVATION_TYPES)[number], string> = {
  habitacion: "Habitación",
  sala: "Sala",
};

/** SPEC §4: the admin confirms a pending reservation and cancels a pending or confirmed one. */
export const ADMIN_CONFIRMABLE = ["pending"] as const;
export const ADMIN_CANCELLABLE = ["pending", "confirmed"] as const;
export const ADMIN_RESERVATION_STATUSES = ["confirmed", "cancelled"] as const;
export type AdminReservationStatus = (typeof ADMIN_RESERVATION_STATUSES)[number];

export function canAdminSet(target: AdminReservationStatus, status: string) {
  const allowed: readonly string[] = target === "confirmed" ? ADMIN_CONFIRMABLE : ADMIN_CANCELLABLE;
  return allowed.includes(status);
}

/** Days between entry and exit ("2026-12-24" to "2026-12-27": 3). */
export function stayDays(startDate: string, endDate: string) {
  return Math.round((Date.parse(`${endDate}T00:00:00Z`) - Date.parse(`${startDate}T00:00:00Z`)) / 86_400_000);
}

const RESERVATION_STATUS_MESSAGE = `status debe ser uno de: ${RESERVATION_STATUSES.join(", ")}`;
const ADMIN_STATUS_MESSAGE = "status debe ser confirmed (confirmar) o cancelled (cancelar)";

/** The list's status filter (page and API); `completed` includes stays that have ended. */
export const ReservationFiltersSchema = z.object({
  status: z.optional(z.enum(RESERVATION_STATUSES, { error: RESERVATION_STATUS_MESSAGE })),
  /** The code (any case), or text the guest's name or email contains. */
  search: z.optional(requiredText("La búsqueda no es válida", 100)),
});
export type ReservationFilters = z.infer<typeof ReservationFiltersSchema>;

/** GET /api/anonymous-reservations (admin). */
export const ReservationListQuerySchema = z.extend(ReservationFiltersSchema, pagingFields(RESERVATION_API_MAX_LIMIT, RESERVATION_PAGE_SIZE));

/** The confirm and cancel buttons. */
export const ReservationStatusSchema = z.object({ status: z.enum(ADMIN_RESERVATION_STATUSES, { error: ADMIN_STATUS_MESSAGE }) });

/** The details modal's notes; empty clears them. */
export const ReservationNotesSchema = z.object({ adminNotes: z.optional(multilineText(2000)) });

/** PUT /api/anonymous-reservations/{id}/status: `status`, `adminNotes` (null or "" clears them), or both. */
export const ReservationUpdateSchema = z
  .object({
    // With status confirmed: the room (or sala) to give it; otherwise the free one that fits best.
    roomId: z.optional(requiredText("roomId no es válido", 64)),
    status: z.optional(z.enum(ADMIN_RESERVATION_STATUSES, { error: ADMIN_STATUS_MESSAGE })),
    adminNotes: z.optional(z.nullable(multilineText(2000))),
  })
  .check(
    z.refine((value) => value.status !== undefined || value.adminNotes !== undefined, {
      message: "Indica el estado o las notas (status o adminNotes)",
    }),
  );
export type ReservationUpdate = z.output<typeof ReservationUpdateSchema>;

/** The admin's confirm and cancel forms; a confirmation's `roomId` empty gives the stay the free room that fits best. */
export const ReservationStatusFormSchema = z.extend(ReservationStatusSchema, {
  roomId: z.optional(requiredText("La habitación no es válida", 64)),
});

/** PUT /api/anonymous-reservations/{id}/room and the admin's move form. */
export const ReservationRoomSchema = z.object({ roomId: requiredText("roomId es requerido", 64) });

/**
 * PUT /api/anonymous-reservations/{id}/dates and the admin's 'Cambiar
 * fechas' form, for a day in the building: the booking's date fields, rules
 * and messages.
 */
export const createReservationDatesSchema = builtOncePerDay(buildReservationDatesSchema);

function buildReservationDatesSchema(today: string) {
  return z.object(stayDateFields(today)).check(
    z.superRefine(
      (value, ctx) => {
        const length = stayLengthProblem(value);
        if (length) ctx.addIssue({ code: "custom", path: ["endDate"], message: length });
      },
      // Also when a field is invalid, so every message shows at once.
      { when: () => true },
    ),
  );
}
export type ReservationDates = z.output<ReturnType<typeof buildReservationDatesSchema>>;
