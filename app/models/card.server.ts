// Cards and their door permissions. Every change that can alter who may open
// a door is announced to the access service (notifyAccessChange), which
// republishes the offline lists of the doors concerned.
import { and, asc, desc, eq, gt, inArray, isNull, like, lte, or, sql } from "drizzle-orm";
import { cardPermissions, cards, users, type Card, type CARD_TYPES } from "~/db/schema";
import { canonicalCardId } from "~/access/contract";
import { notifyAccessChange } from "~/access/notify.server";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Card };

export class CardError extends Error {}

/** Upper-case hex (docs/mqtt.md); throws CardError with a Spanish message otherwise. */
export function requireCanonicalCardNumber(text: string): string {
  const canonical = canonicalCardId(text);
  if (!canonical) throw new CardError("El número de tarjeta debe ser hexadecimal (p. ej. 004E2B4E)");
  return canonical;
}

const holderColumns = {
  id: users.id,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  status: users.status,
};

/** The card with its holder (or null) and its permissions. */
export async function getCardById(id: string) {
  const db = getDb();
  const [row] = await db
    .select({ card: cards, holder: holderColumns })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(eq(cards.id, id))
    .limit(1);
  if (!row) return null;
  const permissions = await db
    .select({ doorId: cardPermissions.doorId, granted: cardPermissions.granted })
    .from(cardPermissions)
    .where(eq(cardPermissions.cardId, id));
  return { ...row.card, holder: row.holder?.id ? row.holder : null, permissions };
}

export async function getCardByNumber(cardNumber: string) {
  const canonical = canonicalCardId(cardNumber);
  if (!canonical) return undefined;
  return getDb().query.cards.findFirst({ where: eq(cards.cardNumber, canonical) });
}

export const CARD_SORT_FIELDS = {
  lastUsed: cards.lastUsedAt,
  createdAt: cards.createdAt,
  totalAccessAttempts: cards.totalAccessAttempts,
  successfulAccesses: cards.successfulAccesses,
  cardNumber: cards.cardNumber,
  alias: cards.alias,
  status: cards.status,
} as const;

export type CardListOptions = {
  sortBy?: keyof typeof CARD_SORT_FIELDS;
  sortOrder?: "asc" | "desc";
  /** "anonymous": only cards first used from a mobile device; "registered": the others. */
  anonymous?: "all" | "anonymous" | "registered";
  /** Part of the card number. */
  cardNumber?: string;
  limit?: number;
};

/** SPEC card list: default order lastUsed desc (never-used cards last). */
export async function listCards(options: CardListOptions = {}) {
  const column = CARD_SORT_FIELDS[options.sortBy ?? "lastUsed"];
  const order = options.sortOrder === "asc" ? asc : desc;
  const filters = [];
  if (options.anonymous === "anonymous") filters.push(eq(cards.isAnonymous, true));
  if (options.anonymous === "registered") filters.push(eq(cards.isAnonymous, false));
  const search = options.cardNumber?.trim().toUpperCase().replace(/[^0-9A-F]/g, "");
  if (search) filters.push(like(cards.cardNumber, `%${search}%`));
  return getDb()
    .select({ card: cards, holder: holderColumns })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(filters.length ? and(...filters) : undefined)
    .orderBy(sql`${column} IS NULL`, order(column), asc(cards.id))
    .limit(Math.min(options.limit ?? 100, 1000))
    .then((rows) => rows.map(({ card, holder }) => ({ ...card, holder: holder?.id ? holder : null })));
}

export async function listCardsOfUser(userId: string) {
  return getDb().select().from(cards).where(eq(cards.userId, userId)).orderBy(asc(cards.createdAt));
}

export type NewCard = {
  cardNumber: string;
  alias?: string | null;
  description?: string | null;
  cardType?: (typeof CARD_TYPES)[number];
  status?: Card["status"];
  isAnonymous?: boolean;
  userId?: string | null;
  expiresAt?: Date | null;
};

/** Registers a card (the number is canonicalised). New cards have no permissions yet. */
export async function registerCard(input: NewCard) {
  const [card] = await getDb()
    .insert(cards)
    .values({ id: createId(), ...input, cardNumber: requireCanonicalCardNumber(input.cardNumber) })
    .returning();
  return card!;
}

export type CardUpdate = Partial<Pick<Card, "alias" | "description" | "cardType" | "status" | "expiresAt">>;

export async function updateCard(id: string, fields: CardUpdate) {
  const [card] = await getDb()
    .update(cards)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(cards.id, id))
    .returning();
  if (card) await notifyAccessChange({ cardIds: [id] });
  return card ?? null;
}

export type DeleteCardResult = { ok: true; cardNumber: string } | { ok: false; reason: "not_found" | "assigned" };

/** SPEC: a card assigned to a user cannot be deleted (unassign it first). */
export async function deleteCard(id: string): Promise<DeleteCardResult> {
  const db = getDb();
  const card = await db.query.cards.findFirst({ where: eq(cards.id, id) });
  if (!card) return { ok: false, reason: "not_found" };
  if (card.userId) return { ok: false, reason: "assigned" };
  // The permissions go with the card: announce their doors.
  const doorIds = await listDoorIdsForCards([id]);
  await db.delete(cards).where(eq(cards.id, id));
  await notifyAccessChange({ doorIds });
  return { ok: true, cardNumber: card.cardNumber };
}

/** Grants (or explicitly denies) the card on a door. */
export async function setCardPermission(cardId: string, doorRowId: string, granted: boolean) {
  const now = new Date();
  await getDb()
    .insert(cardPermissions)
    .values({ cardId, doorId: doorRowId, granted })
    .onConflictDoUpdate({
      target: [cardPermissions.cardId, cardPermissions.doorId],
      set: { granted, updatedAt: now },
    });
  await notifyAccessChange({ doorIds: [doorRowId] });
}

export async function removeCardPermission(cardId: string, doorRowId: string) {
  const deleted = await getDb()
    .delete(cardPermissions)
    .where(and(eq(cardPermissions.cardId, cardId), eq(cardPermissions.doorId, doorRowId)))
    .returning({ cardId: cardPermissions.cardId });
  if (deleted.length > 0) await notifyAccessChange({ doorIds: [doorRowId] });
  return deleted.length > 0;
}

/** SPEC: approving a card from a denied log row makes a pending card active and grants the denied door. */
export async function approveCard(cardId: string, doorRowId?: string | null) {
  const db = getDb();
  const now = new Date();
  const card = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(cards)
      .set({ status: sql`CASE WHEN ${cards.status} = 'pending' THEN 'active' ELSE ${cards.status} END`, updatedAt: now })
      .where(eq(cards.id, cardId))
      .returning();
    if (updated && doorRowId) {
      await tx
        .insert(cardPermissions)
        .values({ cardId, doorId: doorRowId, granted: true })
        .onConflictDoUpdate({
          target: [cardPermissions.cardId, cardPermissions.doorId],
          set: { granted: true, updatedAt: now },
        });
    }
    return updated ?? null;
  });
  if (card) await notifyAccessChange({ cardIds: [cardId] });
  return card;
}

export type CardAssignment = {
  cardNumber: string;
  alias?: string | null;
  description?: string | null;
  cardType?: (typeof CARD_TYPES)[number];
  expiresAt?: Date | null;
};

/**
 * Assigns a card to a user, registering it (active) when it is new. SPEC:
 * assigning a card that belongs to someone else reassigns it.
 */
export async function assignCardToUser(userId: string, assignment: CardAssignment) {
  const cardNumber = requireCanonicalCardNumber(assignment.cardNumber);
  const db = getDb();
  const now = new Date();
  const result = await db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ card: cards, previousUsername: users.username })
      .from(cards)
      .leftJoin(users, eq(users.id, cards.userId))
      .where(eq(cards.cardNumber, cardNumber))
      .limit(1);
    const fields = {
      userId,
      alias: assignment.alias ?? null,
      description: assignment.description ?? null,
      cardType: assignment.cardType ?? "primary",
      expiresAt: assignment.expiresAt ?? null,
      updatedAt: now,
    };
    if (!existing) {
      const [card] = await tx
        .insert(cards)
        .values({ id: createId(), cardNumber, status: "active", ...fields })
        .returning();
      return { card: card!, reassigned: false, previousUser: null };
    }
    const [card] = await tx.update(cards).set(fields).where(eq(cards.id, existing.card.id)).returning();
    const reassigned = existing.card.userId !== null && existing.card.userId !== userId;
    return {
      card: card!,
      reassigned,
      previousUser: reassigned && existing.previousUsername ? { username: existing.previousUsername } : null,
    };
  });
  await notifyAccessChange({ cardIds: [result.card.id] });
  return result;
}

export async function unassignCard(cardId: string) {
  const [card] = await getDb()
    .update(cards)
    .set({ userId: null, updatedAt: new Date() })
    .where(eq(cards.id, cardId))
    .returning();
  if (card) await notifyAccessChange({ cardIds: [cardId] });
  return card ?? null;
}

/** Door row ids on which these cards have a permission (granted or not). */
export async function listDoorIdsForCards(cardIds: string[]): Promise<string[]> {
  if (cardIds.length === 0) return [];
  const rows = await getDb()
    .selectDistinct({ doorId: cardPermissions.doorId })
    .from(cardPermissions)
    .where(inArray(cardPermissions.cardId, cardIds));
  return rows.map((row) => row.doorId);
}

/** Door row ids on which the cards of these users have a permission. */
export async function listDoorIdsForUsers(userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await getDb()
    .selectDistinct({ doorId: cardPermissions.doorId })
    .from(cardPermissions)
    .innerJoin(cards, eq(cards.id, cardPermissions.cardId))
    .where(inArray(cards.userId, userIds));
  return rows.map((row) => row.doorId);
}

/**
 * The cards that would be granted on this door now (the door's own status
 * aside): active, not expired, held by an active user or by nobody, with a
 * granted permission. The door's offline list is made from them.
 */
export async function listGrantedCardsForDoor(doorRowId: string, now = new Date()) {
  return getDb()
    .select({ cardNumber: cards.cardNumber, expiresAt: cards.expiresAt })
    .from(cardPermissions)
    .innerJoin(cards, eq(cards.id, cardPermissions.cardId))
    .leftJoin(users, eq(users.id, cards.userId))
    .where(
      and(
        eq(cardPermissions.doorId, doorRowId),
        eq(cardPermissions.granted, true),
        eq(cards.status, "active"),
        or(isNull(cards.expiresAt), gt(cards.expiresAt, now)),
        or(isNull(users.id), eq(users.status, "active")),
      ),
    )
    .orderBy(asc(cards.cardNumber));
}

/** SPEC: expired cards are deactivated automatically. Returns the ids of the cards it deactivated. */
export async function deactivateExpiredCards(now = new Date()): Promise<string[]> {
  const rows = await getDb()
    .update(cards)
    .set({ status: "inactive", updatedAt: now })
    .where(and(eq(cards.status, "active"), lte(cards.expiresAt, now)))
    .returning({ id: cards.id });
  return rows.map((row) => row.id);
}
