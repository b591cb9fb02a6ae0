// Cards and their door permissions. Every change that can alter who may open
// a door is announced to the access service (notifyAccessChange), which
// republishes the offline lists of the doors concerned.
import { and, asc, count, desc, eq, gt, inArray, isNull, like, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { cardPermissions, cards, doors, users, type Card, type CARD_TYPES } from "~/db/schema";
import type { AnonymousFilter, CardSortKey, SettableCardStatus, SortOrder } from "~/schemas/card";
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
  const permissions = await listPermissionsOfCards([id]);
  return { ...row.card, holder: row.holder?.id ? row.holder : null, permissions: permissions.get(id) ?? [] };
}

export type CardWithRelations = NonNullable<Awaited<ReturnType<typeof getCardById>>>;

async function listPermissionsOfCards(cardIds: string[]) {
  const byCard = new Map<string, { doorId: string; granted: boolean }[]>();
  if (cardIds.length === 0) return byCard;
  const rows = await getDb()
    .select({ cardId: cardPermissions.cardId, doorId: cardPermissions.doorId, granted: cardPermissions.granted })
    .from(cardPermissions)
    .where(inArray(cardPermissions.cardId, cardIds))
    .orderBy(asc(cardPermissions.createdAt), asc(cardPermissions.doorId));
  for (const { cardId, ...permission } of rows) {
    const list = byCard.get(cardId) ?? [];
    list.push(permission);
    byCard.set(cardId, list);
  }
  return byCard;
}

export async function getCardByNumber(cardNumber: string) {
  const canonical = canonicalCardId(cardNumber);
  if (!canonical) return undefined;
  return getDb().query.cards.findFirst({ where: eq(cards.cardNumber, canonical) });
}

export const CARD_SORT_FIELDS: Record<CardSortKey, SQLWrapper> = {
  lastUsed: cards.lastUsedAt,
  createdAt: cards.createdAt,
  totalAccessAttempts: cards.totalAccessAttempts,
  successfulAccesses: cards.successfulAccesses,
  cardNumber: cards.cardNumber,
  alias: sql`${cards.alias} COLLATE NOCASE`,
  status: cards.status,
};

export type CardListOptions = {
  sortBy?: CardSortKey;
  sortOrder?: SortOrder;
  anonymousFilter?: AnonymousFilter;
  /** Part of the card number, in any usual notation ("4e:2b", "0x004E2B"). */
  cardNumber?: string;
  /** Only cards that can be given to a user now: pending or active, whoever holds them. */
  reassignable?: boolean;
  limit?: number;
  offset?: number;
};

/**
 * The search text as upper-case hex digits ("" = no search), or null when it
 * cannot be part of any card number (so nothing matches).
 */
export function normalizeCardNumberSearch(text: string | undefined): string | null {
  const digits = (text ?? "").trim().replace(/^0x/i, "").replace(/[\s:-]/g, "").toUpperCase();
  return /^[0-9A-F]*$/.test(digits) ? digits : null;
}

function cardListWhere(options: CardListOptions): SQL | undefined {
  const filters: SQL[] = [];
  if (options.anonymousFilter === "anonymous") filters.push(eq(cards.isAnonymous, true));
  if (options.anonymousFilter === "registered") filters.push(eq(cards.isAnonymous, false));
  if (options.reassignable) filters.push(inArray(cards.status, ["pending", "active"]));
  const search = normalizeCardNumberSearch(options.cardNumber);
  if (search === null) filters.push(sql`0`);
  else if (search) filters.push(like(cards.cardNumber, `%${search}%`));
  return filters.length ? and(...filters) : undefined;
}

/** SPEC card list: default order lastUsed desc; cards without a value sort last either way. */
export async function listCards(options: CardListOptions = {}): Promise<CardWithRelations[]> {
  const column = CARD_SORT_FIELDS[options.sortBy ?? "lastUsed"];
  const order = options.sortOrder === "asc" ? asc : desc;
  const rows = await getDb()
    .select({ card: cards, holder: holderColumns })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(cardListWhere(options))
    .orderBy(sql`${column} IS NULL`, order(column), asc(cards.id))
    .limit(options.limit ?? 100)
    .offset(options.offset ?? 0);
  const permissions = await listPermissionsOfCards(rows.map((row) => row.card.id));
  return rows.map(({ card, holder }) => ({
    ...card,
    holder: holder?.id ? holder : null,
    permissions: permissions.get(card.id) ?? [],
  }));
}

export async function countCards(options: CardListOptions = {}) {
  const [row] = await getDb().select({ total: count() }).from(cards).where(cardListWhere(options));
  return row?.total ?? 0;
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

/** Sets the fields as given, without the admin screen's rules (see editCard). */
export async function updateCard(id: string, fields: CardUpdate) {
  const [card] = await getDb()
    .update(cards)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(cards.id, id))
    .returning();
  if (card) await notifyAccessChange({ cardIds: [id] });
  return card ?? null;
}

export type CardEdit = { alias?: string | null; status?: SettableCardStatus };

export type CardEditResult =
  | { ok: true; card: Card; changed: boolean }
  | { ok: false; reason: "not_found" | "pending" | "expired" };

/**
 * The admin's edit of a card (screen and API). The alias is trimmed and an
 * empty one clears it; values equal to the stored ones save nothing
 * (`changed: false`). A pending card is approved, not switched on or off;
 * an expired card cannot be switched on (it would be deactivated again at its
 * next swipe). A refused edit changes nothing, the alias included.
 */
export async function editCard(id: string, edit: CardEdit, now = new Date()): Promise<CardEditResult> {
  const db = getDb();
  const card = await db.query.cards.findFirst({ where: eq(cards.id, id) });
  if (!card) return { ok: false, reason: "not_found" };
  const fields: CardUpdate = {};
  if (edit.alias !== undefined) {
    const alias = edit.alias?.trim() || null;
    if (alias !== card.alias) fields.alias = alias;
  }
  if (edit.status !== undefined && edit.status !== card.status) {
    if (card.status === "pending") return { ok: false, reason: "pending" };
    if (edit.status === "active" && card.expiresAt && card.expiresAt.getTime() <= now.getTime()) {
      return { ok: false, reason: "expired" };
    }
    fields.status = edit.status;
  }
  if (Object.keys(fields).length === 0) return { ok: true, card, changed: false };
  const updated = await updateCard(id, fields);
  return updated ? { ok: true, card: updated, changed: true } : { ok: false, reason: "not_found" };
}

export type DeleteCardResult = { ok: true; cardNumber: string } | { ok: false; reason: "not_found" | "assigned" };

/** SPEC: a card assigned to a user cannot be deleted (unassign it first). */
export async function deleteCard(id: string): Promise<DeleteCardResult> {
  const db = getDb();
  const card = await db.query.cards.findFirst({ where: eq(cards.id, id) });
  if (!card) return { ok: false, reason: "not_found" };
  if (card.userId) return { ok: false, reason: "assigned" };
  // The permissions go with the card (foreign key cascade): announce their doors.
  const doorIds = await listDoorIdsForCards([id]);
  const deleted = await db
    .delete(cards)
    .where(and(eq(cards.id, id), isNull(cards.userId)))
    .returning({ id: cards.id });
  if (deleted.length === 0) {
    // Assigned or deleted by someone else since it was read.
    const still = await db.query.cards.findFirst({ where: eq(cards.id, id), columns: { id: true } });
    return { ok: false, reason: still ? "assigned" : "not_found" };
  }
  await notifyAccessChange({ doorIds });
  return { ok: true, cardNumber: card.cardNumber };
}

export type CardPermissionResult = { ok: true } | { ok: false; reason: "not_found" | "door_not_found" };

async function doorExists(doorRowId: string) {
  const [row] = await getDb().select({ id: doors.id }).from(doors).where(eq(doors.id, doorRowId)).limit(1);
  return Boolean(row);
}

/** Grants (or explicitly denies) the card on a door (its row id). */
export async function setCardPermission(cardId: string, doorRowId: string, granted: boolean): Promise<CardPermissionResult> {
  const db = getDb();
  const card = await db.query.cards.findFirst({ where: eq(cards.id, cardId), columns: { id: true } });
  if (!card) return { ok: false, reason: "not_found" };
  if (!(await doorExists(doorRowId))) return { ok: false, reason: "door_not_found" };
  const now = new Date();
  await db
    .insert(cardPermissions)
    .values({ cardId, doorId: doorRowId, granted })
    .onConflictDoUpdate({
      target: [cardPermissions.cardId, cardPermissions.doorId],
      set: { granted, updatedAt: now },
    });
  await notifyAccessChange({ doorIds: [doorRowId] });
  return { ok: true };
}

export type RemovePermissionResult = { ok: true } | { ok: false; reason: "not_found" | "permission_not_found" };

/** Removes the card's permission (granted or denied) on the door. */
export async function removeCardPermission(cardId: string, doorRowId: string): Promise<RemovePermissionResult> {
  const db = getDb();
  const deleted = await db
    .delete(cardPermissions)
    .where(and(eq(cardPermissions.cardId, cardId), eq(cardPermissions.doorId, doorRowId)))
    .returning({ cardId: cardPermissions.cardId });
  if (deleted.length === 0) {
    const card = await db.query.cards.findFirst({ where: eq(cards.id, cardId), columns: { id: true } });
    return { ok: false, reason: card ? "permission_not_found" : "not_found" };
  }
  // The card no longer leads to this door: announce the door itself.
  await notifyAccessChange({ doorIds: [doorRowId] });
  return { ok: true };
}

export type ApproveCardResult =
  | { ok: true; card: Card }
  | { ok: false; reason: "not_found" | "door_not_found" | "not_pending" };

/**
 * SPEC: approving a card (e.g. from a denied log row) makes a pending card
 * active and grants the given door (its row id). A card that is not pending
 * keeps its status and only gets the door; without a door there is nothing
 * to approve.
 */
export async function approveCard(cardId: string, doorRowId?: string | null): Promise<ApproveCardResult> {
  const db = getDb();
  const existing = await db.query.cards.findFirst({ where: eq(cards.id, cardId) });
  if (!existing) return { ok: false, reason: "not_found" };
  if (doorRowId && !(await doorExists(doorRowId))) return { ok: false, reason: "door_not_found" };
  if (existing.status !== "pending" && !doorRowId) return { ok: false, reason: "not_pending" };
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
  if (!card) return { ok: false, reason: "not_found" };
  await notifyAccessChange({ cardIds: [cardId] });
  return { ok: true, card };
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
