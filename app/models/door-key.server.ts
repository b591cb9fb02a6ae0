// Door keys (PIN and QR token, issue 29; docs/access-keys.md): their rows,
// the doors each opens, and the reads the access service makes of them (by
// PIN, by the QR token's hash, per door for the offline lists).
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, like, lt, lte, ne, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { doorKeyDoors, doorKeys, doors, users, type DoorKey } from "~/db/schema";
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
  }>(sql`
    SELECT k.id, k.kind, k.pin, k.qr_hash AS qrHash, k.holder_label AS holderLabel, k.holder_first_name AS holderFirstName,
           r.reservation_code AS reference, u.id AS userId, u.username AS username, k.windows, k.entrances,
           (SELECT json_group_array(kd.door_id) FROM door_key_doors kd WHERE kd.key_id = k.id) AS doorIds
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
    };
    for (const key of [pinSet.has(row.pin) ? `pin:${row.pin}` : null, hashSet.has(row.qrHash) ? `qr:${row.qrHash}` : null]) {
      if (key) keys.set(key, [...(keys.get(key) ?? []), facts]);
    }
  }
  return keys;
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
