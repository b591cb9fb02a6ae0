// The audit trail's rows (docs/audit.md): appended in the chain's order with
// their hashes, read newest first with the admin's filters, walked oldest
// first to verify, and purged from the oldest end.
import { createHash, createHmac } from "node:crypto";
import { and, asc, desc, eq, gt, gte, lt, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { auditControl, auditEvents, type AuditEvent } from "~/db/schema";
import { getDb, likePattern } from "~/utils/db.server";
import { auditChainKey } from "~/utils/keys.server";

export type { AuditEvent };

/** The previous hash of the very first event. */
export const GENESIS_HASH = "0".repeat(64);

function hashedText(event: Omit<AuditEvent, "hash">) {
  return JSON.stringify([
    event.id,
    event.at,
    event.actorId,
    event.actorUsername,
    event.actorRole,
    event.ip,
    event.action,
    event.entityType,
    event.entityId,
    event.summary,
    event.before,
    event.after,
  ]);
}

/**
 * An event's hash: HMAC-SHA256 (hex), with the trail's key (kept outside the
 * database: app/utils/keys.server.ts), of the previous event's hash, a line
 * break, and the event's content as a JSON array in a fixed order: id, at,
 * actor id, actor username, actor role, ip, action, entity type, entity id,
 * summary, before, after (before and after as their stored JSON text, or null).
 */
export function auditEventHash(event: Omit<AuditEvent, "hash">, key: Buffer = requireChainKey()) {
  return createHmac("sha256", key).update(event.prevHash).update("\n").update(hashedText(event)).digest("hex");
}

/** The hash of an event written before the trail had a key: plain SHA-256 of the same text (docs/audit.md). */
export function unkeyedAuditEventHash(event: Omit<AuditEvent, "hash">) {
  return createHash("sha256").update(event.prevHash).update("\n").update(hashedText(event)).digest("hex");
}

function requireChainKey() {
  const key = auditChainKey({ create: true });
  if (!key) throw new Error("the audit trail has no key");
  return key;
}

export type NewAuditEvent = Omit<AuditEvent, "id" | "prevHash" | "hash">;

/** The newest event (the chain's head), if any. */
export async function getLastAuditEvent() {
  const [last] = await getDb().select().from(auditEvents).orderBy(desc(auditEvents.id)).limit(1);
  return last;
}

/**
 * Appends the events after the chain's head, each hashed (keyed) over the one
 * before. Must run inside the write transaction of the change they record
 * (inWriteTransaction), which holds the write lock from its start: no other
 * writer can append between reading the head and inserting.
 */
export async function appendAuditEvents(events: NewAuditEvent[]) {
  if (events.length === 0) return [];
  const head = await getLastAuditEvent();
  let id = head?.id ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  const key = requireChainKey();
  const rows: AuditEvent[] = [];
  for (const event of events) {
    id += 1;
    const row = { ...event, id, prevHash };
    const hashed = { ...row, hash: auditEventHash(row, key) };
    rows.push(hashed);
    prevHash = hashed.hash;
  }
  await getDb().insert(auditEvents).values(rows);
  return rows;
}

export type AuditCriteria = {
  /** The actor's username starts with this (case ignored for ASCII letters). */
  actor?: string;
  entityType?: string;
  action?: string;
  /** Instants (epoch ms), both inclusive. */
  from?: number;
  to?: number;
  /** In the summary, the actor, the entity's id, the address or the fields before and after. */
  search?: string;
};

function criteriaWhere({ actor, entityType, action, from, to, search }: AuditCriteria): SQL | undefined {
  const e = auditEvents;
  const conditions: SQL[] = [];
  if (actor) conditions.push(sql`${e.actorUsername} LIKE ${likePattern(actor, { prefixOnly: true })} ESCAPE '\\'`);
  if (entityType) conditions.push(eq(e.entityType, entityType));
  if (action) conditions.push(eq(e.action, action));
  if (from !== undefined) conditions.push(gte(e.at, from));
  if (to !== undefined) conditions.push(lte(e.at, to));
  if (search) {
    const pattern = likePattern(search);
    const contains = (column: SQLWrapper) => sql`coalesce(${column}, '') LIKE ${pattern} ESCAPE '\\'`;
    conditions.push(or(contains(e.summary), contains(e.actorUsername), contains(e.entityId), contains(e.ip), contains(e.before), contains(e.after))!);
  }
  return conditions.length ? and(...conditions) : undefined;
}

export async function countAuditEvents(criteria: AuditCriteria) {
  const [row] = await getDb().select({ n: sql<number>`count(*)` }).from(auditEvents).where(criteriaWhere(criteria));
  return Number(row?.n ?? 0);
}

export async function getAuditEventById(id: number) {
  const [row] = await getDb().select().from(auditEvents).where(eq(auditEvents.id, id)).limit(1);
  return row;
}

/** Newest first (the chain's order, backwards). */
export async function listAuditEvents(criteria: AuditCriteria, { limit, offset }: { limit: number; offset: number }): Promise<AuditEvent[]> {
  return getDb().select().from(auditEvents).where(criteriaWhere(criteria)).orderBy(desc(auditEvents.id)).limit(limit).offset(offset);
}

/** The matching events newest first, a batch at a time (the CSV export). */
export async function* streamAuditEvents(criteria: AuditCriteria, batchSize = 500) {
  let below: number | undefined;
  for (;;) {
    const where = criteriaWhere(criteria);
    const batch = await getDb()
      .select()
      .from(auditEvents)
      .where(below === undefined ? where : and(where, lt(auditEvents.id, below)))
      .orderBy(desc(auditEvents.id))
      .limit(batchSize);
    if (batch.length === 0) return;
    yield batch;
    if (batch.length < batchSize) return;
    below = batch[batch.length - 1]!.id;
  }
}

/** Every event oldest first, a batch at a time (verification). */
export async function* walkAuditChain(batchSize = 1000) {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const batch = await getDb().select().from(auditEvents).where(gt(auditEvents.id, after)).orderBy(asc(auditEvents.id)).limit(batchSize);
    if (batch.length === 0) return;
    yield batch;
    if (batch.length < batchSize) return;
    after = batch[batch.length - 1]!.id;
  }
}

/** The newest event with this action (the latest purge holds the chain's anchor). */
export async function getLastAuditEventOfAction(action: string) {
  const [row] = await getDb().select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(desc(auditEvents.id)).limit(1);
  return row;
}

/**
 * Deletes the events recorded before `before`, from the oldest end of the
 * chain, always keeping the newest. Inside a write transaction: the bound is
 * written to audit_control for the delete trigger and cleared again, so no
 * other statement ever sees it. Answers how many were deleted and the first
 * event kept (its id and previous hash anchor the chain from then on).
 */
export async function deleteAuditEventsBefore(before: Date) {
  const db = getDb();
  const head = await getLastAuditEvent();
  const [oldest] = await db.select({ id: auditEvents.id }).from(auditEvents).orderBy(asc(auditEvents.id)).limit(1);
  if (!head || !oldest) return { deleted: 0, firstKept: null };
  const [firstRecent] = await db
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(gte(auditEvents.at, before.getTime()))
    .orderBy(asc(auditEvents.id))
    .limit(1);
  const bound = Math.min(firstRecent?.id ?? head.id, head.id);
  if (bound <= oldest.id) return { deleted: 0, firstKept: null };
  await db.update(auditControl).set({ purgeBelow: bound }).where(eq(auditControl.id, 1));
  const deleted = await db.delete(auditEvents).where(lt(auditEvents.id, bound));
  await db.update(auditControl).set({ purgeBelow: 0 }).where(eq(auditControl.id, 1));
  const [firstKept] = await db.select().from(auditEvents).orderBy(asc(auditEvents.id)).limit(1);
  return { deleted: deleted.rowsAffected, firstKept: firstKept ?? null };
}
