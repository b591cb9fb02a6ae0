// Every read and report over access_logs for the admin: the dashboard's
// activity figures, the log screen and its JSON twin (filters, stats, pages),
// the CSV export and the cleanup of a card's denied rows. The write side is
// app/models/access-log.server.ts.
//
// The queries are written for a log of millions of rows (measured by
// scripts/bench-admin.mjs; the indexes are in app/db/schema.ts):
// - counts are range counts on (access_granted, timestamp) or on the door's
//   indexes, read from the index alone;
// - unique cards skip from one card number to the next on the card index (or
//   the door's) and ask each card for one matching row, so the cost grows
//   with the number of cards, not of rows;
// - search is a prefix range on the card number (canonical upper-case hex)
//   and on the username (case-insensitive index), never LIKE '%…%';
// - a page is the row ids of one index range (OFFSET skips index entries
//   only), then those rows; the export walks the log by keyset.
import { sql, type SQL } from "drizzle-orm";
import type { ACCESS_REASONS } from "~/db/schema";
import type { LogDateRange, LogFilters } from "~/schemas/access-log";
import { normalizeCardNumberSearch } from "~/utils/card-number";
import { getDb } from "~/utils/db.server";

type AccessReason = (typeof ACCESS_REASONS)[number];

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

export type HourlyActivity = { hourStart: string; granted: number; denied: number };

export type AccessActivity = {
  /** Attempts per hour, oldest first, the current hour included: always 24 entries. */
  hourly: HourlyActivity[];
  /** Rows of the last 24 hours per door (row id); doors without rows, and unknown doors, are absent. */
  byDoor: Map<string, number>;
  /** Every row of the last 24 hours (unknown doors included). */
  total: number;
  granted: number;
};

/**
 * The dashboard's 24-hour figures from one read of the last 24 hours, grouped
 * by door and hour: the hourly chart, each door's count and the totals.
 * Madrid's offset is a whole number of hours, so UTC hours are the building's
 * hours too.
 */
export async function getAccessActivity(now: Date): Promise<AccessActivity> {
  const since = now.getTime() - DAY_MS;
  const currentHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const firstHour = currentHour - 23 * HOUR_MS;
  // The divisor is written into the SQL: a bound JavaScript number is a REAL,
  // and the division would not be whole. Left alone, SQLite walks a door
  // index to skip sorting the groups, i.e. the whole log; the time range is
  // the small part.
  const rows = await getDb().all<{ doorId: string | null; hour: number; granted: number; total: number }>(sql`
    SELECT door_id AS doorId, timestamp / ${sql.raw(String(HOUR_MS))} AS hour, sum(access_granted) AS granted, count(*) AS total
    FROM access_logs INDEXED BY access_logs_timestamp_idx
    WHERE timestamp >= ${since}
    GROUP BY door_id, hour`);
  const byHour = new Map<number, { granted: number; total: number }>();
  const byDoor = new Map<string, number>();
  let total = 0;
  let granted = 0;
  for (const row of rows) {
    const count = Number(row.total);
    const grantedCount = Number(row.granted);
    total += count;
    granted += grantedCount;
    if (row.doorId !== null) byDoor.set(row.doorId, (byDoor.get(row.doorId) ?? 0) + count);
    const hourStart = Number(row.hour) * HOUR_MS;
    const hour = byHour.get(hourStart) ?? { granted: 0, total: 0 };
    hour.granted += grantedCount;
    hour.total += count;
    byHour.set(hourStart, hour);
  }
  const hourly = Array.from({ length: 24 }, (_, index) => {
    const hourStart = firstHour + index * HOUR_MS;
    const hour = byHour.get(hourStart);
    return { hourStart: new Date(hourStart).toISOString(), granted: hour?.granted ?? 0, denied: (hour?.total ?? 0) - (hour?.granted ?? 0) };
  });
  return { hourly, byDoor, total, granted };
}

/** One access_logs row as the admin reads it; `timestamp` in epoch ms. */
export type AccessLogRecord = {
  id: string;
  timestamp: number;
  /** The card's row id; null when the card was deleted or the swipe could not be read. */
  cardId: string | null;
  cardNumber: string;
  /** The door's row id; null for an unknown or deleted door. */
  doorId: string | null;
  doorCode: string;
  doorName: string | null;
  username: string | null;
  accessGranted: boolean;
  reason: AccessReason;
  isAnonymous: boolean;
  offline: boolean;
  ipAddress: string | null;
};

export type AccessLogStats = { total: number; granted: number; denied: number; uniqueCards: number };

const RANGE_MS: Record<Exclude<LogDateRange, "all">, number> = { "24h": DAY_MS, "7d": 7 * DAY_MS, "30d": 30 * DAY_MS };

/** The first instant (epoch ms) a date range covers; null for the whole log. */
export function dateRangeStart(range: LogDateRange, now: Date): number | null {
  return range === "all" ? null : now.getTime() - RANGE_MS[range];
}

/** Sorts after every text that starts with the prefix: `x >= p AND x < prefixEnd(p)` is "starts with p". */
const prefixEnd = (prefix: string) => `${prefix}\u{10FFFF}`;

/** What the filters ask of the rows, in the terms of the table. */
type Criteria = {
  since: number | null;
  granted: boolean | null;
  doorId: string | null;
  /** Search: canonical hex the card number starts with (null: the text is not hex, no card matches). */
  cardPrefix: string | null;
  /** Search: what the username starts with, case-insensitively (null: no search). */
  usernamePrefix: string | null;
};

/**
 * The filters of the functions below; their `doorId` is the door's row id
 * (the services turn the wire's hardware code into it: `withDoorRowId`).
 */
function criteriaOf(filters: LogFilters, now: Date): Criteria {
  const search = filters.search.trim();
  const cardPrefix = search ? normalizeCardNumberSearch(search) : null;
  return {
    since: dateRangeStart(filters.dateRange, now),
    granted: filters.status === "all" ? null : filters.status === "granted",
    doorId: filters.doorId || null,
    cardPrefix: cardPrefix || null,
    usernamePrefix: search || null,
  };
}

const and = (conditions: SQL[]) => (conditions.length ? sql.join(conditions, sql` AND `) : sql`1`);

/**
 * Date range, result and door. `checkOnly` writes them with a unary plus,
 * which SQLite reads as "no index for this term": a search must run on its
 * prefix index (which covers these columns), not on (access_granted, …).
 */
function baseConditions(criteria: Criteria, { checkOnly = false } = {}): SQL[] {
  const column = (name: string) => sql.raw(checkOnly ? `+${name}` : name);
  const conditions: SQL[] = [];
  if (criteria.since !== null) conditions.push(sql`${column("timestamp")} >= ${criteria.since}`);
  if (criteria.granted !== null) conditions.push(sql`${column("access_granted")} = ${criteria.granted ? 1 : 0}`);
  if (criteria.doorId) conditions.push(sql`${column("door_id")} = ${criteria.doorId}`);
  return conditions;
}

const cardMatch = (prefix: string) => sql`card_number >= ${prefix} AND card_number < ${prefixEnd(prefix)}`;
const usernameMatch = (prefix: string) =>
  sql`username COLLATE NOCASE >= ${prefix} AND username COLLATE NOCASE < ${prefixEnd(prefix)}`;

/**
 * A search as two disjoint selects, each answered by its own index: rows
 * whose card number matches, and rows whose username matches but card
 * number does not. `columns` is what each select returns; `groupBy` may
 * group each one in its index's order.
 */
function searchBranches(criteria: Criteria, columns: SQL, groupBy?: { byCard: SQL; byUsername: SQL }): SQL {
  const base = baseConditions(criteria, { checkOnly: true });
  const byUsername = sql`SELECT ${columns} FROM access_logs WHERE ${and([
    usernameMatch(criteria.usernamePrefix!),
    ...(criteria.cardPrefix ? [sql`NOT (${cardMatch(criteria.cardPrefix)})`] : []),
    ...base,
  ])} ${groupBy?.byUsername ?? sql``}`;
  if (!criteria.cardPrefix) return byUsername;
  return sql`SELECT ${columns} FROM access_logs WHERE ${and([cardMatch(criteria.cardPrefix), ...base])} ${groupBy?.byCard ?? sql``}
    UNION ALL ${byUsername}`;
}

/** SPEC §3 log stats for the filtered rows: total, granted, denied, unique card numbers. */
export async function getAccessLogStats(filters: LogFilters, now = new Date()): Promise<AccessLogStats> {
  const criteria = criteriaOf(filters, now);
  const [counts] = await getDb().all<{ total: number; denied: number; uniqueCards: number }>(
    criteria.usernamePrefix ? searchStatsQuery(criteria) : statsQuery(criteria),
  );
  const total = Number(counts?.total ?? 0);
  const denied = Number(counts?.denied ?? 0);
  return { total, granted: total - denied, denied, uniqueCards: Number(counts?.uniqueCards ?? 0) };
}

/**
 * Stats with a search, from the two branches grouped in their indexes' order
 * (by card number; by username and card number): no sort of the matching
 * rows, only of the few groups for the unique cards.
 */
function searchStatsQuery(criteria: Criteria) {
  const groups = searchBranches(criteria, sql`card_number AS c, count(*) AS n, coalesce(sum(access_granted), 0) AS g`, {
    byCard: sql`GROUP BY card_number`,
    byUsername: sql`GROUP BY username COLLATE NOCASE, card_number`,
  });
  return sql`
    SELECT coalesce(sum(n), 0) AS total, coalesce(sum(n) - sum(g), 0) AS denied, count(DISTINCT c) AS uniqueCards
    FROM (${groups})`;
}

/**
 * Stats without a search, from index ranges only: rows in the date range
 * (of the door), denied ones among them, and the unique cards found by
 * stepping through the distinct card numbers (of the door) and asking each
 * for one row in the range with the wanted result.
 */
function statsQuery({ since, granted, doorId }: Criteria) {
  const range = since === null ? [] : [sql`timestamp >= ${since}`];
  const where = (...conditions: SQL[]) => and([...(doorId ? [sql`door_id = ${doorId}`] : []), ...conditions]);
  // Without any condition SQLite counts the b-tree's pages instead of its entries.
  const inRange = since === null && !doorId ? sql`(SELECT count(*) FROM access_logs)` : sql`(SELECT count(*) FROM access_logs WHERE ${where(...range)})`;
  const deniedInRange = sql`(SELECT count(*) FROM access_logs WHERE ${where(sql`access_granted = 0`, ...range)})`;
  const total = granted === null ? inRange : granted ? sql`${inRange} - ${deniedInRange}` : deniedInRange;
  const denied = granted === true ? sql`0` : deniedInRange;
  const results = granted === null ? sql`0, 1` : sql`${granted ? 1 : 0}`;
  return sql`
    WITH RECURSIVE card_numbers(cardNumber) AS (
      SELECT (SELECT min(card_number) FROM access_logs WHERE ${where()})
      UNION ALL
      SELECT (SELECT min(card_number) FROM access_logs WHERE ${where(sql`card_number > card_numbers.cardNumber`)})
      FROM card_numbers WHERE card_numbers.cardNumber IS NOT NULL
    )
    SELECT ${total} AS total, ${denied} AS denied,
      (SELECT count(*) FROM card_numbers
       WHERE cardNumber IS NOT NULL AND EXISTS (
         SELECT 1 FROM access_logs
         WHERE ${where(sql`card_number = card_numbers.cardNumber`, sql`access_granted IN (${results})`, ...range)})) AS uniqueCards`;
}

/** The columns a record is read from, in the order of RecordTuple. */
const RECORD_COLUMNS = sql.raw(
  `rowid AS row_id, id, timestamp, card_id, card_number, door_id, door_code, door_name, username,
   access_granted, reason, is_anonymous, offline, ip_address`,
);
type RecordTuple = [
  rowId: number,
  id: string,
  timestamp: number,
  cardId: string | null,
  cardNumber: string,
  doorId: string | null,
  doorCode: string,
  doorName: string | null,
  username: string | null,
  accessGranted: number,
  reason: AccessReason,
  isAnonymous: number,
  offline: number,
  ipAddress: string | null,
];

/**
 * Runs a select of RECORD_COLUMNS and reads all its rows as one JSON array
 * built by SQLite, in the select's order: libsql makes a JavaScript object
 * per cell, which on an export costs several times SQLite's own work.
 */
async function readRecords(select: SQL) {
  const [result] = await getDb().all<{ records: string }>(sql`
    SELECT json_group_array(json_array(row_id, id, timestamp, card_id, card_number, door_id, door_code, door_name,
                                       username, access_granted, reason, is_anonymous, offline, ip_address)) AS records
    FROM (${select})`);
  return (JSON.parse(result?.records ?? "[]") as RecordTuple[]).map((tuple) => {
    const [rowId, id, timestamp, cardId, cardNumber, doorId, doorCode, doorName, username, accessGranted, reason, isAnonymous, offline, ipAddress] = tuple;
    const record: AccessLogRecord = {
      id,
      timestamp,
      cardId,
      cardNumber,
      doorId,
      doorCode,
      doorName,
      username,
      accessGranted: accessGranted === 1,
      reason,
      isAnonymous: isAnonymous === 1,
      offline: offline === 1,
      ipAddress,
    };
    return { rowId, record };
  });
}

/**
 * One page of the filtered rows, newest first (ties by insertion order).
 * The inner select reads only index entries, so a deep OFFSET skips entries,
 * not rows.
 */
export async function listAccessLogs(filters: LogFilters, { limit, offset }: { limit: number; offset: number }, now = new Date()) {
  const criteria = criteriaOf(filters, now);
  const pageIds = criteria.usernamePrefix
    ? sql`SELECT rid FROM (${searchBranches(criteria, sql`rowid AS rid, timestamp`)})
          ORDER BY timestamp DESC, rid DESC LIMIT ${limit} OFFSET ${offset}`
    : sql`SELECT rowid FROM access_logs WHERE ${and(baseConditions(criteria))}
          ORDER BY timestamp DESC, rowid DESC LIMIT ${limit} OFFSET ${offset}`;
  const rows = await readRecords(sql`
    SELECT ${RECORD_COLUMNS} FROM access_logs WHERE rowid IN (${pageIds})
    ORDER BY timestamp DESC, rowid DESC`);
  return rows.map((row) => row.record);
}

/**
 * Rows per export batch. Small enough that a batch's JSON and CSV text stay
 * under V8's large-object size (128 KiB) and die young: with 2,000 the
 * server's RSS grew by ~110 MB during a 1M-row export, with 250 by ~20 MB,
 * at the same speed (scripts/bench-admin.mjs).
 */
export const EXPORT_BATCH_SIZE = 250;

/**
 * Every filtered row, newest first, in batches: each batch is one keyset
 * query (after the last row sent), so memory stays at one batch whatever the
 * size of the log. Search terms are checked on each row here (the unary `+`
 * keeps the planner on the time-ordered index), so an export with a search
 * reads the date range once instead of sorting matches per batch.
 */
export async function* streamAccessLogs(filters: LogFilters, { batchSize = EXPORT_BATCH_SIZE, now = new Date() } = {}) {
  const criteria = criteriaOf(filters, now);
  const conditions = baseConditions(criteria);
  if (criteria.usernamePrefix) {
    const byUsername = sql`(+username COLLATE NOCASE >= ${criteria.usernamePrefix} AND +username COLLATE NOCASE < ${prefixEnd(criteria.usernamePrefix)})`;
    conditions.push(
      criteria.cardPrefix
        ? sql`((+card_number >= ${criteria.cardPrefix} AND +card_number < ${prefixEnd(criteria.cardPrefix)}) OR ${byUsername})`
        : byUsername,
    );
  }
  let after: { timestamp: number; rowId: number } | null = null;
  while (true) {
    const keyset: SQL[] = after ? [sql`(timestamp, rowid) < (${after.timestamp}, ${after.rowId})`] : [];
    const rows = await readRecords(sql`
      SELECT ${RECORD_COLUMNS} FROM access_logs
      WHERE ${and([...conditions, ...keyset])}
      ORDER BY timestamp DESC, rowid DESC LIMIT ${batchSize}`);
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    after = { timestamp: last.record.timestamp, rowId: last.rowId };
    yield rows.map((row) => row.record);
    if (rows.length < batchSize) return;
  }
}

/**
 * SPEC §7 Logs cleanup: removes the denied rows of a card number; answers how
 * many, and how many of each door with the oldest and newest (for the audit
 * trail, so the security history does not vanish with them).
 */
export async function deleteDeniedAccessLogsOfCardNumber(cardNumber: string) {
  const doors = await getDb().all<{ doorCode: string; doorName: string | null; rows: number; first: number; last: number }>(sql`
    SELECT door_code AS doorCode, max(door_name) AS doorName, count(*) AS rows, min(timestamp) AS first, max(timestamp) AS last
    FROM access_logs WHERE card_number = ${cardNumber} AND access_granted = 0 GROUP BY door_code ORDER BY door_code`);
  if (doors.length === 0) return { deleted: 0, doors: [] };
  const result = await getDb().run(sql`DELETE FROM access_logs WHERE card_number = ${cardNumber} AND access_granted = 0`);
  return {
    deleted: result.rowsAffected,
    doors: doors.map((door) => ({ ...door, rows: Number(door.rows), first: new Date(Number(door.first)), last: new Date(Number(door.last)) })),
  };
}
