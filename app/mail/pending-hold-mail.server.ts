// Mail about a pending booking's hold (issue 40, point 5): the first mail,
// which asks the guest to confirm their email before the booking holds
// anything; the word that the hold has begun, and until when; and, when the
// house did not confirm it in time, the release, told to the guest and to the
// house's staff.
import type { AnonymousReservation } from "~/db/schema";
import { RESERVATION_TYPE_LABELS } from "~/schemas/reservation";
import { formatDateTime } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import type { Mail } from "~/utils/mail.server";
import { allDayEvent } from "./ics.server";
import { composeMail } from "./layout.server";
import { lookupUrl, reservationRows } from "./reservation-rows.server";

type StaffNotice = Omit<Mail, "to">;

/** "60 minutos", "1 hora", "72 horas". */
export function spanWords({ minutes, hours }: { minutes?: number; hours?: number }) {
  if (minutes !== undefined) return minutes === 1 ? "1 minuto" : `${minutes} minutos`;
  return hours === 1 ? "1 hora" : `${hours} horas`;
}

/** The link of the first mail: the page that confirms the guest's email (a button, so a mail scanner's visit confirms nothing). */
export function emailConfirmationUrl(reservationCode: string, token: string) {
  return `${getEnv().PUBLIC_URL}/reserva-confirmar?${new URLSearchParams({ codigo: reservationCode, token })}`;
}

/** The first mail with BOOKING_EMAIL_CONFIRMATION on: the booking holds nothing until the guest follows its link. */
export function confirmEmailMail(reservation: AnonymousReservation, token: string): Mail {
  const { BUILDING_NAME, PENDING_EMAIL_MINUTES, PENDING_HOLD_HOURS } = getEnv();
  const deadline = reservation.expiresAt ? formatDateTime(reservation.expiresAt) : "";
  return {
    to: reservation.guestEmail,
    subject: `Confirma tu email: reserva ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: [
        `Hemos recibido tu reserva en ${BUILDING_NAME}. Para que te la guardemos, confirma tu email con el enlace de abajo antes del ${deadline} (tienes ${spanWords({ minutes: PENDING_EMAIL_MINUTES })}). Hasta entonces no retenemos ninguna plaza, y si no lo confirmas la reserva se anulará sola.`,
        `Cuando lo confirmes, te la guardaremos ${spanWords({ hours: PENDING_HOLD_HOURS })} mientras la casa la confirma.`,
        "Si no has hecho esta reserva, ignora este mensaje.",
      ],
      rows: reservationRows(reservation),
      link: { label: "Confirmar mi email", url: emailConfirmationUrl(reservation.reservationCode, token) },
    }),
  };
}

/** The guest confirmed their email: the booking holds its place until its hold lapses. */
export function holdStartedMail(reservation: AnonymousReservation): Mail {
  const { PENDING_HOLD_HOURS } = getEnv();
  return {
    to: reservation.guestEmail,
    subject: `Reserva retenida: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: [
        `Has confirmado tu email. Te guardamos la reserva hasta el ${reservation.expiresAt ? formatDateTime(reservation.expiresAt) : ""} (${spanWords({ hours: PENDING_HOLD_HOURS })}) mientras la casa la confirma; te avisaremos en cuanto lo haga. Si no la confirma antes, se anulará y te lo diremos.`,
      ],
      rows: reservationRows(reservation),
      link: { label: "Consultar o cancelar tu reserva", url: lookupUrl() },
    }),
  };
}

/** What the booking's first mail says of its hold when the house books without the email step (BOOKING_EMAIL_CONFIRMATION=off). */
export function holdLine(reservation: Pick<AnonymousReservation, "expiresAt">) {
  const { PENDING_HOLD_HOURS } = getEnv();
  if (!reservation.expiresAt) return null;
  return `Te la guardamos hasta el ${formatDateTime(reservation.expiresAt)} (${spanWords({ hours: PENDING_HOLD_HOURS })}): si no la confirmamos antes, se anulará y te avisaremos.`;
}

/** The house did not confirm the booking in time: it no longer holds its place (the calendar file withdrawn). */
export function holdReleasedMail(reservation: AnonymousReservation): Mail {
  const { BUILDING_NAME, PENDING_HOLD_HOURS } = getEnv();
  return {
    to: reservation.guestEmail,
    subject: `Reserva anulada: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: [
        `Tu reserva llevaba ${spanWords({ hours: PENDING_HOLD_HOURS })} pendiente sin que la casa pudiera confirmarla, así que la hemos anulado y ya no te guardamos la plaza. Si aún quieres venir, haz una reserva nueva o escríbenos.`,
      ],
      rows: reservationRows(reservation),
    }),
    attachments: [
      {
        filename: `reserva-${reservation.reservationCode}.ics`,
        contentType: "text/calendar; charset=utf-8; method=CANCEL",
        content: allDayEvent({
          uid: `${reservation.reservationCode}@lacasona-coliving.es`,
          startDate: reservation.startDate,
          endDate: reservation.endDate,
          summary: `${BUILDING_NAME}: ${RESERVATION_TYPE_LABELS[reservation.reservationType]} (${reservation.reservationCode})`,
          description: `Código de reserva ${reservation.reservationCode}: anulada`,
          location: "Calle del Muelle 12, 33500 Llanes, Asturias",
          state: "cancelled",
        }),
      },
    ],
  };
}

/** The house hears that a pending booking it did not confirm was released. */
export function holdReleasedStaffMail(reservation: AnonymousReservation): StaffNotice {
  const { PENDING_HOLD_HOURS, PUBLIC_URL } = getEnv();
  return {
    subject: `Reserva anulada sin confirmar: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: "Hola:",
      paragraphs: [
        `La reserva de ${reservation.guestName} llevaba ${spanWords({ hours: PENDING_HOLD_HOURS })} pendiente sin confirmar y se ha anulado: su plaza vuelve a estar libre. Se lo hemos dicho al huésped.`,
      ],
      rows: [...reservationRows(reservation), ["Email", reservation.guestEmail], ["Teléfono", reservation.guestPhone]],
      link: { label: "Ver la reserva", url: `${PUBLIC_URL}/admin/reservations?${new URLSearchParams({ modal: "detail", reservation: reservation.id })}` },
    }),
  };
}

/** The house hears of a booking that awaits its guest's email: it holds nothing until then. */
export function newAwaitingEmailStaffMail(reservation: AnonymousReservation): StaffNotice {
  const { PUBLIC_URL } = getEnv();
  return {
    subject: `Nueva reserva: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: "Hola:",
      paragraphs: [
        `${reservation.guestName} ha hecho una reserva pendiente de confirmación. Aún no retiene plaza: espera a que confirme su email${reservation.expiresAt ? ` (hasta el ${formatDateTime(reservation.expiresAt)}; si no, se anula sola)` : ""}.`,
      ],
      rows: [
        ...reservationRows(reservation),
        ["Email", reservation.guestEmail],
        ["Teléfono", reservation.guestPhone],
        ...(reservation.specialRequests ? ([["Solicitudes especiales", reservation.specialRequests]] as Array<[string, string]>) : []),
      ],
      link: { label: "Ver la reserva", url: `${PUBLIC_URL}/admin/reservations?${new URLSearchParams({ modal: "detail", reservation: reservation.id })}` },
    }),
  };
}

/** What the booking's receipt (/reservar) says of its hold. */
export function receiptHoldNote(reservation: Pick<AnonymousReservation, "heldSince" | "emailTokenHash" | "expiresAt">) {
  const { PENDING_EMAIL_MINUTES, PENDING_HOLD_HOURS } = getEnv();
  if (!reservation.expiresAt) return null;
  // Awaiting the guest's email: a link token and no hold yet.
  if (reservation.heldSince === null && reservation.emailTokenHash !== null) {
    return `Confirma tu email con el enlace que te hemos enviado antes del ${formatDateTime(reservation.expiresAt)} (${spanWords({ minutes: PENDING_EMAIL_MINUTES })}): hasta entonces no te guardamos la plaza, y si no lo confirmas la reserva se anulará. Después te la guardamos ${spanWords({ hours: PENDING_HOLD_HOURS })} mientras la casa la confirma.`;
  }
  return `Te guardamos la plaza hasta el ${formatDateTime(reservation.expiresAt)} (${spanWords({ hours: PENDING_HOLD_HOURS })}) mientras la casa confirma la reserva; si no la confirma antes, se anulará y te avisaremos.`;
}
