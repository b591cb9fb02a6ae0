import { and, eq, gt, sql } from "drizzle-orm";
import { consultations, type Consultation } from "~/db/schema";
import { createId, sha256 } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Consultation };

export const DUPLICATE_WINDOW_MS = 24 * 60 * 60_000;

function messageHash(mensaje: string) {
  return sha256(mensaje.trim().toLowerCase().replace(/\s+/g, " "));
}

export type NewConsultation = {
  kind: Consultation["kind"];
  nombre: string;
  email: string;
  telefono: string;
  mensaje: string;
  ipAddress: string | null;
};

/**
 * Stores the consultation unless the same email sent the same message in the
 * last 24 hours. The check and the insert share one write transaction, so two
 * identical submissions at once store one.
 */
export async function createConsultation(input: NewConsultation, now = Date.now()) {
  const hash = messageHash(input.mensaje);
  return getDb().transaction(
    async (tx) => {
      const [duplicate] = await tx
        .select({ id: consultations.id })
        .from(consultations)
        .where(
          and(
            eq(consultations.email, input.email),
            eq(consultations.messageHash, hash),
            gt(consultations.createdAt, new Date(now - DUPLICATE_WINDOW_MS)),
          ),
        )
        .limit(1);
      if (duplicate) return { ok: false as const, reason: "duplicate" as const };
      const [consultation] = await tx
        .insert(consultations)
        .values({ id: createId(), ...input, messageHash: hash, createdAt: new Date(now), updatedAt: new Date(now) })
        .returning();
      return { ok: true as const, consultation: consultation! };
    },
    { behavior: "immediate" },
  );
}

export async function countConsultationsByEmail(email: string) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)` })
    .from(consultations)
    .where(eq(consultations.email, email));
  return Number(row?.n ?? 0);
}
