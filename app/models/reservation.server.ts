import crypto from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { anonymousReservations, type AnonymousReservation } from "~/db/schema";
import { GUEST_CANCELLABLE, RESERVATION_CODE_ALPHABET, type ReservationInput } from "~/schemas/reservation";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { AnonymousReservation };

export function generateReservationCode(length = 8) {
  let code = "";
  for (let i = 0; i < length; i++) code += RESERVATION_CODE_ALPHABET[crypto.randomInt(RESERVATION_CODE_ALPHABET.length)];
  return code;
}

function isUniqueViolation(error: unknown) {
  const text = String((error as { cause?: unknown })?.cause ?? "") + String((error as Error)?.message ?? "");
  return text.includes("UNIQUE constraint failed") && text.includes("reservation_code");
}

/** Stores a reservation under a fresh random code, retrying on a collision. */
export async function createReservation(input: ReservationInput & { ipAddress: string | null }) {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const [reservation] = await getDb()
        .insert(anonymousReservations)
        .values({ id: createId(), reservationCode: generateReservationCode(), ...input })
        .returning();
      return reservation!;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error("Could not find a free reservation code after 5 attempts");
}

export async function getReservationByCode(code: string) {
  return getDb().query.anonymousReservations.findFirst({
    where: eq(anonymousReservations.reservationCode, code.toUpperCase()),
  });
}

/** Cancels only if the reservation is still pending or confirmed; null otherwise. */
export async function cancelReservationByGuest(id: string, now = new Date()) {
  const [cancelled] = await getDb()
    .update(anonymousReservations)
    .set({ status: "cancelled", cancelledAt: now, updatedAt: now })
    .where(and(eq(anonymousReservations.id, id), inArray(anonymousReservations.status, [...GUEST_CANCELLABLE])))
    .returning();
  return cancelled ?? null;
}

export async function countReservations() {
  const [row] = await getDb().select({ n: sql<number>`count(*)` }).from(anonymousReservations);
  return Number(row?.n ?? 0);
}

/** What a guest may see of their reservation (no IP address, no internal id). */
export function toGuestView(reservation: AnonymousReservation) {
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
    confirmedAt: reservation.confirmedAt?.toISOString() ?? null,
    updatedAt: reservation.updatedAt.toISOString(),
  };
}

export type GuestReservation = ReturnType<typeof toGuestView>;
