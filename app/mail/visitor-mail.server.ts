// Mail to visitors: booking received (with the stay as a tentative .ics), the
// guest's own cancellation, the house's confirmation (the .ics confirmed) and
// cancellation, the acknowledgements of an enquiry and of a visit request, and
// a resident's visitor pass.
import type { AnonymousReservation } from "~/db/schema";
import { RESERVATION_TYPE_LABELS } from "~/schemas/reservation";
import { accessCodeLine } from "~/utils/access-code";
import { formatIsoDay } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import type { Mail } from "~/utils/mail.server";
import { allDayEvent, calendarMethod, type StayState } from "./ics.server";
import { composeMail } from "./layout.server";
import { holdLine } from "./pending-hold-mail.server";
import { lookupUrl, reservationRows, type MailedReservation } from "./reservation-rows.server";

const ADDRESS = "Calle del Muelle 12, 33500 Llanes, Asturias";

export function reservationConfirmationMail(reservation: MailedReservation): Mail {
  const { BUILDING_NAME } = getEnv();
  const body = composeMail({
    greeting: `Hola, ${reservation.guestName}:`,
    paragraphs: [
      `Hemos recibido tu reserva en ${BUILDING_NAME}. Está pendiente de confirmación y te avisaremos en cuanto la confirmemos.`,
      ...(reservation.status === "pending" ? [holdLine(reservation)].filter((line): line is string => line !== null) : []),
      "Guarda tu código de reserva: lo necesitarás, junto con tu email, para consultarla o cancelarla.",
    ],
    rows: reservationRows(reservation),
    link: { label: "Consultar o cancelar tu reserva", url: lookupUrl() },
  });
  return {
    to: reservation.guestEmail,
    subject: `Reserva recibida: ${reservation.reservationCode}`,
    ...body,
    attachments: [stayCalendar(reservation, "tentative")],
  };
}

/**
 * The stay as an .ics attachment, one UID for its whole life: tentative with
 * the booking, confirmed by the house, withdrawn when cancelled.
 */
function stayCalendar(reservation: AnonymousReservation, state: StayState) {
  const { BUILDING_NAME } = getEnv();
  return {
    filename: `reserva-${reservation.reservationCode}.ics`,
    contentType: `text/calendar; charset=utf-8; method=${calendarMethod(state)}`,
    content: allDayEvent({
      uid: `${reservation.reservationCode}@lacasona-coliving.es`,
      startDate: reservation.startDate,
      endDate: reservation.endDate,
      summary: `${BUILDING_NAME}: ${RESERVATION_TYPE_LABELS[reservation.reservationType]} (${reservation.reservationCode})`,
      description: `Código de reserva ${reservation.reservationCode}. Consulta o cancela en ${lookupUrl()}`,
      location: ADDRESS,
      state,
    }),
  };
}

export function reservationCancelledMail(reservation: MailedReservation): Mail {
  return {
    to: reservation.guestEmail,
    subject: `Reserva cancelada: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: ["Tu reserva ha sido cancelada correctamente. Si no has sido tú, responde a este mensaje."],
      rows: reservationRows(reservation),
    }),
    attachments: [stayCalendar(reservation, "cancelled")],
  };
}

/** A stay's key as its mail carries it: the PIN, the token and its PNG, the window, the doors. */
export type MailedAccess = { pin: string; qr: string; qrPng: Buffer; validFrom: string; validUntil: string; doors: { name: string }[] };

const QR_CID = "acceso-qr@lacasona-coliving.es";

/**
 * The house confirmed the reservation (admin reservations screen or API): it
 * names the room (or sala) and carries the stay's key (PIN, QR image, window).
 */
export function reservationConfirmedByHouseMail(reservation: MailedReservation, access: MailedAccess | null = null): Mail {
  const { BUILDING_NAME } = getEnv();
  const keyParagraphs = access
    ? [
        accessCodeLine(access),
        "Teclea el código y pulsa # en el teclado de la puerta, o acerca el código QR de este mensaje al lector.",
      ]
    : [];
  const keyRows: Array<[string, string]> = access
    ? [
        ["Puertas", access.doors.map((door) => door.name).join(", ")],
        ["Código QR", access.qr],
      ]
    : [];
  return {
    to: reservation.guestEmail,
    subject: `Reserva confirmada: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: [
        `Tu reserva en ${BUILDING_NAME} está confirmada. ¡Te esperamos!`,
        ...keyParagraphs,
        "Si necesitas cambiar algo, responde a este mensaje. Puedes consultar o cancelar tu reserva con tu código y tu email.",
      ],
      rows: [...reservationRows(reservation), ["Dirección", ADDRESS], ...keyRows],
      link: { label: "Consultar o cancelar tu reserva", url: lookupUrl() },
      ...(access ? { image: { cid: QR_CID, alt: `Código QR de acceso ${access.qr}`, size: 240 } } : {}),
    }),
    attachments: [
      stayCalendar(reservation, "confirmed"),
      ...(access ? [{ filename: "codigo-acceso.png", contentType: "image/png", content: access.qrPng, cid: QR_CID }] : []),
    ],
  };
}

/**
 * A resident invited a visitor (the portal's 'Invitar a una visita'): the
 * pass's PIN, its QR image and window, the doors, and who invited them.
 */
export function visitorPassMail(pass: { visitorName: string; visitorEmail: string; residentName: string }, access: MailedAccess): Mail {
  const { BUILDING_NAME } = getEnv();
  return {
    to: pass.visitorEmail,
    subject: `Invitación de ${pass.residentName} a ${BUILDING_NAME}`,
    ...composeMail({
      greeting: `Hola, ${pass.visitorName}:`,
      paragraphs: [
        `${pass.residentName} te ha invitado a ${BUILDING_NAME}.`,
        accessCodeLine(access),
        "Teclea el código y pulsa # en el teclado de la puerta, o acerca el código QR de este mensaje al lector.",
      ],
      rows: [
        ["Dirección", ADDRESS],
        ["Puertas", access.doors.map((door) => door.name).join(", ")],
        ["Código QR", access.qr],
      ],
      image: { cid: QR_CID, alt: `Código QR de acceso ${access.qr}`, size: 240 },
    }),
    attachments: [{ filename: "codigo-acceso.png", contentType: "image/png", content: access.qrPng, cid: QR_CID }],
  };
}

/**
 * The house changed the stay's dates ('Cambiar fechas'): the new dates and,
 * for a confirmed stay, its key's new window (same PIN and QR unless the PIN
 * had to change). No calendar file: the one sent before keeps its dates.
 */
export function reservationDatesChangedMail(reservation: MailedReservation, access: MailedAccess | null): Mail {
  return {
    to: reservation.guestEmail,
    subject: `Reserva modificada: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: [
        "Hemos cambiado las fechas de tu reserva. Estas son las nuevas:",
        ...(access ? [accessCodeLine(access), "Teclea el código y pulsa # en el teclado de la puerta, o acerca el código QR de este mensaje al lector."] : []),
        "Si no esperabas este cambio, responde a este mensaje.",
      ],
      rows: [
        ...reservationRows(reservation),
        ...(access ? ([["Puertas", access.doors.map((door) => door.name).join(", ")], ["Código QR", access.qr]] as Array<[string, string]>) : []),
      ],
      link: { label: "Consultar o cancelar tu reserva", url: lookupUrl() },
      ...(access ? { image: { cid: QR_CID, alt: `Código QR de acceso ${access.qr}`, size: 240 } } : {}),
    }),
    attachments: access ? [{ filename: "codigo-acceso.png", contentType: "image/png", content: access.qrPng, cid: QR_CID }] : [],
  };
}

/** The house cancelled the reservation (admin reservations screen or API). */
export function reservationCancelledByHouseMail(reservation: MailedReservation): Mail {
  const { BUILDING_NAME } = getEnv();
  return {
    to: reservation.guestEmail,
    subject: `Reserva cancelada: ${reservation.reservationCode}`,
    ...composeMail({
      greeting: `Hola, ${reservation.guestName}:`,
      paragraphs: [
        `Lamentamos comunicarte que ${BUILDING_NAME} ha cancelado tu reserva.`,
        "Si tienes cualquier duda o quieres buscar otras fechas, responde a este mensaje y te ayudaremos.",
      ],
      rows: reservationRows(reservation),
    }),
    attachments: [stayCalendar(reservation, "cancelled")],
  };
}

/**
 * The enquiry arrived. The message is not repeated: anyone can type any
 * address into the form, and the house's mail must not carry their text to it.
 */
export function enquiryReceivedMail({ nombre, email }: { nombre: string; email: string }): Mail {
  const { BUILDING_NAME } = getEnv();
  return {
    to: email,
    subject: "Hemos recibido tu consulta",
    ...composeMail({
      greeting: `Hola, ${nombre}:`,
      paragraphs: [
        `Gracias por escribir a ${BUILDING_NAME}. Hemos recibido tu consulta y te responderemos lo antes posible.`,
        "Si no has sido tú, puedes ignorar este mensaje.",
      ],
      rows: [["Dirección", ADDRESS]],
    }),
  };
}

export function visitRequestMail({ nombre, email, fecha, hora }: { nombre: string; email: string; fecha: string; hora: string }): Mail {
  return {
    to: email,
    subject: "Hemos recibido tu solicitud de visita",
    ...composeMail({
      greeting: `Hola, ${nombre}:`,
      paragraphs: [
        "Gracias por tu interés. Hemos recibido tu solicitud de visita y te confirmaremos la cita lo antes posible.",
      ],
      rows: [
        ["Fecha preferida", formatIsoDay(fecha)],
        ["Hora preferida", hora],
        ["Dirección", ADDRESS],
      ],
    }),
  };
}
