import crypto from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { anonymousReservations, type AnonymousReservation } from "~/db/schema";
import { GUEST_CANCELLABLE, RESERVATION_CODE_ALPHABET, type ReservationInput } from "~/schemas/reservation";
import { createId } from "~/utils/crypto.server";
import { getDb, isUniqueViolation } from "~/utils/db.server";

export type { AnonymousReservation };

export function generateReservationCode(length = 8) {
  let code = "";
  for (let i = 0; i < length; i++) code += RESERVATION_CODE_ALPHABET[crypto.randomInt(RESERVATION_CODE_ALPHABET.length)];
  return code;
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
      if (!isUniqueViolation(error, "reservation_code")) throw error;
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
