// What a visitor without an account can do, shared by the pages and the JSON
// API: each function takes already-validated input and answers a result the
// caller turns into a page or a JSON response.
import { answerCaptcha, createCaptcha } from "./captcha-challenge.server";
import { createConsultation } from "~/models/consultation.server";
import { createPublicIncident } from "~/models/incident.server";
import { cancelReservationByGuest, createReservation, getReservationByCode, stayWouldBeFull, type Stay } from "~/models/reservation.server";
import { newConsultationStaffMail, newIncidentStaffMail, newReservationStaffMail } from "~/mail/staff-mail.server";
import { enquiryReceivedMail, reservationCancelledMail, reservationConfirmationMail, visitRequestMail } from "~/mail/visitor-mail.server";
import type { EnquiryInput, VisitInput } from "~/schemas/enquiry";
import type { PublicIncidentInput } from "~/schemas/public-incident";
import { CONTACT_PREFERENCE_LABELS, RESERVATION_TYPE_LABELS, ROOM_TYPE_LABELS, stayDays, type ReservationInput } from "~/schemas/reservation";
import { confirmEmailMail, newAwaitingEmailStaffMail } from "~/mail/pending-hold-mail.server";
import { getEnv } from "~/utils/env.server";
import { holdOf, newPendingTerms, pendingCapRefusal } from "./pending-holds.server";
import { formatIsoDay } from "~/utils/dates";
import { trySendMail, trySendStaffNotice } from "~/utils/mail.server";
import { checkRateLimit, countRateLimitHit, peekRateLimit } from "./rate-limits.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { notifyAccessChange } from "~/access/notify.server";
import { anonymousActor, audited, guestActor } from "./audit.server";
import { getStayAccess, syncStayKey } from "./door-keys.server";
import { fullRefusal, salaHold } from "./availability.server";

export const MESSAGES = {
  reservationNotFound: "Reserva no encontrada",
  emailMismatch: "El email no coincide con la reserva",
  notCancellable: "Esta reserva ya no se puede cancelar",
  duplicateEnquiry: "Una consulta similar ya fue enviada recientemente.",
  duplicateVisit: "Una solicitud similar ya fue enviada recientemente.",
  wrongCaptcha: "La respuesta anti-spam no es correcta o ha caducado. Responde a la nueva pregunta.",
} as const;

export type PlacedBooking =
  | { kind: "reservation"; reservation: Stay; emailSent: boolean; awaitingEmail: boolean }
  | { kind: "enquiry"; nights: number; emailSent: boolean };

/**
 * A guest's booking. A stay longer than MAX_ONLINE_NIGHTS is an enquiry for
 * the house, holding nothing. Otherwise it is refused past the caps on open
 * pending stays (per email, per address a day); with
 * BOOKING_EMAIL_CONFIRMATION on it is stored awaiting the guest's email and
 * holds nothing until then (pending-holds.server.ts); with it off it holds at
 * once, and the database refuses it (409, naming why) when the rooms of its
 * type are all taken on one of its nights, or no sala is free on every one
 * of its days.
 */
export async function placeReservation(
  input: ReservationInput,
  { ip }: { ip: string },
  now = new Date(),
): Promise<Result<PlacedBooking>> {
  const refused = await checkRateLimit("bookingForm", [ip]);
  if (refused) return refused;
  const nights = stayDays(input.startDate, input.endDate);
  if (nights > getEnv().MAX_ONLINE_NIGHTS) return placeLongStayEnquiry(input, nights, { ip });
  const hold = input.reservationType === "sala" ? salaHold(input.startDate, input.endDate) : null;
  const { terms, token } = newPendingTerms(now);
  const created = await audited(async (audit): Promise<Awaited<ReturnType<typeof createReservation>> | Refusal> => {
    const capped = await pendingCapRefusal(input.guestEmail, ip, now);
    if (capped) return capped;
    // Awaiting the email it holds nothing, but a type full already is refused now, as a booking that holds.
    const full = token ? await stayWouldBeFull(input, hold, now.getTime()) : null;
    if (full) return { ok: false as const, reason: full };
    const stored = await createReservation({ ...input, ipAddress: ip }, hold, terms);
    if (stored.ok) {
      const { reservation: stay } = stored;
      audit({
        actor: guestActor(stay.reservationCode),
        action: "reservation.create",
        entityType: "reservation",
        entityId: stay.id,
        summary: `solicitó la reserva ${stay.reservationCode} (${stay.startDate} a ${stay.endDate})`,
        after: {
          reservationCode: stay.reservationCode,
          guestName: stay.guestName,
          reservationType: stay.reservationType,
          roomType: stay.roomType,
          startDate: stay.startDate,
          endDate: stay.endDate,
          status: stay.status,
          awaitingEmail: token !== null,
          expiresAt: stay.expiresAt,
        },
      });
    }
    return stored;
  });
  if (!created.ok) return "status" in created ? created : fullRefusal(input);
  const { reservation } = created;
  // Awaiting the email: the guest's first mail carries the link, and the house's notice says it holds nothing yet.
  const [emailSent] = await Promise.all([
    trySendMail(token ? confirmEmailMail(reservation, token) : reservationConfirmationMail(reservation)),
    trySendStaffNotice(token ? newAwaitingEmailStaffMail(reservation) : newReservationStaffMail(reservation)),
  ]);
  return { ok: true, kind: "reservation", reservation, emailSent, awaitingEmail: token !== null };
}

/** The enquiry a stay longer than MAX_ONLINE_NIGHTS becomes: the stay it asks for, in words. */
export function composeLongStayMessage(input: ReservationInput, nights: number) {
  const type = RESERVATION_TYPE_LABELS[input.reservationType];
  return [
    `Solicitud de estancia larga (${nights} noches; en línea se reservan hasta ${getEnv().MAX_ONLINE_NIGHTS})`,
    `Tipo: ${input.roomType ? `${type} (${ROOM_TYPE_LABELS[input.roomType]})` : type}`,
    `Fecha de entrada: ${formatIsoDay(input.startDate)}`,
    `Fecha de salida: ${formatIsoDay(input.endDate)}`,
    `Preferencia de contacto: ${CONTACT_PREFERENCE_LABELS[input.contactPreference]}`,
    ...(input.specialRequests ? [`Peticiones especiales: ${input.specialRequests}`] : []),
  ].join("\n");
}

/** A stay longer than MAX_ONLINE_NIGHTS: an enquiry for the house (as the contact form's), holding nothing. */
async function placeLongStayEnquiry(input: ReservationInput, nights: number, { ip }: { ip: string }): Promise<Result<PlacedBooking>> {
  const created = await audited(async (audit) => {
    const stored = await createConsultation({
      kind: "consulta",
      nombre: input.guestName,
      email: input.guestEmail,
      telefono: input.guestPhone,
      mensaje: composeLongStayMessage(input, nights),
      ipAddress: ip,
    });
    if (stored.ok) {
      audit({
        actor: anonymousActor("visitante"),
        action: "consultation.create",
        entityType: "consultation",
        entityId: stored.consultation.id,
        summary: `envió una solicitud de estancia larga (${nights} noches) de ${stored.consultation.nombre}`,
        after: { kind: stored.consultation.kind, startDate: input.startDate, endDate: input.endDate, nights },
      });
    }
    return stored;
  }, PRIVATE_EVENT);
  if (!created.ok) return refuse(409, MESSAGES.duplicateEnquiry);
  const [emailSent] = await Promise.all([
    trySendMail(enquiryReceivedMail({ nombre: input.guestName, email: input.guestEmail })),
    trySendStaffNotice(newConsultationStaffMail(created.consultation)),
  ]);
  return { ok: true, kind: "enquiry", nights, emailSent };
}

export async function findGuestReservation(
  code: string,
  email: string,
  { ip }: { ip: string },
): Promise<Result<{ reservation: Stay }>> {
  const refused = await checkRateLimit("reservationLookup", [ip]);
  if (refused) return refused;
  const reservation = await getReservationByCode(code.trim().toUpperCase().slice(0, 8));
  if (!reservation) return refuse(404, MESSAGES.reservationNotFound);
  if (reservation.guestEmail.toLowerCase() !== email.trim().toLowerCase()) return refuse(403, MESSAGES.emailMismatch);
  return { ok: true, reservation };
}

export async function cancelGuestReservation(
  code: string,
  email: string,
  context: { ip: string },
): Promise<Result<{ reservation: Stay }>> {
  const found = await findGuestReservation(code, email, context);
  if (!found.ok) return found;
  const { reservation } = found;
  let keyDoorIds: string[] = [];
  const cancelled = await audited(async (audit) => {
    const updated = await cancelReservationByGuest(reservation.id);
    if (!updated) return null;
    // A confirmed stay's key is revoked: the doors refuse it at once.
    keyDoorIds = (await syncStayKey(updated)).doorIds;
    audit({
      actor: guestActor(updated.reservationCode),
      action: "reservation.cancel",
      entityType: "reservation",
      entityId: updated.id,
      summary: `canceló su reserva ${updated.reservationCode}`,
      before: { status: reservation.status },
      after: { status: updated.status },
    });
    return updated;
  });
  if (!cancelled) return refuse(409, MESSAGES.notCancellable);
  await notifyAccessChange({ doorIds: keyDoorIds });
  await trySendMail(reservationCancelledMail(cancelled));
  return { ok: true, reservation: cancelled };
}

/**
 * Privacy: a visitor's enquiry or fault report is recorded without their
 * address or contact details, which go with the consultation after
 * RETENTION_MONTHS (the audit trail is kept longer).
 */
const PRIVATE_EVENT = { ip: null };

export type Enquiry =
  | { kind: "consulta"; input: EnquiryInput }
  | { kind: "visita"; input: VisitInput };

export function composeVisitMessage({ fecha, hora, comentarios }: Pick<VisitInput, "fecha" | "hora" | "comentarios">) {
  return [
    "Solicitud de visita",
    `Fecha preferida: ${formatIsoDay(fecha)}`,
    `Hora preferida: ${hora}`,
    ...(comentarios ? [`Comentarios: ${comentarios}`] : []),
  ].join("\n");
}

/**
 * An enquiry or a visit request. Order: honeypot (bots get a silent success),
 * the form's rate limit, the one-time captcha, then the 24-hour duplicate
 * check. A wrong answer does not count against the limit (a person's typo
 * must not lock them out); a bot pays with a new question each time.
 */
export async function submitEnquiry(enquiry: Enquiry, { ip }: { ip: string }): Promise<Result<{ stored: boolean }>> {
  const { input } = enquiry;
  if (input.website) return { ok: true, stored: false };
  const rule = enquiry.kind === "visita" ? "visitForm" : "enquiryForm";
  const refused = await peekRateLimit(rule, [ip]);
  if (refused) return refused;
  if (!(await answerCaptcha(input.captchaId, input.captchaAnswer))) return refuse(400, MESSAGES.wrongCaptcha);
  await countRateLimitHit(rule, [ip]);
  const mensaje = enquiry.kind === "visita" ? composeVisitMessage(enquiry.input) : enquiry.input.mensaje;
  const created = await audited(async (audit) => {
    const stored = await createConsultation({
      kind: enquiry.kind,
      nombre: input.nombre,
      email: input.email,
      telefono: input.telefono,
      mensaje,
      ...(enquiry.kind === "visita" ? { visitDate: enquiry.input.fecha, visitTime: enquiry.input.hora } : {}),
      ipAddress: ip,
    });
    if (stored.ok) {
      const { consultation } = stored;
      audit({
        actor: anonymousActor("visitante"),
        action: "consultation.create",
        entityType: "consultation",
        entityId: consultation.id,
        summary: `envió ${enquiry.kind === "visita" ? "una solicitud de visita" : "una consulta"} de ${consultation.nombre}`,
        after: { kind: consultation.kind, visitDate: consultation.visitDate, visitTime: consultation.visitTime },
      });
    }
    return stored;
  }, PRIVATE_EVENT);
  if (!created.ok) return refuse(409, enquiry.kind === "visita" ? MESSAGES.duplicateVisit : MESSAGES.duplicateEnquiry);
  await Promise.all([
    trySendStaffNotice(newConsultationStaffMail(created.consultation, enquiry.kind === "visita" ? { comments: enquiry.input.comentarios } : {})),
    trySendMail(
      enquiry.kind === "visita"
        ? visitRequestMail({ nombre: input.nombre, email: input.email, fecha: enquiry.input.fecha, hora: enquiry.input.hora })
        : enquiryReceivedMail({ nombre: input.nombre, email: input.email }),
    ),
  ]);
  return { ok: true, stored: true };
}

export async function reportPublicIncident(input: PublicIncidentInput, { ip }: { ip: string }): Promise<Result<{ stored: boolean }>> {
  if (input.website) return { ok: true, stored: false };
  const refused = await checkRateLimit("faultReport", [ip]);
  if (refused) return refused;
  const { website: _honeypot, ...fields } = input;
  const incident = await audited(async (audit) => {
    const created = await createPublicIncident(fields);
    audit({
      actor: anonymousActor("visitante"),
      action: "incident.create",
      entityType: "incident",
      entityId: created.id,
      summary: `informó de la avería «${created.title}»`,
      after: { title: created.title, type: created.type, category: created.category, urgency: created.urgency, location: created.location, floor: created.floor },
    });
    return created;
  }, PRIVATE_EVENT);
  await trySendStaffNotice(newIncidentStaffMail(incident));
  return { ok: true, stored: true };
}

/** A new anti-spam question for the enquiry and visit forms (a page shows one; nothing is stored). */
export function newCaptcha() {
  return createCaptcha();
}

/** A new question asked for through the JSON API: limited per address. */
export async function newCaptchaForApi({ ip }: { ip: string }): Promise<Result<ReturnType<typeof createCaptcha>>> {
  const refused = await checkRateLimit("captchaCreation", [ip]);
  if (refused) return refused;
  return { ok: true, ...createCaptcha() };
}

/** The room (or, for a meeting room, the sala) a reservation has, as the API names it. */
export function placeOf(reservation: Stay) {
  if (reservation.roomId) return { _id: reservation.roomId, name: reservation.roomName ?? "" };
  if (reservation.salaId) return { _id: reservation.salaId, name: reservation.salaName ?? "" };
  return null;
}

/** What a guest may see of their reservation (no IP address). */
export function toGuestView(reservation: Stay) {
  return {
    _id: reservation.id,
    reservationCode: reservation.reservationCode,
    guestName: reservation.guestName,
    guestEmail: reservation.guestEmail,
    guestPhone: reservation.guestPhone,
    contactPreference: reservation.contactPreference,
    reservationType: reservation.reservationType,
    roomType: reservation.roomType,
    startDate: reservation.startDate,
    endDate: reservation.endDate,
    status: reservation.status,
    specialRequests: reservation.specialRequests,
    adminNotes: reservation.adminNotes,
    createdAt: reservation.createdAt.toISOString(),
    confirmedAt: reservation.confirmedAt ? reservation.confirmedAt.toISOString() : null,
    updatedAt: reservation.updatedAt.toISOString(),
    room: placeOf(reservation),
    // Issue 40: a pending booking awaiting its guest's email holds nothing; one that holds lapses at holdUntil.
    ...holdOf(reservation),
  };
}

/**
 * What a guest sees when looking their reservation up: with `access`, its
 * key (PIN, QR token, window, doors) while the stay is confirmed, else null.
 */
export async function toGuestLookupView(reservation: Stay) {
  return { ...toGuestView(reservation), access: await getStayAccess(reservation) };
}

export type GuestReservation = ReturnType<typeof toGuestView>;
export type GuestLookupView = Awaited<ReturnType<typeof toGuestLookupView>>;
