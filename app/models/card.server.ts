// Cards and their door permissions. Card numbers are canonical here (see
// app/utils/card-number.ts); the admin's rules and the notifications to the
// doors are in app/services/cards.server.ts.
import { and, asc, count, desc, eq, gt, inArray, isNull, like, lte, ne, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { cardPermissions, cards, doors, users, type Card, type CARD_TYPES, type User, type WeeklySchedule } from "~/db/schema";
import type { AnonymousFilter, CardSortKey, SortOrder } from "~/schemas/card";
import { canonicalCardId, normalizeCardNumberSearch } from "~/utils/card-number";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Card };

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

/** A card's permission on a door: the door's row id and its hardware code. */
export type CardPermission = { doorId: string; doorCode: string; granted: boolean; schedule: WeeklySchedule | null };

async function listPermissionsOfCards(cardIds: string[]) {
  const byCard = new Map<string, CardPermission[]>();
  if (cardIds.length === 0) return byCard;
  const rows = await getDb()
    .select({
      cardId: cardPermissions.cardId,
      doorId: cardPermissions.doorId,
      doorCode: doors.code,
      granted: cardPermissions.granted,
      schedule: cardPermissions.schedule,
    })
    .from(cardPermissions)
    .innerJoin(doors, eq(doors.id, cardPermissions.doorId))
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
  return withPermissions(rows);
}

/** A left-joined holder: null when the card has none. */
type CardRow = { card: Card; holder: { id: string; username: string; firstName: string | null; lastName: string | null; status: User["status"] } | null };

/** Rows of cards joined with their holders, with each card's permissions. */
async function withPermissions(rows: CardRow[]): Promise<CardWithRelations[]> {
  const permissions = await listPermissionsOfCards(rows.map((row) => row.card.id));
  return rows.map(({ card, holder }) => ({
    ...card,
    holder: holder?.id ? holder : null,
    permissions: permissions.get(card.id) ?? [],
  }));
}

/** The user's cards, newest first. */
export async function listCardsOfUser(userId: string): Promise<CardWithRelations[]> {
  const rows = await getDb()
    .select({ card: cards, holder: holderColumns })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(eq(cards.userId, userId))
    .orderBy(desc(cards.createdAt), asc(cards.id));
  return withPermissions(rows);
}

/**
 * The cards the admin may give to this user (the 'Asignar Tarjeta' select):
 * cards nobody holds (not suspended), pending cards, and active cards of
 * other users; the most recently used or seen first.
 */
export async function listAssignableCards(userId: string, limit: number): Promise<CardWithRelations[]> {
  const rows = await getDb()
    .select({ card: cards, holder: holderColumns })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(
      and(
        or(isNull(cards.userId), ne(cards.userId, userId)),
        or(
          and(isNull(cards.userId), ne(cards.status, "suspended")),
          eq(cards.status, "pending"),
          eq(cards.status, "active"),
        ),
      ),
    )
    .orderBy(desc(sql`coalesce(${cards.lastUsedAt}, ${cards.createdAt})`), asc(cards.id))
    .limit(limit);
  return withPermissions(rows);
}

/** A card by number with its holder (to tell the admin whose it is before reassigning it). */
export async function getCardByNumberWithHolder(cardNumber: string) {
  const canonical = canonicalCardId(cardNumber);
  if (!canonical) return null;
  const [row] = await getDb()
    .select({ card: cards, holder: holderColumns })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(eq(cards.cardNumber, canonical))
    .limit(1);
  return row ? { ...row.card, holder: row.holder?.id ? row.holder : null } : null;
}

export type UserCardUpdate = Pick<Card, "alias" | "description" | "cardType" | "expiresAt">;

/** Edits one of the user's cards; null when the user holds no card with that id. */
export async function updateCardOfUser(userId: string, cardId: string, fields: UserCardUpdate) {
  const [card] = await getDb()
    .update(cards)
    .set({ ...fields, updatedAt: new Date() })
    .where(and(eq(cards.id, cardId), eq(cards.userId, userId)))
    .returning();
  return card ?? null;
}

/**
 * Takes the card from the user: it becomes unassigned and inactive, so it
 * opens nothing until it is given to someone again. Null when the user holds
 * no card with that id.
 */
export async function unassignCardOfUser(userId: string, cardId: string) {
  const [card] = await getDb()
    .update(cards)
    .set({ userId: null, status: "inactive", updatedAt: new Date() })
    .where(and(eq(cards.id, cardId), eq(cards.userId, userId)))
    .returning();
  return card ?? null;
}

export async function countCards(options: CardListOptions = {}) {
  const [row] = await getDb().select({ total: count() }).from(cards).where(cardListWhere(options));
  return row?.total ?? 0;
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

/** Registers a card under its canonical number. New cards have no permissions yet. */
export async function registerCard(input: NewCard) {
  const cardNumber = canonicalCardId(input.cardNumber);
  if (!cardNumber) throw new Error(`not a card number: ${JSON.stringify(input.cardNumber)}`);
  const [card] = await getDb()
    .insert(cards)
    .values({ id: createId(), ...input, cardNumber })
    .returning();
  return card!;
}

export type CardUpdate = Partial<Pick<Card, "alias" | "description" | "cardType" | "status" | "expiresAt">>;

/** The updated card, or null when there is none with that id. */
export async function updateCard(id: string, fields: CardUpdate) {
  const [card] = await getDb()
    .update(cards)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(cards.id, id))
    .returning();
  return card ?? null;
}

export async function getCardRow(id: string) {
  return getDb().query.cards.findFirst({ where: eq(cards.id, id) });
}

/** Each card's status, and the doors each one is granted (for the access log's approve buttons). */
export async function listCardStatusesAndGrants(cardIds: string[]) {
  const ids = [...new Set(cardIds)];
  if (ids.length === 0) return { statuses: new Map<string, Card["status"]>(), granted: new Set<string>(), assigned: new Set<string>() };
  const db = getDb();
  const [rows, grants] = await Promise.all([
    db.select({ id: cards.id, status: cards.status, userId: cards.userId }).from(cards).where(inArray(cards.id, ids)),
    db
      .select({ cardId: cardPermissions.cardId, doorId: cardPermissions.doorId })
      .from(cardPermissions)
      .where(and(inArray(cardPermissions.cardId, ids), eq(cardPermissions.granted, true))),
  ]);
  return {
    statuses: new Map(rows.map((row) => [row.id, row.status])),
    /** `${cardId}|${doorId}` of each granted permission. */
    granted: new Set(grants.map((grant) => `${grant.cardId}|${grant.doorId}`)),
    /** The cards assigned to a user. */
    assigned: new Set(rows.filter((row) => row.userId !== null).map((row) => row.id)),
  };
}

export type DeleteUnassignedResult = "deleted" | "assigned" | "not_found";

/** Deletes the card unless it is assigned to a user (checked in the same statement). */
export async function deleteUnassignedCard(id: string): Promise<DeleteUnassignedResult> {
  const db = getDb();
  const deleted = await db
    .delete(cards)
    .where(and(eq(cards.id, id), isNull(cards.userId)))
    .returning({ id: cards.id });
  if (deleted.length > 0) return "deleted";
  const still = await db.query.cards.findFirst({ where: eq(cards.id, id), columns: { id: true } });
  return still ? "assigned" : "not_found";
}

/** Grants (or explicitly denies) the card on a door (its row id); a granted one may have a timetable (null: always). */
export async function upsertCardPermission(cardId: string, doorId: string, granted: boolean, schedule: WeeklySchedule | null = null) {
  await getDb()
    .insert(cardPermissions)
    .values({ cardId, doorId, granted, schedule })
    .onConflictDoUpdate({
      target: [cardPermissions.cardId, cardPermissions.doorId],
      set: { granted, schedule, updatedAt: new Date() },
    });
}

/** Removes the card's permission (granted or denied) on the door; false when there was none. */
export async function deleteCardPermission(cardId: string, doorId: string) {
  const deleted = await getDb()
    .delete(cardPermissions)
    .where(and(eq(cardPermissions.cardId, cardId), eq(cardPermissions.doorId, doorId)))
    .returning({ cardId: cardPermissions.cardId });
  return deleted.length > 0;
}

/**
 * In one transaction: a pending card becomes active (any other status stays)
 * and, when a door is given, the card is granted on it. Null when there is no
 * such card.
 */
export async function activatePendingCardAndGrant(cardId: string, doorId: string | null, schedule: WeeklySchedule | null = null) {
  const now = new Date();
  return getDb().transaction(async (tx) => {
    const [updated] = await tx
      .update(cards)
      .set({ status: sql`CASE WHEN ${cards.status} = 'pending' THEN 'active' ELSE ${cards.status} END`, updatedAt: now })
      .where(eq(cards.id, cardId))
      .returning();
    if (updated && doorId) {
      await tx
        .insert(cardPermissions)
        .values({ cardId, doorId, granted: true, schedule })
        .onConflictDoUpdate({
          target: [cardPermissions.cardId, cardPermissions.doorId],
          set: { granted: true, schedule, updatedAt: now },
        });
    }
    return updated ?? null;
  });
}

export type CardAssignment = {
  cardNumber: string;
  alias?: string | null;
  description?: string | null;
  cardType?: (typeof CARD_TYPES)[number];
  expiresAt?: Date | null;
};

/**
 * Assigns a card to a user, registering it when it is new. SPEC: assigning a
 * card that belongs to someone else reassigns it. The card comes out active
 * (the admin vouches for it), except a suspended card, which stays suspended.
 */
export async function assignCardToUser(userId: string, assignment: CardAssignment) {
  const cardNumber = canonicalCardId(assignment.cardNumber);
  if (!cardNumber) throw new Error(`not a card number: ${JSON.stringify(assignment.cardNumber)}`);
  const db = getDb();
  const now = new Date();
  const result = await db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ card: cards, previous: { id: users.id, username: users.username, firstName: users.firstName, lastName: users.lastName } })
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
    const [card] = await tx
      .update(cards)
      .set({ ...fields, status: sql`CASE WHEN ${cards.status} = 'suspended' THEN 'suspended' ELSE 'active' END` })
      .where(eq(cards.id, existing.card.id))
      .returning();
    const previous = existing.previous?.id ? existing.previous : null;
    const reassigned = previous !== null && existing.card.userId !== userId;
    return { card: card!, reassigned, previousUser: reassigned ? previous : null };
  });
  return result;
}

/**
 * How many active cards each of these users holds (users without one are
 * left out). Looked up by holder only, so it reads the holder index.
 */
export async function countActiveCardsOfUsers(userIds: string[]): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await getDb()
    .select({ userId: cards.userId, active: sql<number>`sum(${cards.status} = 'active')`.mapWith(Number) })
    .from(cards)
    .where(inArray(cards.userId, userIds))
    .groupBy(cards.userId);
  return new Map(rows.map((row) => [row.userId!, row.active]));
}

/** Door row ids on which these cards have a permission (granted or not), or which their holders' access groups open. */
export async function listDoorIdsForCards(cardIds: string[]): Promise<string[]> {
  if (cardIds.length === 0) return [];
  const rows = await getDb().all<{ doorId: string }>(sql`
    SELECT door_id AS doorId FROM card_permissions WHERE card_id IN (SELECT value FROM json_each(${JSON.stringify(cardIds)}))
    UNION
    SELECT gd.door_id FROM cards c
    JOIN user_access_groups ug ON ug.user_id = c.user_id
    JOIN access_group_doors gd ON gd.group_id = ug.group_id
    WHERE c.id IN (SELECT value FROM json_each(${JSON.stringify(cardIds)}))`);
  return rows.map((row) => row.doorId);
}

/** Door row ids on which the cards of these users have a permission, or which their access groups open. */
export async function listDoorIdsForUsers(userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await getDb().all<{ doorId: string }>(sql`
    SELECT p.door_id AS doorId FROM card_permissions p JOIN cards c ON c.id = p.card_id
    WHERE c.user_id IN (SELECT value FROM json_each(${JSON.stringify(userIds)}))
    UNION
    SELECT gd.door_id FROM user_access_groups ug JOIN access_group_doors gd ON gd.group_id = ug.group_id
    WHERE ug.user_id IN (SELECT value FROM json_each(${JSON.stringify(userIds)}))`);
  return rows.map((row) => row.doorId);
}

/**
 * The cards that would be granted on this door now (the door's own status
 * aside): active, not expired, held by an active user or by nobody, with a
 * granted permission (and its timetable, null: always). The door's offline
 * list is made from them, with the cards of its access groups.
 */
export async function listGrantedCardsForDoor(doorId: string, now = new Date()) {
  return getDb()
    .select({ cardNumber: cards.cardNumber, expiresAt: cards.expiresAt, schedule: cardPermissions.schedule })
    .from(cardPermissions)
    .innerJoin(cards, eq(cards.id, cardPermissions.cardId))
    .leftJoin(users, eq(users.id, cards.userId))
    .where(
      and(
        eq(cardPermissions.doorId, doorId),
        eq(cardPermissions.granted, true),
        eq(cards.status, "active"),
        or(isNull(cards.expiresAt), gt(cards.expiresAt, now)),
        or(isNull(users.id), eq(users.status, "active")),
      ),
    )
    .orderBy(asc(cards.cardNumber));
}

/** Cards of type emergency that would be granted (active, not expired, holder active or none): the lists of doors in emergency. */
export async function listEmergencyCards(now = new Date()) {
  return getDb()
    .select({ cardNumber: cards.cardNumber, expiresAt: cards.expiresAt })
    .from(cards)
    .leftJoin(users, eq(users.id, cards.userId))
    .where(
      and(
        eq(cards.cardType, "emergency"),
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

/** Active cards held by someone that expire within (from, to]: the expiry warnings' candidates. */
export async function listHeldCardsExpiringBetween(from: Date, to: Date) {
  return getDb()
    .select({ id: cards.id, userId: cards.userId, cardNumber: cards.cardNumber, alias: cards.alias, expiresAt: cards.expiresAt })
    .from(cards)
    .where(and(eq(cards.status, "active"), sql`${cards.userId} IS NOT NULL`, gt(cards.expiresAt, from), lte(cards.expiresAt, to)))
    .orderBy(asc(cards.expiresAt));
}
