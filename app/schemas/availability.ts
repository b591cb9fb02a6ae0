// What is free for a stay (GET /api/availability, and the /reservar form as
// the guest chooses): the query, with the booking's own date rules, and the
// sentences the page and the refusals say. Browser-safe.
import * as z from "zod/mini";
import type { RESERVATION_TYPES } from "~/db/schema-enums";
import { createReservationSchema } from "./reservation";
import { ROOM_TYPE_WORDS, type RoomType } from "./room";

export type Availability = {
  reservationType: (typeof RESERVATION_TYPES)[number];
  roomType: RoomType | null;
  startDate: string;
  endDate: string;
  available: number;
  total: number;
  /** Meeting rooms only: the salas free on every one of those days. */
  salas?: Array<{ _id: string; name: string; capacity: number | null }>;
  /** Of the rooms (or salas) not free, how many only pending stays the house has not confirmed hold (they may lapse). */
  unconfirmed?: number;
};

/** The query's fields: the booking form's names. */
export const AVAILABILITY_FIELDS = ["reservationType", "roomType", "startDate", "endDate"] as const;

/**
 * The availability query for a day in the building: the booking's schema
 * itself, so its date rules and messages are the booking's, given stand-ins
 * for the guest's details the query does not carry (they always pass).
 */
export function createAvailabilitySchema({ today }: { today: string }) {
  return z.pipe(
    z.transform((value: unknown) => {
      const query = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
      // An empty field (a form's unchosen select) is a field not given.
      const fields = Object.fromEntries(AVAILABILITY_FIELDS.filter((name) => query[name] !== undefined && query[name] !== "").map((name) => [name, query[name]]));
      return { ...fields, guestName: "-", guestEmail: "disponibilidad@example.com", guestPhone: "600000000" };
    }),
    z.pipe(
      createReservationSchema({ today }),
      z.transform(({ reservationType, roomType, startDate, endDate }) => ({ reservationType, roomType, startDate, endDate })),
    ),
  );
}
export type AvailabilityQuery = z.output<ReturnType<typeof createAvailabilitySchema>>;

/** GET /api/availability's optional detail: `holds=1` adds `unconfirmed`. */
export const AvailabilityDetailSchema = z.object({ holds: z.optional(z.enum(["0", "1"], { error: "holds debe ser 0 o 1" })) });

/** The refusal of a booking when its type is full (issue 28). */
export function fullMessage(reservationType: Availability["reservationType"], roomType: RoomType | null) {
  return reservationType === "sala" || !roomType
    ? "No quedan salas libres para esas fechas"
    : `No quedan habitaciones ${ROOM_TYPE_WORDS[roomType].many} libres para esas fechas`;
}

/** What /reservar says as the guest chooses. */
export function availabilityMessage({ reservationType, roomType, available }: Pick<Availability, "reservationType" | "roomType" | "available">) {
  const sala = reservationType === "sala" || !roomType;
  if (available <= 0) return `${fullMessage(reservationType, roomType)}. ${sala ? "Prueba otras fechas." : "Prueba otras fechas u otro tipo."}`;
  if (sala) return available === 1 ? "Queda 1 sala libre para esas fechas" : `Quedan ${available} salas libres para esas fechas`;
  const words = ROOM_TYPE_WORDS[roomType];
  return available === 1 ? `Queda 1 habitación ${words.one} libre para esas fechas` : `Quedan ${available} habitaciones ${words.many} libres para esas fechas`;
}

/** What /reservar says beside the availability when pending stays the house has not confirmed hold some of the rooms (issue 40). */
export function unconfirmedHoldsMessage({ reservationType, roomType, unconfirmed = 0 }: Pick<Availability, "reservationType" | "roomType" | "unconfirmed">) {
  if (unconfirmed <= 0) return null;
  const one = unconfirmed === 1;
  const what =
    reservationType === "sala" || !roomType
      ? one ? "1 sala está retenida" : `${unconfirmed} salas están retenidas`
      : one ? `1 habitación ${ROOM_TYPE_WORDS[roomType].one} está retenida` : `${unconfirmed} habitaciones ${ROOM_TYPE_WORDS[roomType].many} están retenidas`;
  return `${what} por ${one ? "una reserva" : "reservas"} aún sin confirmar: ${one ? "puede quedar libre" : "pueden quedar libres"}.`;
}
