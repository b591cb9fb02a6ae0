// Door keys (PIN and QR token, issue 29; docs/access-keys.md): their rows,
// the doors each opens, and the reads the access service makes of them (by
// PIN, by the QR token's hash, per door for the offline lists).
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, like, lt, lte, ne, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { doorKeyDoors, doorKeys, doors, users, type Card, type DoorKey, type User, type WeeklySchedule } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, likePattern, type Database } from "~/utils/db.server";

export type { DoorKey };

type Executor = Pick<Database, "all">;

export type NewDoorKey = Pick<
  DoorKey,
  "kind" | "reservationId" | "pin" | "qrToken" | "qrHash" | "holderLabel" | "holderFirstName" | "windows" | "validFrom" | "validUntil" | "entrances"
> &
  Partial<Pick<DoorKey, "createdBy" | "visitorName" | "visitorEmail">>;

/** The active key of a reservation, with its doors (row ids), or null. */
export async function getActiveKeyOfReservation(reservationId: string): Promise<(DoorKey & { doorIds: string[] }) | null> {
  const [key] = await getDb()
    .select()
    .from(doorKeys)
    .where(and(eq(doorKeys.reservationId, reservationId), eq(doorKeys.status, "active")))
    .limit(1);
  if (!key) return null;
  const rows = await getDb().select({ doorId: doorKeyDoors.doorId }).from(doorKeyDoors).where(eq(doorKeyDoors.keyId, key.id));
  return { ...key, doorIds: rows.map((row) => row.doorId) };
}

/** Whether an active key other than `exceptId` has this PIN with a window span overlapping [from, until). */
export async function isPinTaken(pin: string, from: Date, until: Date, exceptId?: string) {
  const [row] = await getDb()
    .select({ id: doorKeys.id })
    .from(doorKeys)
    .where(
      and(
        eq(doorKeys.pin, pin),
        eq(doorKeys.status, "active"),
        gt(doorKeys.validUntil, from),
        lt(doorKeys.validFrom, until),
        exceptId ? ne(doorKeys.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  return Boolean(row);
}

export async function insertDoorKey(input: NewDoorKey, doorIds: string[]) {
  const [key] = await getDb()
    .insert(doorKeys)
    .values({ id: createId(), ...input })
    .returning();
  await setKeyDoors(key!.id, doorIds);
  return key!;
}

async function setKeyDoors(keyId: string, doorIds: string[]) {
  await getDb().delete(doorKeyDoors).where(eq(doorKeyDoors.keyId, keyId));
  if (doorIds.length > 0) await getDb().insert(doorKeyDoors).values([...new Set(doorIds)].map((doorId) => ({ keyId, doorId })));
}

/** A key's windows, doors, holder (and PIN, when it had to change) brought up to date. */
export async function updateDoorKey(
  id: string,
  fields: Partial<Pick<DoorKey, "pin" | "windows" | "validFrom" | "validUntil" | "entrances" | "holderLabel" | "holderFirstName">>,
  doorIds: string[],
) {
  const [key] = await getDb()
    .update(doorKeys)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(doorKeys.id, id))
    .returning();
  await setKeyDoors(id, doorIds);
  return key ?? null;
}

/** Revokes a reservation's active keys; answers the revoked ones. */
export async function revokeKeysOfReservation(reservationId: string, now = new Date()) {
  return getDb()
    .update(doorKeys)
    .set({ status: "revoked", revokedAt: now, updatedAt: now })
    .where(and(eq(doorKeys.reservationId, reservationId), eq(doorKeys.status, "active")))
    .returning();
}

/** The building entrances' row ids. */
export async function listEntranceDoorIds() {
  const rows = await getDb().select({ id: doors.id }).from(doors).where(eq(doors.isEntrance, true));
  return rows.map((row) => row.id);
}

/** A key as a door decision reads it. */
export type KeyFacts = {
  id: string;
  kind: DoorKey["kind"];
  qrHash: string;
  holderLabel: string;
  holderFirstName: string;
  /** The reservation's code (the log's card_number for this key), or "". */
  reference: string;
  /** A visitor pass's resident (the log row's user, so a search by their username finds their visitors), else null. */
  userId: string | null;
  username: string | null;
  windows: [number, number][];
  entrances: boolean;
  doorIds: string[];
  /**
   * A visitor pass's resident as a decision needs them (issue 40: a pass opens
   * a door only while its issuer could open it themselves): their status,
   * access groups and active cards with their permissions; null for a stay's key.
   */
  issuer: KeyIssuerFacts | null;
};

export type KeyIssuerFacts = {
  status: User["status"] | null;
  groupIds: string[];
  cards: {
    status: Card["status"];
    cardType: Card["cardType"];
    expiresAt: Date | null;
    /** Door row id → the card's own permission there (granted or an explicit denial; its timetable, if any). */
    permissions: Map<string, { granted: boolean; schedule: WeeklySchedule | null }>;
  }[];
};

/**
 * The active keys with these PINs or QR hashes whose span ends after
 * `since`, in one statement; `executor` is the access batch's transaction or
 * the database. Keyed `pin:<PIN>` and `qr:<hash>`; several keys may share a
 * PIN when their windows do not overlap.
 */
export async function readKeyFacts(executor: Executor, { pins, qrHashes, since }: { pins: string[]; qrHashes: string[]; since: number }) {
  const keys = new Map<string, KeyFacts[]>();
  if (pins.length === 0 && qrHashes.length === 0) return keys;
  const rows = await executor.all<{
    id: string;
    kind: DoorKey["kind"];
    pin: string;
    qrHash: string;
    holderLabel: string;
    holderFirstName: string;
    reference: string | null;
    userId: string | null;
    username: string | null;
    windows: string;
    entrances: number;
    doorIds: string;
    issuer: string | null;
  }>(sql`
    SELECT k.id, k.kind, k.pin, k.qr_hash AS qrHash, k.holder_label AS holderLabel, k.holder_first_name AS holderFirstName,
           r.reservation_code AS reference, u.id AS userId, u.username AS username, k.windows, k.entrances,
           (SELECT json_group_array(kd.door_id) FROM door_key_doors kd WHERE kd.key_id = k.id) AS doorIds,
           CASE WHEN k.kind = 'visitor' THEN json_object(
             'status', u.status,
             'groupIds', json((SELECT json_group_array(g.group_id) FROM user_access_groups g WHERE g.user_id = u.id)),
             'cards', json((SELECT json_group_array(json_object(
                 'status', c.status, 'cardType', c.card_type, 'expiresAt', c.expires_at,
                 'permissions', json((SELECT json_group_array(json_array(p.door_id, p.granted, json(p.schedule)))
                                      FROM card_permissions p WHERE p.card_id = c.id))))
               FROM cards c WHERE c.user_id = u.id AND c.status = 'active'))) END AS issuer
    FROM door_keys k LEFT JOIN anonymous_reservations r ON r.id = k.reservation_id LEFT JOIN users u ON u.id = k.created_by
    WHERE k.status = 'active' AND k.valid_until > ${since}
      AND (k.pin IN (SELECT value FROM json_each(${JSON.stringify(pins)}))
           OR k.qr_hash IN (SELECT value FROM json_each(${JSON.stringify(qrHashes)})))`);
  const pinSet = new Set(pins);
  const hashSet = new Set(qrHashes);
  for (const row of rows) {
    const facts: KeyFacts = {
      id: row.id,
      kind: row.kind,
      qrHash: row.qrHash,
      holderLabel: row.holderLabel,
      holderFirstName: row.holderFirstName,
      reference: row.reference ?? "",
      userId: row.userId,
      username: row.username,
      windows: JSON.parse(row.windows) as [number, number][],
      entrances: Boolean(row.entrances),
      doorIds: JSON.parse(row.doorIds) as string[],
      issuer: row.issuer === null ? null : parseIssuer(row.issuer),
    };
    for (const key of [pinSet.has(row.pin) ? `pin:${row.pin}` : null, hashSet.has(row.qrHash) ? `qr:${row.qrHash}` : null]) {
      if (key) keys.set(key, [...(keys.get(key) ?? []), facts]);
    }
  }
  return keys;
}

function parseIssuer(text: string): KeyIssuerFacts {
  const issuer = JSON.parse(text) as {
    status: User["status"] | null;
    groupIds: string[];
    cards: { status: Card["status"]; cardType: Card["cardType"]; expiresAt: number | null; permissions: [string, number, WeeklySchedule | null][] }[];
  };
  return {
    status: issuer.status,
    groupIds: issuer.groupIds,
    cards: issuer.cards.map((card) => ({
      status: card.status,
      cardType: card.cardType,
      expiresAt: card.expiresAt === null ? null : new Date(Number(card.expiresAt)),
      permissions: new Map(card.permissions.map(([doorId, granted, schedule]) => [doorId, { granted: Boolean(granted), schedule }])),
    })),
  };
}

/** readKeyFacts on what is committed now (the access service's decisions). */
export function readCommittedKeyFacts(query: Parameters<typeof readKeyFacts>[1]) {
  return readKeyFacts(getDb(), query);
}

/**
 * The active keys that open this door (row id; its own, or every entrance's
 * when it is one) with a window ending after `from` and starting before
 * `to`: for the door's offline list.
 */
export async function listKeysForDoor(doorId: string, { from, to }: { from: number; to: number }) {
  const rows = await getDb()
    .select({
      id: doorKeys.id,
      kind: doorKeys.kind,
      createdBy: doorKeys.createdBy,
      pin: doorKeys.pin,
      qrToken: doorKeys.qrToken,
      windows: doorKeys.windows,
      holderFirstName: doorKeys.holderFirstName,
      // Issue 40: a PIN's verifier can be brute-forced from the list (10^6
      // codes), so it rides only on the list of the one door it opens, and
      // only while no other live key shares it (docs/access-keys.md, "What a
      // stolen door bridge yields").
      pinOffline: sql<number>`(
        (SELECT count(*) FROM (SELECT kd.door_id FROM door_key_doors kd WHERE kd.key_id = ${doorKeys.id}
                               UNION SELECT d.id FROM doors d WHERE ${doorKeys.entrances} = 1 AND d.is_entrance = 1)) = 1
        AND NOT EXISTS (SELECT 1 FROM door_keys o WHERE o.pin = ${doorKeys.pin} AND o.id <> ${doorKeys.id}
                        AND o.status = 'active' AND o.valid_until > ${from}))`,
    })
    .from(doorKeys)
    .where(
      and(
        eq(doorKeys.status, "active"),
        gt(doorKeys.validUntil, new Date(from)),
        lt(doorKeys.validFrom, new Date(to)),
        sql`(${doorKeys.id} IN (SELECT key_id FROM door_key_doors WHERE door_id = ${doorId})
             OR (${doorKeys.entrances} = 1 AND EXISTS (SELECT 1 FROM doors WHERE id = ${doorId} AND is_entrance = 1)))`,
      ),
    )
    .orderBy(doorKeys.validFrom);
  return rows.map(({ pinOffline, ...row }) => ({
    ...row,
    pinOffline: Boolean(pinOffline),
    windows: row.windows.filter(([start, end]) => end > from && start < to),
  }));
}

/**
 * What each of these residents can open this door (row id) with, now and
 * later (issue 40, the offline lists' visitor passes): per user, each active
 * card's expiry with a timetable (null: always) from its own granted
 * permission or one of the user's access groups (not where the card has an
 * explicit denial). Inactive or suspended users, and cards not active or
 * expired by `now`, give nothing.
 */
export async function listIssuerRightsOnDoor(doorId: string, userIds: string[], now: Date) {
  const rights = new Map<string, { expiresAt: number | null; schedule: WeeklySchedule | null }[]>();
  if (userIds.length === 0) return rights;
  const ids = JSON.stringify([...new Set(userIds)]);
  const rows = await getDb().all<{ userId: string; expiresAt: number | null; schedule: string | null }>(sql`
    SELECT c.user_id AS userId, c.expires_at AS expiresAt, p.schedule AS schedule
    FROM card_permissions p JOIN cards c ON c.id = p.card_id JOIN users u ON u.id = c.user_id AND u.status = 'active'
    WHERE p.door_id = ${doorId} AND p.granted = 1 AND c.status = 'active' AND (c.expires_at IS NULL OR c.expires_at > ${now.getTime()})
      AND c.user_id IN (SELECT value FROM json_each(${ids}))
    UNION ALL
    SELECT c.user_id, c.expires_at, gd.schedule
    FROM access_group_doors gd JOIN user_access_groups ug ON ug.group_id = gd.group_id
    JOIN users u ON u.id = ug.user_id AND u.status = 'active'
    JOIN cards c ON c.user_id = u.id AND c.status = 'active' AND (c.expires_at IS NULL OR c.expires_at > ${now.getTime()})
    WHERE gd.door_id = ${doorId} AND ug.user_id IN (SELECT value FROM json_each(${ids}))
      AND NOT EXISTS (SELECT 1 FROM card_permissions x WHERE x.card_id = c.id AND x.door_id = gd.door_id AND x.granted = 0)`);
  for (const row of rows) {
    const schedule = row.schedule === null ? null : (JSON.parse(row.schedule) as WeeklySchedule);
    const list = rights.get(row.userId) ?? [];
    list.push({ expiresAt: row.expiresAt === null ? null : Number(row.expiresAt), schedule: schedule && schedule.length > 0 ? schedule : null });
    rights.set(row.userId, list);
  }
  return rights;
}

/**
 * The doors (row ids) of the live visitor passes given by these users, by
 * the holders of these cards, or by members of these access groups: their
 * offline lists change when the issuer's right does (issue 40).
 */
export async function listPassDoorIdsOfIssuers({ userIds = [], cardIds = [], groupIds = [] }: { userIds?: string[]; cardIds?: string[]; groupIds?: string[] }, now = new Date()) {
  if (userIds.length + cardIds.length + groupIds.length === 0) return [];
  const rows = await getDb().all<{ doorId: string }>(sql`
    SELECT DISTINCT kd.door_id AS doorId FROM door_keys k JOIN door_key_doors kd ON kd.key_id = k.id
    WHERE k.kind = 'visitor' AND k.status = 'active' AND k.valid_until > ${now.getTime()}
      AND (k.created_by IN (SELECT value FROM json_each(${JSON.stringify(userIds)}))
           OR k.created_by IN (SELECT c.user_id FROM cards c WHERE c.id IN (SELECT value FROM json_each(${JSON.stringify(cardIds)})))
           OR k.created_by IN (SELECT ug.user_id FROM user_access_groups ug WHERE ug.group_id IN (SELECT value FROM json_each(${JSON.stringify(groupIds)}))))`);
  return rows.map((row) => row.doorId);
}

/** The keys' doors (row ids) that are not entrances, for the change notifications. */
export async function listDoorIdsOfKeys(keyIds: string[]) {
  if (keyIds.length === 0) return [];
  const rows = await getDb().selectDistinct({ doorId: doorKeyDoors.doorId }).from(doorKeyDoors).where(inArray(doorKeyDoors.keyId, keyIds));
  return rows.map((row) => row.doorId);
}

/** The doors a key opens now (its own and, when it has them, the entrances), by name. */
export async function listKeyDoors(key: Pick<DoorKey, "id" | "entrances">) {
  return getDb()
    .select({ _id: doors.id, name: doors.name })
    .from(doors)
    .where(
      sql`${doors.id} IN (SELECT door_id FROM door_key_doors WHERE key_id = ${key.id})
          OR (${key.entrances ? 1 : 0} = 1 AND ${doors.isEntrance} = 1)`,
    )
    .orderBy(doors.name);
}

// ---- Visitor passes (kind "visitor"): a resident's key for a visitor ----

export type VisitorPassStatusFilter = "active" | "used" | "cancelled" | "expired";

/** A pass's status as the API names it, in SQL: cancelled (revoked), used (it opened a door once), expired, active. */
function visitorStatusIs(status: VisitorPassStatusFilter, now: Date): SQL | undefined {
  switch (status) {
    case "cancelled":
      return eq(doorKeys.status, "revoked");
    case "used":
      return and(eq(doorKeys.status, "active"), isNotNull(doorKeys.firstUsedAt));
    case "expired":
      return and(eq(doorKeys.status, "active"), isNull(doorKeys.firstUsedAt), lte(doorKeys.validUntil, now));
    case "active":
      return and(eq(doorKeys.status, "active"), isNull(doorKeys.firstUsedAt), gt(doorKeys.validUntil, now));
  }
}

export type VisitorPassQuery = { createdBy?: string; status?: VisitorPassStatusFilter; search?: string; now: Date };

/** The passes a query keeps. */
function visitorPassWhere({ createdBy, status, search, now }: VisitorPassQuery) {
  const pattern = search ? likePattern(search) : null;
  return and(
    eq(doorKeys.kind, "visitor"),
    createdBy ? eq(doorKeys.createdBy, createdBy) : undefined,
    status ? visitorStatusIs(status, now) : undefined,
    pattern
      ? or(
          sql`${doorKeys.visitorName} LIKE ${pattern} ESCAPE '\\'`,
          sql`${doorKeys.visitorEmail} LIKE ${pattern} ESCAPE '\\'`,
          sql`${users.username} LIKE ${pattern} ESCAPE '\\'`,
          sql`(coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, '')) LIKE ${pattern} ESCAPE '\\'`,
        )
      : undefined,
  );
}

const visitorPassColumns = {
  key: doorKeys,
  resident: { id: users.id, username: users.username, firstName: users.firstName, lastName: users.lastName },
};

export type VisitorPassRow = DoorKey & {
  resident: { id: string; username: string; firstName: string | null; lastName: string | null } | null;
  doors: { id: string; code: string; name: string }[];
};

async function withDoors(rows: { key: DoorKey; resident: VisitorPassRow["resident"] }[]): Promise<VisitorPassRow[]> {
  const ids = rows.map((row) => row.key.id);
  const doorRows =
    ids.length === 0
      ? []
      : await getDb()
          .select({ keyId: doorKeyDoors.keyId, id: doors.id, code: doors.code, name: doors.name })
          .from(doorKeyDoors)
          .innerJoin(doors, eq(doors.id, doorKeyDoors.doorId))
          .where(inArray(doorKeyDoors.keyId, ids))
          .orderBy(doors.name);
  return rows.map((row) => ({
    ...row.key,
    resident: row.resident?.id ? row.resident : null,
    doors: doorRows.filter((door) => door.keyId === row.key.id).map(({ id, code, name }) => ({ id, code, name })),
  }));
}

/** Visitor passes, the newest window first (a resident's own when `createdBy` is given). */
export async function listVisitorPasses(query: VisitorPassQuery, { limit, offset }: { limit: number; offset: number }) {
  const rows = await getDb()
    .select(visitorPassColumns)
    .from(doorKeys)
    .leftJoin(users, eq(users.id, doorKeys.createdBy))
    .where(visitorPassWhere(query))
    .orderBy(desc(doorKeys.validFrom), desc(doorKeys.id))
    .limit(limit)
    .offset(offset);
  return withDoors(rows);
}

export async function countVisitorPasses(query: VisitorPassQuery) {
  const [row] = await getDb().select({ count: count() }).from(doorKeys).leftJoin(users, eq(users.id, doorKeys.createdBy)).where(visitorPassWhere(query));
  return row?.count ?? 0;
}

/** One visitor pass; with `createdBy`, only if that resident gave it. */
export async function getVisitorPass(id: string, createdBy?: string): Promise<VisitorPassRow | null> {
  const rows = await getDb()
    .select(visitorPassColumns)
    .from(doorKeys)
    .leftJoin(users, eq(users.id, doorKeys.createdBy))
    .where(and(eq(doorKeys.id, id), eq(doorKeys.kind, "visitor"), createdBy ? eq(doorKeys.createdBy, createdBy) : undefined))
    .limit(1);
  const [pass] = await withDoors(rows);
  return pass ?? null;
}

/** A resident's passes that still count against their limit: not cancelled, not over. */
export async function countLiveVisitorPasses(createdBy: string, now: Date) {
  const [row] = await getDb()
    .select({ count: count() })
    .from(doorKeys)
    .where(and(eq(doorKeys.kind, "visitor"), eq(doorKeys.createdBy, createdBy), eq(doorKeys.status, "active"), gt(doorKeys.validUntil, now)));
  return row?.count ?? 0;
}

/** Revokes one active key; answers it, or null when it was not active. */
export async function revokeDoorKey(id: string, now = new Date()) {
  const [key] = await getDb()
    .update(doorKeys)
    .set({ status: "revoked", revokedAt: now, updatedAt: now })
    .where(and(eq(doorKeys.id, id), eq(doorKeys.status, "active")))
    .returning();
  return key ?? null;
}

/** The visitor passes used for the first time whose resident has not been told yet. */
export async function listUntoldVisitorArrivals(limit = 100) {
  return getDb()
    .select({ id: doorKeys.id, createdBy: doorKeys.createdBy, visitorName: doorKeys.visitorName })
    .from(doorKeys)
    .where(and(eq(doorKeys.kind, "visitor"), isNull(doorKeys.arrivalNotifiedAt), isNotNull(doorKeys.firstUsedAt)))
    .limit(limit);
}

export async function markVisitorArrivalTold(id: string, now = new Date()) {
  await getDb().update(doorKeys).set({ arrivalNotifiedAt: now }).where(eq(doorKeys.id, id));
}
