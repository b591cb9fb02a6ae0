// What every guest's mail about a reservation shows: its rows and the link to
// look it up (visitor-mail.server.ts, pending-hold-mail.server.ts).
import type { AnonymousReservation } from "~/db/schema";
import { RESERVATION_TYPE_LABELS, ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { formatIsoDay } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";

/** A reservation as mail shows it: with the name of its room (or sala) once it has one. */
export type MailedReservation = AnonymousReservation & { roomName?: string | null; salaName?: string | null };

export function reservationRows(reservation: MailedReservation): Array<[string, string]> {
  const type = RESERVATION_TYPE_LABELS[reservation.reservationType];
  const place: Array<[string, string]> = reservation.roomName
    ? [["Habitación", reservation.roomName]]
    : reservation.salaName
      ? [["Sala", reservation.salaName]]
      : [];
  return [
    ["Código de reserva", reservation.reservationCode],
    ["Tipo", reservation.roomType ? `${type} (${ROOM_TYPE_LABELS[reservation.roomType]})` : type],
    ...place,
    ["Fecha de entrada", formatIsoDay(reservation.startDate)],
    ["Fecha de salida", formatIsoDay(reservation.endDate)],
  ];
}

/** The guests' lookup page, where a booking is read or cancelled. */
export function lookupUrl() {
  return `${getEnv().PUBLIC_URL}/reserva-consulta`;
}
