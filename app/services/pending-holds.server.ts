// How a guest's pending booking holds its place (issue 40, point 5). With
// BOOKING_EMAIL_CONFIRMATION on, a new booking holds nothing until the guest
// confirms their email with the first mail's link, and lapses after
// PENDING_EMAIL_MINUTES if they do not; a booking that holds and that the
// house has not confirmed lapses PENDING_HOLD_HOURS after its hold began (with
// it off, from the booking), and guest and house are told. A lapsed stay stops
// counting at its instant: availability and the inventory's triggers compare
// `expires_at` with the clock (holdsSql, drizzle/0029_pending_holds.sql); the
// release job only records it (cancelled, with `lapsed_at`; one audited
// transaction each) and sends the mail. Open pending stays are capped per email
// (PENDING_PER_EMAIL) and per client address a day (PENDING_PER_ADDRESS).
import { receiptHoldNote as holdNoteOf, holdReleasedMail, holdReleasedStaffMail, holdStartedMail, spanWords } from "~/mail/pending-hold-mail.server";
import {
  awaitsEmail,
  confirmStayEmail,
  countOpenPendingForEmail,
  countOpenPendingFromAddress,
  expirePendingStay,
  getReservationByCode,
  listLapsedPendingStays,
  type PendingTerms,
  type Stay,
} from "~/models/reservation.server";
import { formatDateTime } from "~/utils/dates";
import { randomToken, sha256 } from "~/utils/crypto.server";
import { getEnv } from "~/utils/env.server";
import { trySendMail, trySendStaffNotice } from "~/utils/mail.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { audited, guestActor, SYSTEM_ACTOR } from "./audit.server";
import { fullRefusal } from "./availability.server";
import { checkRateLimit } from "./rate-limits.server";

const DAY_MS = 24 * 3600_000;

export const HOLD_MESSAGES = {
  invalidLink: "El enlace de confirmación no es válido. Copia el enlace completo del email o haz la reserva de nuevo.",
  lapsed: "Esta reserva ha caducado porque el email no se confirmó a tiempo. Haz la reserva de nuevo.",
  notPending: "Esta reserva ya no está pendiente de confirmar.",
} as const;

export function perEmailMessage(limit: number) {
  return limit === 1
    ? "Ya tienes 1 reserva pendiente con este email, el máximo. Cancélala o espera a que la confirmemos para hacer otra."
    : `Ya tienes ${limit} reservas pendientes con este email, el máximo. Cancela una o espera a que la confirmemos para hacer otra.`;
}

export function perAddressMessage(limit: number) {
  return limit === 1
    ? "Ya se ha hecho 1 reserva pendiente desde tu conexión hoy, el máximo. Vuelve a intentarlo mañana o escríbenos."
    : `Ya se han hecho ${limit} reservas pendientes desde tu conexión hoy, el máximo. Vuelve a intentarlo mañana o escríbenos.`;
}

/** Whether new bookings wait for the guest's email before they hold. */
export function confirmsByEmail() {
  return getEnv().BOOKING_EMAIL_CONFIRMATION === "on";
}

/** A new booking's terms, and the token of its first mail's link (null when it holds at once). */
export function newPendingTerms(now = new Date()): { terms: PendingTerms; token: string | null } {
  const { PENDING_EMAIL_MINUTES, PENDING_HOLD_HOURS } = getEnv();
  if (!confirmsByEmail()) {
    return { terms: { heldSince: now, expiresAt: new Date(now.getTime() + PENDING_HOLD_HOURS * 3600_000), emailTokenHash: null }, token: null };
  }
  const token = randomToken(24);
  return { terms: { heldSince: null, expiresAt: new Date(now.getTime() + PENDING_EMAIL_MINUTES * 60_000), emailTokenHash: sha256(token) }, token };
}

/**
 * The caps on open pending stays, read inside the booking's write
 * transaction (so bookings sent at once cannot pass them together): 409 past
 * PENDING_PER_EMAIL for the email, 429 past PENDING_PER_ADDRESS booked from
 * the address in the last 24 hours. Null when the booking may go on.
 */
export async function pendingCapRefusal(email: string, ip: string, now = new Date()): Promise<Refusal | null> {
  const { PENDING_PER_EMAIL, PENDING_PER_ADDRESS } = getEnv();
  if ((await countOpenPendingForEmail(email, now)) >= PENDING_PER_EMAIL) return refuse(409, perEmailMessage(PENDING_PER_EMAIL), { field: "guestEmail" });
  if ((await countOpenPendingFromAddress(ip, new Date(now.getTime() - DAY_MS), now)) >= PENDING_PER_ADDRESS) {
    return refuse(429, perAddressMessage(PENDING_PER_ADDRESS), { retryAfterSeconds: 3600 });
  }
  return null;
}

/** What a guest's booking says of its hold: awaiting the email (until when), or held until when. */
export function holdOf(reservation: Pick<Stay, "status" | "heldSince" | "emailTokenHash" | "expiresAt" | "lapsedAt">) {
  const lapsedAt = reservation.lapsedAt ? reservation.lapsedAt.toISOString() : null;
  if (reservation.status !== "pending") return { awaitingEmail: false, holdUntil: null, lapsedAt };
  return {
    awaitingEmail: awaitsEmail(reservation),
    holdUntil: reservation.expiresAt ? reservation.expiresAt.toISOString() : null,
    lapsedAt,
  };
}

/**
 * The guest followed the first mail's link (the /reserva-confirmar page's
 * button, or its JSON twin): the booking begins to hold for
 * PENDING_HOLD_HOURS, unless its room type (or every sala) is full by now,
 * then 409 with the booking's own message. The same link again answers the
 * booking as it is.
 */
export async function confirmBookingEmail(
  code: string,
  token: string,
  { ip }: { ip: string },
  now = new Date(),
): Promise<Result<{ reservation: Stay; alreadyConfirmed: boolean }>> {
  const refused = await checkRateLimit("reservationLookup", [ip]);
  if (refused) return refused;
  const reservation = await getReservationByCode(code.trim().toUpperCase().slice(0, 8));
  const tokenHash = sha256(token);
  if (!reservation || !reservation.emailTokenHash || reservation.emailTokenHash !== tokenHash) return refuse(404, HOLD_MESSAGES.invalidLink);
  if (!awaitsEmail(reservation)) {
    return reservation.status === "pending" || reservation.status === "confirmed"
      ? { ok: true, reservation, alreadyConfirmed: true }
      : refuse(409, HOLD_MESSAGES.notPending);
  }
  if (reservation.lapsedAt || (reservation.status === "pending" && reservation.expiresAt && reservation.expiresAt <= now)) {
    return refuse(409, HOLD_MESSAGES.lapsed);
  }
  if (reservation.status !== "pending") return refuse(409, HOLD_MESSAGES.notPending);
  const expiresAt = new Date(now.getTime() + getEnv().PENDING_HOLD_HOURS * 3600_000);
  const outcome = await audited(async (audit) => {
    const confirmed = await confirmStayEmail(reservation, tokenHash, { now, expiresAt });
    if (confirmed.ok) {
      audit({
        actor: guestActor(reservation.reservationCode),
        action: "reservation.email_confirm",
        entityType: "reservation",
        entityId: reservation.id,
        summary: `confirmó su email: la reserva ${reservation.reservationCode} queda retenida hasta el ${formatDateTime(expiresAt)}`,
        before: { heldSince: null, expiresAt: reservation.expiresAt },
        after: { heldSince: now, expiresAt },
      });
    }
    return confirmed;
  });
  if (!outcome.ok) {
    if (outcome.reason === "not-awaiting") return refuse(409, HOLD_MESSAGES.notPending);
    return fullRefusal(reservation);
  }
  // The house heard of the booking when it was made (its notice said it awaited the email).
  await trySendMail(holdStartedMail(outcome.reservation));
  return { ok: true, reservation: outcome.reservation, alreadyConfirmed: false };
}

/**
 * Releases every pending stay whose time ran out (cancelled, lapsedAt set), each in its own
 * audited transaction (safe in several processes at once: a stay is released
 * once). A stay that held its place tells its guest and the house; one whose
 * email was never confirmed held nothing and is released without mail.
 * Answers how many were released.
 */
export async function releaseLapsedHolds(now = new Date()) {
  const { PENDING_EMAIL_MINUTES, PENDING_HOLD_HOURS } = getEnv();
  let released = 0;
  for (const { id } of await listLapsedPendingStays(now)) {
    const stay = await audited(
      async (audit) => {
        const expired = await expirePendingStay(id, now);
        if (!expired) return null;
        audit({
          action: "reservation.expire",
          entityType: "reservation",
          entityId: expired.id,
          summary: !awaitsEmail(expired)
            ? `anuló la reserva ${expired.reservationCode}: llevaba ${spanWords({ hours: PENDING_HOLD_HOURS })} pendiente sin confirmar`
            : `anuló la reserva ${expired.reservationCode}: su email no se confirmó en ${spanWords({ minutes: PENDING_EMAIL_MINUTES })}`,
          before: { status: "pending" },
          after: { status: expired.status, lapsedAt: expired.lapsedAt },
        });
        return expired;
      },
      { actor: SYSTEM_ACTOR, ip: null },
    );
    if (!stay) continue;
    released++;
    if (!awaitsEmail(stay)) await Promise.all([trySendMail(holdReleasedMail(stay)), trySendStaffNotice(holdReleasedStaffMail(stay))]);
  }
  return released;
}

/** Releases lapsed holds every intervalMs from boot on (boot.server.ts); answers the stop. */
export function scheduleHoldReleases(intervalMs = 60_000): () => void {
  const run = () => void releaseLapsedHolds().catch((error: unknown) => console.error("[pending-holds] release failed", error));
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the booking's receipt (/reservar) says of its hold: until when the guest has to confirm their email, or until when it holds. */
export function receiptHoldNote(reservation: Pick<Stay, "heldSince" | "emailTokenHash" | "expiresAt">) {
  return holdNoteOf(reservation);
}
