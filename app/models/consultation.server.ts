import { and, desc, eq, gt, lt, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { consultations, type Consultation } from "~/db/schema";
import { createId, sha256 } from "~/utils/crypto.server";
import { getDb, likePattern } from "~/utils/db.server";

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
  /** Visit requests: the day and hour asked for. */
  visitDate?: string | null;
  visitTime?: string | null;
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

// The admin's list.
const c = consultations;
type Status = Consultation["status"];


/** Trigrams need three characters (drizzle/…_consultation_search.sql). */
const INDEXED_SEARCH_MIN_LENGTH = 3;

/**
 * Name, email or message contains the text. From three characters on it is
 * a lookup in the trigram index (case and accents ignored); shorter text is
 * a LIKE over every row (case ignored for unaccented letters).
 */
function searchCondition(search: string): SQL {
  if (Array.from(search).length >= INDEXED_SEARCH_MIN_LENGTH) {
    const phrase = `"${search.replace(/"/g, '""')}"`;
    return sql`${c}.rowid IN (SELECT rowid FROM consultations_search WHERE consultations_search MATCH ${phrase})`;
  }
  const pattern = likePattern(search);
  const contains = (column: SQLWrapper) => sql`${column} LIKE ${pattern} ESCAPE '\\'`;
  return or(contains(c.nombre), contains(c.email), contains(c.mensaje))!;
}

export type ConsultationCriteria = { status?: Status; search?: string };

function criteriaConditions({ status, search }: ConsultationCriteria) {
  const conditions: SQL[] = [];
  if (status) conditions.push(eq(c.status, status));
  if (search) conditions.push(searchCondition(search));
  return conditions.length ? and(...conditions) : undefined;
}

/** One page, newest first (rowids of one index range, then the rows). */
export async function listConsultations(criteria: ConsultationCriteria, { limit, offset }: { limit: number; offset: number }) {
  const db = getDb();
  const page = db
    .select({ rowid: sql`rowid` })
    .from(c)
    .where(criteriaConditions(criteria))
    .orderBy(desc(c.createdAt), desc(sql`rowid`))
    .limit(limit)
    .offset(offset);
  return db
    .select()
    .from(c)
    .where(sql`rowid IN ${page}`)
    .orderBy(desc(c.createdAt), desc(sql`rowid`));
}

export type ConsultationStatusCounts = Record<Status, number> & { total: number };

/** How many consultations of each status match the search (the status filter aside). */
export async function countConsultationsByStatus({ search }: ConsultationCriteria): Promise<ConsultationStatusCounts> {
  const rows = await getDb()
    .select({ status: c.status, count: sql<number>`count(*)` })
    .from(c)
    .where(search ? searchCondition(search) : undefined)
    .groupBy(c.status);
  const counts: ConsultationStatusCounts = { total: 0, pending: 0, read: 0, replied: 0, closed: 0 };
  for (const row of rows) {
    counts[row.status] = Number(row.count);
    counts.total += Number(row.count);
  }
  return counts;
}

export async function getConsultationById(id: string) {
  return getDb().query.consultations.findFirst({ where: eq(c.id, id) });
}

export async function updateConsultation(id: string, fields: { status?: Status; adminNotes?: string | null }, now = new Date()) {
  const [row] = await getDb()
    .update(c)
    .set({ ...fields, updatedAt: now })
    .where(eq(c.id, id))
    .returning();
  return row ?? null;
}

/** pending → read; any other status stays. Answers the row as it is now (null when missing). */
export async function markConsultationRead(id: string, now = new Date()) {
  const [updated] = await getDb()
    .update(c)
    .set({ status: "read", updatedAt: now })
    .where(and(eq(c.id, id), eq(c.status, "pending")))
    .returning();
  return updated ?? (await getConsultationById(id)) ?? null;
}

export async function deleteConsultation(id: string) {
  const [row] = await getDb().delete(c).where(eq(c.id, id)).returning({ id: c.id, nombre: c.nombre });
  return row ?? null;
}

/** Privacy: consultations (with their IP address) received before `before`. Answers how many went. */
export async function purgeConsultationsBefore(before: Date) {
  const result = await getDb().delete(c).where(lt(c.createdAt, before));
  return result.rowsAffected;
}
