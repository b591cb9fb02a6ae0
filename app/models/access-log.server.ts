// The access log's write side and the facts an access decision reads, as
// data operations for app/access/record-batch.server.ts, which decides
// swipes on what is committed and records a batch of swipes and door events
// inside one write transaction: readAccessFacts reads everything a batch
// needs in one statement and
// writeAccessBatch writes every change with one statement per kind. The
// statements are plain SQL with JSON parameters (read back with json_each),
// so each statement's text is the same for any batch
// (docs/decisions/0003-door-access-over-mqtt.md). Reads for the admin are in
// access-log-query.server.ts.
import { eq, sql, type SQLWrapper } from "drizzle-orm";
import { accessLogs, type AccessLog, type ACCESS_REASONS, type Card, type Door, type USER_STATUSES, type WeeklySchedule } from "~/db/schema";
import { getDb, type Database } from "~/utils/db.server";
import type { AccessLogRecord } from "./access-log-query.server";

export type { AccessLog };

type AccessReason = (typeof ACCESS_REASONS)[number];

/** The write transaction a batch is decided and recorded in. */
export type AccessTransaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

export function inAccessTransaction<T>(work: (tx: AccessTransaction) => Promise<T>): Promise<T> {
  return getDb().transaction(work);
}

export type DoorFacts = {
  id: string;
  code: string;
  name: string;
  status: Door["status"];
  /** A building entrance: stay keys open it. */
  isEntrance: boolean;
  useCustomMessages: boolean;
  customStatus: string | null;
  customMessage: string | null;
};

export type CardFacts = {
  id: string;
  cardNumber: string;
  status: Card["status"];
  cardType: Card["cardType"];
  expiresAt: Date | null;
  isAnonymous: boolean;
  userId: string | null;
  holder: { status: (typeof USER_STATUSES)[number]; firstName: string | null; username: string } | null;
  /** Door row id → this card's own permission there (granted or an explicit denial; a timetable when it has one). */
  permissions: Map<string, { granted: boolean; schedule: WeeklySchedule | null }>;
  /** The holder's access groups. */
  groupIds: string[];
};

/** What a door has already logged under a swipe or event id; `rowId` is that row's key. */
export type RecordedAccess = { rowId: string; offline: boolean; granted: boolean; reason: AccessReason };

/** Swipe and event ids are unique per door: the key of a door's swipe or event. */
export function doorEventKey(doorCode: string, eventId: string) {
  return `${doorCode}\u0000${eventId}`;
}

/**
 * What the decision's reads run on: the app's client, a transaction, or any
 * reader of SQL into rows (the access service keeps its own statements).
 */
export type SqlReader = { all<T = unknown>(query: SQLWrapper | string): PromiseLike<T[]> };

/** Lists travel as one JSON parameter, so each statement's text is the same for any batch. */
const json = (value: unknown) => JSON.stringify(value);

/**
 * The doors (by code), cards (by number), what each door already logged under
 * the batch's ids, and which of those ids are row keys already (of any door),
 * in one statement.
 */
export async function readAccessFacts(
  tx: SqlReader,
  { doorCodes, cardNumbers, events }: { doorCodes: string[]; cardNumbers: string[]; events: { doorCode: string; eventId: string }[] },
) {
  const [facts] = await tx.all<{ doors: string; cards: string; logs: string; takenIds: string }>(sql`
    SELECT
      (SELECT json_group_array(json_object(
          'id', id, 'code', door_id, 'name', name, 'status', status, 'isEntrance', is_entrance,
          'useCustomMessages', use_custom_messages, 'customStatus', custom_status, 'customMessage', custom_message))
        FROM doors
        WHERE door_id IN (SELECT value FROM json_each(${json(doorCodes)}))
      ) AS doors,
      (SELECT json_group_array(json_object(
          'id', c.id, 'cardNumber', c.card_number, 'status', c.status, 'cardType', c.card_type, 'expiresAt', c.expires_at,
          'isAnonymous', c.is_anonymous, 'userId', c.user_id,
          'holderStatus', u.status, 'holderFirstName', u.first_name, 'holderUsername', u.username,
          'permissions', json((SELECT json_group_array(json_array(p.door_id, p.granted, json(p.schedule)))
                               FROM card_permissions p WHERE p.card_id = c.id)),
          'groupIds', json((SELECT json_group_array(g.group_id) FROM user_access_groups g WHERE g.user_id = c.user_id))))
        FROM cards c LEFT JOIN users u ON u.id = c.user_id
        WHERE c.card_number IN (SELECT value FROM json_each(${json(cardNumbers)}))
      ) AS cards,
      (SELECT json_group_array(json_object('rowId', l.id, 'doorCode', l.door_code, 'eventId', l.event_id,
                                           'offline', l.offline, 'granted', l.access_granted = 1, 'reason', l.reason))
        FROM json_each(${json(events)}) AS e
        JOIN access_logs l ON l.door_code = e.value->>'doorCode' AND l.event_id = e.value->>'eventId'
      ) AS logs,
      (SELECT json_group_array(id) FROM access_logs
        WHERE id IN (SELECT value->>'eventId' FROM json_each(${json(events)}))
      ) AS takenIds`);

  const doors = new Map<string, DoorFacts>();
  for (const door of JSON.parse(facts!.doors) as (Omit<DoorFacts, "useCustomMessages" | "isEntrance"> & { useCustomMessages: number; isEntrance: number })[]) {
    doors.set(door.code, { ...door, useCustomMessages: Boolean(door.useCustomMessages), isEntrance: Boolean(door.isEntrance) });
  }

  const cards = new Map<string, CardFacts>();
  for (const row of JSON.parse(facts!.cards) as {
    id: string;
    cardNumber: string;
    status: Card["status"];
    cardType: Card["cardType"];
    expiresAt: number | null;
    isAnonymous: number;
    userId: string | null;
    holderStatus: (typeof USER_STATUSES)[number] | null;
    holderFirstName: string | null;
    holderUsername: string | null;
    permissions: [string, number, WeeklySchedule | null][];
    groupIds: string[];
  }[]) {
    cards.set(row.cardNumber, {
      id: row.id,
      cardNumber: row.cardNumber,
      status: row.status,
      cardType: row.cardType,
      expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
      isAnonymous: Boolean(row.isAnonymous),
      userId: row.userId,
      holder:
        row.holderStatus && row.holderUsername
          ? { status: row.holderStatus, firstName: row.holderFirstName, username: row.holderUsername }
          : null,
      permissions: new Map(row.permissions.map(([doorId, granted, schedule]) => [doorId, { granted: Boolean(granted), schedule }])),
      groupIds: row.groupIds,
    });
  }

  /** By doorEventKey. */
  const recorded = new Map<string, RecordedAccess>();
  for (const row of JSON.parse(facts!.logs) as {
    rowId: string;
    doorCode: string;
    eventId: string;
    offline: number;
    granted: number;
    reason: AccessReason;
  }[]) {
    recorded.set(doorEventKey(row.doorCode, row.eventId), {
      rowId: row.rowId,
      offline: Boolean(row.offline),
      granted: Boolean(row.granted),
      reason: row.reason,
    });
  }
  const takenRowIds = new Set(JSON.parse(facts!.takenIds) as string[]);
  return { doors, cards, recorded, takenRowIds };
}

/** A new access_logs row (timestamps in epoch ms); `eventId` is the id the door sent. */
export type NewAccessLogRow = Omit<AccessLogRecord, "outcome" | "resolvedAt"> & { eventId: string; userId: string | null; source: string | null; keyId: string | null };

export type AccessBatchWrites = {
  /** Unknown cards seen by this batch, registered as pending. */
  newCards: { id: string; cardNumber: string; isAnonymous: boolean }[];
  /** Active cards found expired, set inactive. */
  expiredCardIds: string[];
  newLogs: NewAccessLogRow[];
  /** Rows (by row id) logged online whose door acted on its offline decision instead. */
  overriddenLogs: { rowId: string; granted: boolean; reason: AccessReason }[];
  usage: { cardId: string; attempts: number; successes: number; lastUsed: number }[];
  lastAccess: { doorId: string; at: number }[];
};

/** Writes a decided batch: one statement per kind of change, for the whole batch. */
export async function writeAccessBatch(tx: AccessTransaction, writes: AccessBatchWrites, now = new Date()) {
  if (writes.newCards.length > 0) {
    await tx.run(sql`
      INSERT INTO cards (id, card_number, status, is_anonymous)
      SELECT value->>'id', value->>'cardNumber', 'pending', value->>'isAnonymous'
      FROM json_each(${json(writes.newCards)})`);
  }
  if (writes.expiredCardIds.length > 0) {
    await tx.run(sql`
      UPDATE cards SET status = 'inactive', updated_at = ${now.getTime()}
      WHERE status = 'active' AND id IN (SELECT value FROM json_each(${json(writes.expiredCardIds)}))`);
  }
  if (writes.newLogs.length > 0) {
    // "WHERE true": SQLite needs it to read ON CONFLICT after INSERT … SELECT.
    // The batch was decided on what the rows said inside this transaction, so
    // no key can clash; DO NOTHING is the belt to those braces.
    await tx.run(sql`
      INSERT INTO access_logs (id, event_id, timestamp, card_id, card_number, door_id, door_code, door_name, user_id,
                               username, access_granted, reason, is_anonymous, offline, source, ip_address,
                               credential_kind, key_id, holder)
      SELECT value->>'id', value->>'eventId', value->>'timestamp', value->>'cardId', value->>'cardNumber', value->>'doorId',
             value->>'doorCode', value->>'doorName', value->>'userId', value->>'username',
             value->>'accessGranted', value->>'reason', value->>'isAnonymous', value->>'offline',
             value->>'source', value->>'ipAddress', value->>'credentialKind', value->>'keyId', value->>'holder'
      FROM json_each(${json(writes.newLogs)}) WHERE true
      ON CONFLICT DO NOTHING`);
  }
  // A visitor pass's first granted use, once: the web process tells its resident (services/visitor-passes).
  const keyGrants = writes.newLogs.filter((log) => log.keyId && log.accessGranted);
  if (keyGrants.length > 0) {
    await tx.run(sql`
      UPDATE door_keys SET first_used_at = used.first
      FROM (SELECT value->>'keyId' AS key_id, min(value->>'timestamp') AS first FROM json_each(${json(keyGrants.map(({ keyId, timestamp }) => ({ keyId, timestamp })))}) GROUP BY 1) AS used
      WHERE door_keys.id = used.key_id AND door_keys.kind = 'visitor' AND door_keys.first_used_at IS NULL`);
  }
  for (const log of writes.overriddenLogs) {
    await tx.update(accessLogs).set({ offline: true, accessGranted: log.granted, reason: log.reason }).where(eq(accessLogs.id, log.rowId));
  }
  if (writes.usage.length > 0) {
    await tx.run(sql`
      UPDATE cards SET
        total_access_attempts = total_access_attempts + (usage.value->>'attempts'),
        successful_accesses = successful_accesses + (usage.value->>'successes'),
        last_used_at = max(coalesce(last_used_at, 0), usage.value->>'lastUsed')
      FROM json_each(${json(writes.usage)}) AS usage
      WHERE cards.id = usage.value->>'cardId'`);
  }
  if (writes.lastAccess.length > 0) {
    await tx.run(sql`
      UPDATE doors SET last_access_at = max(coalesce(last_access_at, 0), seen.value->>'at')
      FROM json_each(${json(writes.lastAccess)}) AS seen
      WHERE doors.id = seen.value->>'doorId'`);
  }
}

export async function getAccessLog(id: string) {
  return getDb().query.accessLogs.findFirst({ where: eq(accessLogs.id, id) });
}

export async function countAccessLogs() {
  const [row] = await getDb().select({ count: sql<number>`count(*)` }).from(accessLogs);
  return Number(row?.count ?? 0);
}
