// Every read and report over access_logs for the admin: the dashboard's
// activity figures, the log screen and its JSON twin (filters, stats, pages),
// the CSV export and the cleanup of a card's denied rows. The write side is
// app/models/access-log.server.ts.
//
// The queries are written for a log of millions of rows (measured by
// scripts/bench-admin.mjs and bench-signed-in.mjs; the indexes are in
// app/db/schema.ts):
// - the figures without a search (totals, granted, denied, unique cards, the
//   dashboard's hours and doors) come from the counters that triggers keep
//   as rows are written (access_log_hours, access_log_card_doors,
//   access_log_cards; migration 0015; access_log_card_last, migration 0025),
//   plus at most one hour of rows at the start of a date range, so they cost
//   the same on any size of log;
// - a search's figures are counted on its prefix indexes up to
//   LOG_COUNT_BOUND rows, then say "more than";
// - search is a prefix range on the card number (canonical upper-case hex)
//   and on the username (case-insensitive index), never LIKE '%…%'; with a
//   date range or a door, one index range of the range (and door) per
//   matching card number and username (searchSeeks), so it costs what the
//   range and door hold, not every match;
// - a credential kind reads access_logs_kind_idx, or at a door
//   access_logs_kind_door_idx (migration 0021), with the result checked in
//   the index: PIN and QR rows are a few per cent of the log;
// - a page is the row ids of one index range (OFFSET skips index entries
//   only, from the nearer end of the range), then those rows; the export
//   walks the log by keyset.
import { sql, type SQL } from "drizzle-orm";
import type { ACCESS_REASONS, CREDENTIAL_KINDS } from "~/db/schema";
import { ACCESS_OUTCOMES, LOG_COUNT_BOUND, OUTCOME_OF_VALUE, type AccessOutcome, type LogDateRange, type LogFilters, type LogStatus } from "~/schemas/access-log";
import { normalizeCardNumberSearch } from "~/utils/card-number";
import { getDb, inWriteTransaction } from "~/utils/db.server";
import { openReaderThread } from "~/utils/db-reader-thread.server";

type CredentialKind = (typeof CREDENTIAL_KINDS)[number];
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
 * The dashboard's 24-hour figures in one statement, from counters: the whole
 * hours of the last 24 from access_log_hours (kept by triggers as rows are
 * written, migration 0015), plus the rows of the first, partial hour, at most
 * one hour of the log, read from the time index. The cost does not grow with
 * the log. Madrid's offset is a whole number of hours, so UTC hours are the
 * building's hours too. Grants and denials only: door alarms and resolved
 * denials are neither (issue 40, points 15 and 17).
 */
export async function getAccessActivity(now: Date): Promise<AccessActivity> {
  const since = now.getTime() - DAY_MS;
  const edge = Math.ceil(since / HOUR_MS) * HOUR_MS;
  const currentHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const firstHour = currentHour - 23 * HOUR_MS;
  // Summed by SQLite per hour and per door, read as JSON arrays: a few dozen
  // values instead of a row per hour, door and result. Three plain aggregates:
  // one CTE feeding both groupings cost several times their sum. `+door_key`
  // keeps the per-door sum on the hours' range: grouping in the order of
  // access_log_hours_door_idx would walk every hour of the log.
  const [result] = await getDb().all<{ hours: string; doors: string; partial: string }>(sql`
    SELECT
      (SELECT json_group_array(json_array(hour, g, n)) FROM (
        SELECT hour, sum((granted = 1) * attempts) AS g, sum(attempts) AS n FROM access_log_hours
        WHERE hour >= ${edge / HOUR_MS} AND granted IN (0, 1) GROUP BY hour)) AS hours,
      (SELECT json_group_array(json_array(doorKey, g, n)) FROM (
        SELECT door_key AS doorKey, sum((granted = 1) * attempts) AS g, sum(attempts) AS n FROM access_log_hours
        WHERE hour >= ${edge / HOUR_MS} AND granted IN (0, 1) GROUP BY +door_key)) AS doors,
      (SELECT json_group_array(json_array(doorKey, g, n)) FROM (
        SELECT coalesce(door_id, '') AS doorKey, sum(access_granted = 1) AS g, count(*) AS n
        FROM access_logs INDEXED BY access_logs_timestamp_idx
        WHERE timestamp >= ${since} AND timestamp < ${edge} AND access_granted IN (0, 1) GROUP BY 1)) AS partial`);
  const byHour = new Map<number, { granted: number; total: number }>();
  for (const [hour, granted, total] of JSON.parse(result?.hours ?? "[]") as [number, number, number][]) {
    byHour.set(hour * HOUR_MS, { granted, total });
  }
  const byDoor = new Map<string, number>();
  let total = 0;
  let granted = 0;
  for (const column of [result?.doors, result?.partial]) {
    for (const [doorKey, grantedCount, count] of JSON.parse(column ?? "[]") as [string, number, number][]) {
      total += count;
      granted += grantedCount;
      if (doorKey !== "") byDoor.set(doorKey, (byDoor.get(doorKey) ?? 0) + count);
    }
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
  /** What was presented: a card, a door key's PIN or its QR token. */
  credentialKind: CredentialKind;
  /** A key's holder ('Huésped Ana López · LC7Q2M4A'); null for cards. */
  holder: string | null;
  /** Granted, denied, a door alarm, or a denial resolved by approving its card (migration 0028). */
  outcome: AccessOutcome;
  /** When its card's approval resolved this denial; null otherwise. */
  resolvedAt: number | null;
};

export type StatFigure = "total" | "granted" | "denied" | "alarms" | "uniqueCards";
/**
 * `moreThan` (only when not empty): figures past LOG_COUNT_BOUND, each
 * meaning "more than its value". `alarms` are door alarms, never a grant or a
 * denial; resolved denials are in none of the figures but `total` of their own filter.
 */
export type AccessLogStats = { total: number; granted: number; denied: number; alarms: number; uniqueCards: number; moreThan?: StatFigure[] };

/** The outcomes (access_logs.access_granted, migration 0028) each status filter reads: `all` is every one but the resolved denials. */
const STATUS_OUTCOMES: Record<LogStatus, number[]> = {
  all: [ACCESS_OUTCOMES.denied, ACCESS_OUTCOMES.granted, ACCESS_OUTCOMES.alarm],
  granted: [ACCESS_OUTCOMES.granted],
  denied: [ACCESS_OUTCOMES.denied],
  alarm: [ACCESS_OUTCOMES.alarm],
  resolved: [ACCESS_OUTCOMES.resolved],
};

/** `column` holds one of the outcomes: one value is an equality (an index range), several an IN. */
const outcomeIn = (column: string, outcomes: number[]) =>
  outcomes.length === 1 ? sql`${sql.raw(column)} = ${outcomes[0]}` : sql`${sql.raw(column)} IN (${sql.raw(outcomes.join(", "))})`;

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
  /** The outcomes wanted (STATUS_OUTCOMES); `all` is every outcome but resolved. */
  outcomes: number[];
  /**
   * The status filter is `all`: checked as "not resolved" (`<>`, which no
   * index range is made of, so the time indexes keep their order), and only
   * when the range holds a resolved denial at all (`withResolvedCheck`): the
   * time indexes do not hold the outcome, so the check reads the rows.
   */
  everyOutcome: boolean;
  /** `all` with no resolved denial in the range: nothing to leave out. */
  noneResolved?: boolean;
  doorId: string | null;
  /** Search: canonical hex the card number starts with (null: the text is not hex, no card matches). */
  cardPrefix: string | null;
  /** Search: what the username starts with, case-insensitively (null: no search). */
  usernamePrefix: string | null;
  /** Only rows of this credential kind (card, PIN, QR); null: all. */
  credentialKind: CredentialKind | null;
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
    outcomes: STATUS_OUTCOMES[filters.status],
    everyOutcome: filters.status === "all",
    doorId: filters.doorId || null,
    cardPrefix: cardPrefix || null,
    usernamePrefix: search || null,
    credentialKind: !filters.credentialKind || filters.credentialKind === "all" ? null : filters.credentialKind,
  };
}

/**
 * The `all` filter leaves out the resolved denials; when the range holds none
 * (one seek of access_log_cards_granted_last_idx: a card's newest resolved row
 * is in the range exactly when one of its resolved rows is), the pages and
 * the export check nothing, and read the time indexes alone as before.
 */
async function withResolvedCheck(criteria: Criteria): Promise<Criteria> {
  // A search or a credential kind reads indexes that hold the outcome: the check costs nothing there.
  if (!criteria.everyOutcome || criteria.usernamePrefix || criteria.credentialKind) return criteria;
  const [row] = await getDb().all<{ found: number }>(sql`
    SELECT EXISTS (SELECT 1 FROM access_log_cards WHERE granted = ${ACCESS_OUTCOMES.resolved} AND last_at >= ${criteria.since ?? 0}) AS found`);
  return { ...criteria, noneResolved: Number(row?.found ?? 1) === 0 };
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
  // `all` as "not resolved" (`<>` uses no index): the time order stays the time index's, checked in its entries.
  if (!criteria.everyOutcome) conditions.push(outcomeIn(checkOnly ? "+access_granted" : "access_granted", criteria.outcomes));
  else if (!criteria.noneResolved) conditions.push(sql`${column("access_granted")} <> ${ACCESS_OUTCOMES.resolved}`);
  if (criteria.doorId) conditions.push(sql`${column("door_id")} = ${criteria.doorId}`);
  if (criteria.credentialKind) conditions.push(sql`${column("credential_kind")} = ${criteria.credentialKind}`);
  return conditions;
}

/**
 * A search among a door key's rows (PIN or QR: a few per cent of the log):
 * the key rows of the range (and door) are read in time order from the kind
 * indexes and the search checked on each, instead of every row of the
 * prefix's cards and users in the range, most of them cards.
 */
const keyKindSearch = (criteria: Criteria) => criteria.usernamePrefix !== null && (criteria.credentialKind === "pin" || criteria.credentialKind === "qr");

/**
 * The log as the base conditions read it. A credential kind at a door reads
 * access_logs_kind_door_idx (kind, door, time, result): left to itself SQLite
 * walks the door's index in time order and checks each row's kind, which for
 * a PIN or QR filter at a busy door reads most of the door's card rows.
 */
const filteredLog = (criteria: Criteria) => {
  if (criteria.credentialKind && criteria.doorId) return sql`access_logs INDEXED BY access_logs_kind_door_idx`;
  // A key's kind anywhere: its rows in time order from access_logs_kind_idx
  // (SQLite may otherwise take the result's index, again mostly card rows).
  if (criteria.credentialKind === "pin" || criteria.credentialKind === "qr") return sql`access_logs INDEXED BY access_logs_kind_idx`;
  return sql`access_logs`;
};

const cardMatch = (prefix: string) => sql`card_number >= ${prefix} AND card_number < ${prefixEnd(prefix)}`;
const usernameMatch = (prefix: string) =>
  sql`username COLLATE NOCASE >= ${prefix} AND username COLLATE NOCASE < ${prefixEnd(prefix)}`;

/**
 * A search as two disjoint selects, each answered by its own index: rows
 * whose card number matches, and rows whose username matches but card
 * number does not. `columns` is what each select returns (qualified by
 * `access_logs.`). With a date range or a door each select seeks them per
 * key (`searchSeeks`), so its cost follows the rows of the range and door,
 * not every match in the log.
 */
function searchBranches(criteria: Criteria, columns: SQL): SQL {
  if (keyKindSearch(criteria)) {
    return sql`SELECT ${columns} FROM ${filteredLog(criteria)} WHERE ${and([...baseConditions(criteria), searchCheck(criteria)])}`;
  }
  if (criteria.since !== null || criteria.doorId) return searchSeeks(criteria, columns);
  const base = baseConditions(criteria, { checkOnly: true });
  const byUsername = sql`SELECT ${columns} FROM access_logs WHERE ${and([
    usernameMatch(criteria.usernamePrefix!),
    ...(criteria.cardPrefix ? [sql`NOT (${cardMatch(criteria.cardPrefix)})`] : []),
    ...base,
  ])}`;
  if (!criteria.cardPrefix) return byUsername;
  return sql`SELECT ${columns} FROM access_logs WHERE ${and([cardMatch(criteria.cardPrefix), ...base])}
    UNION ALL ${byUsername}`;
}

/**
 * The search's two selects over a date range or at a door. The prefix
 * indexes hold the time after the card (access_logs_card_idx: card, result,
 * time) or after the username and card (access_logs_user_idx), and no door
 * before them, so a prefix range alone reads every match of the whole log
 * and drops those outside the range or door: on a log of years, a username
 * matching a tenth of it meant reading a tenth of the log per figure.
 * Instead the distinct keys of the prefix (card numbers; username and card
 * pairs) are found one index seek each (a loose index scan written as a
 * recursive CTE), and for each key and result the rows of the range are one
 * index range, of access_logs_door_card_idx (door, card, result, time,
 * username: the username branch checks it from the index) when a door is
 * filtered (CROSS JOIN keeps the keys outside: SQLite would otherwise scan
 * the index and look the keys up). The cost is the keys plus the rows in the
 * range and door.
 */
function searchSeeks(criteria: Criteria, columns: SQL): SQL {
  const range = [
    outcomeIn("access_granted", criteria.outcomes),
    ...(criteria.since === null ? [] : [sql`timestamp >= ${criteria.since}`]),
    // Not in these indexes: checked on the rows each seek reads (a card kind
    // with a search reads the table; PIN and QR searches go through keyKindSearch).
    ...(criteria.credentialKind ? [sql`credential_kind = ${criteria.credentialKind}`] : []),
  ];
  const door = criteria.doorId ? [sql`door_id = ${criteria.doorId}`] : [];
  const rowsOf = (card: SQL) =>
    criteria.doorId
      ? sql`access_logs INDEXED BY access_logs_door_card_idx ON ${and([...door, sql`card_number = ${card}`, ...range])}`
      : null;
  const prefix = criteria.usernamePrefix!;
  const byUsernameRows =
    rowsOf(sql`seek_keys.c`) ?? sql`access_logs INDEXED BY access_logs_user_idx ON ${and([sql`username COLLATE NOCASE = seek_keys.u`, sql`card_number = seek_keys.c`, ...range])}`;
  const byUsername = sql`SELECT ${columns} FROM (
      WITH RECURSIVE seek_users(u) AS (
        SELECT (SELECT username FROM access_logs WHERE ${usernameMatch(prefix)} ORDER BY username COLLATE NOCASE LIMIT 1)
        UNION ALL
        SELECT (SELECT username FROM access_logs
                WHERE username COLLATE NOCASE > seek_users.u AND username COLLATE NOCASE < ${prefixEnd(prefix)}
                ORDER BY username COLLATE NOCASE LIMIT 1)
        FROM seek_users WHERE u IS NOT NULL),
      seek_pairs(u, c) AS (
        SELECT u, (SELECT min(card_number) FROM access_logs WHERE username COLLATE NOCASE = seek_users.u) FROM seek_users WHERE u IS NOT NULL
        UNION ALL
        SELECT u, (SELECT min(card_number) FROM access_logs WHERE username COLLATE NOCASE = seek_pairs.u AND card_number > seek_pairs.c)
        FROM seek_pairs WHERE c IS NOT NULL)
      SELECT u, c FROM seek_pairs WHERE c IS NOT NULL${
        criteria.cardPrefix ? sql` AND NOT (c >= ${criteria.cardPrefix} AND c < ${prefixEnd(criteria.cardPrefix)})` : sql``
      }) AS seek_keys
    CROSS JOIN ${byUsernameRows}${criteria.doorId ? sql` WHERE username COLLATE NOCASE = seek_keys.u` : sql``}`;
  if (!criteria.cardPrefix) return byUsername;
  const cardPrefix = criteria.cardPrefix;
  const byCardRows =
    rowsOf(sql`seek_keys.k`) ?? sql`access_logs INDEXED BY access_logs_card_idx ON ${and([sql`card_number = seek_keys.k`, ...range])}`;
  return sql`SELECT ${columns} FROM (
      WITH RECURSIVE seek_cards(k) AS (
        SELECT (SELECT min(card_number) FROM access_logs WHERE ${cardMatch(cardPrefix)})
        UNION ALL
        SELECT (SELECT min(card_number) FROM access_logs WHERE card_number > seek_cards.k AND card_number < ${prefixEnd(cardPrefix)})
        FROM seek_cards WHERE k IS NOT NULL)
      SELECT k FROM seek_cards WHERE k IS NOT NULL) AS seek_keys
    CROSS JOIN ${byCardRows}
    UNION ALL ${byUsername}`;
}

/** The figure each outcome counts in (resolved denials count in `total` only, under their own filter). */
const FIGURE_OF_OUTCOME: Record<number, "granted" | "denied" | "alarms" | null> = { 0: "denied", 1: "granted", 2: "alarms", 3: null };

/**
 * SPEC §3 log stats for the filtered rows: total, granted, denied, door
 * alarms (their own kind: issue 40, point 17), unique card numbers. Without a
 * search they come from the counters and are exact; with one, each figure is
 * counted up to LOG_COUNT_BOUND matching rows, and the figures that went past
 * it are listed in `moreThan` (each then means "more than this value"; docs/api.md).
 */
export async function getAccessLogStats(filters: LogFilters, now = new Date()): Promise<AccessLogStats> {
  const criteria = criteriaOf(filters, now);
  // The counters do not split by credential kind: a kind is counted on its rows, as a search is.
  if (criteria.usernamePrefix || criteria.credentialKind) return searchStats(criteria);
  const [counts] = await getDb().all<Record<string, number>>(statsQuery(criteria));
  const stats: AccessLogStats = { total: 0, granted: 0, denied: 0, alarms: 0, uniqueCards: Number(counts?.uniqueCards ?? 0) };
  for (const outcome of criteria.outcomes) {
    const rows = Number(counts?.[`o${outcome}`] ?? 0);
    stats.total += rows;
    const figure = FIGURE_OF_OUTCOME[outcome];
    if (figure) stats[figure] += rows;
  }
  return stats;
}

/**
 * A search's stats, counted on its prefix indexes up to the bound, so a
 * search matching millions of rows costs what one matching ten thousand
 * does. One bounded pass reads the matches (LIMIT bound + 1) with their
 * outcome and card: under the bound every figure is exact. Past it the total
 * says "more than", unique cards are those of the rows read, and each
 * outcome's figure is counted apart up to the bound (only when several
 * outcomes are asked for; with one the pass already counted it).
 * Most of a search's cost is finding its card numbers and usernames, so a
 * search with few matches reads them once, not once per figure.
 */
async function searchStats(criteria: Criteria): Promise<AccessLogStats> {
  const cap = LOG_COUNT_BOUND + 1;
  const rows = (wanted: Criteria, columns: SQL) =>
    wanted.usernamePrefix ? searchBranches(wanted, columns) : sql`SELECT ${columns} FROM ${filteredLog(wanted)} WHERE ${and(baseConditions(wanted))}`;
  const [read] = await getDb().all<{ total: number; o0: number; o1: number; o2: number; uniqueCards: number }>(sql`
    SELECT count(*) AS total, coalesce(sum(o = 0), 0) AS o0, coalesce(sum(o = 1), 0) AS o1, coalesce(sum(o = 2), 0) AS o2,
      count(DISTINCT CASE WHEN o IN (0, 1, 3) THEN c END) AS uniqueCards
    FROM (${rows(criteria, sql`access_logs.access_granted AS o, access_logs.card_number AS c`)} LIMIT ${cap})`);
  const total = Number(read?.total ?? 0);
  const uniqueCards = Number(read?.uniqueCards ?? 0);
  const counted = { denied: Number(read?.o0 ?? 0), granted: Number(read?.o1 ?? 0), alarms: Number(read?.o2 ?? 0) };
  if (total < cap) return { total, ...counted, uniqueCards };

  const figures = { denied: 0, granted: 0, alarms: 0 };
  const asked = criteria.outcomes.filter((outcome) => FIGURE_OF_OUTCOME[outcome]);
  if (asked.length === 1) figures[FIGURE_OF_OUTCOME[asked[0]!]!] = cap;
  else if (asked.length > 1) {
    const bounded = (outcome: number) =>
      sql`(SELECT count(*) FROM (${rows({ ...criteria, outcomes: [outcome], everyOutcome: false }, sql`1`)} LIMIT ${cap})) AS ${sql.raw(`o${outcome}`)}`;
    const [counts] = await getDb().all<Record<string, number>>(sql`SELECT ${sql.join(asked.map(bounded), sql`, `)}`);
    for (const outcome of asked) figures[FIGURE_OF_OUTCOME[outcome]!] = Number(counts?.[`o${outcome}`] ?? 0);
  }
  const moreThan: StatFigure[] = ["total"];
  const figure = (name: StatFigure, value: number) => {
    if (value < cap) return value;
    moreThan.push(name);
    return cap - 1;
  };
  const stats = {
    total: cap - 1,
    granted: figure("granted", figures.granted),
    denied: figure("denied", figures.denied),
    alarms: figure("alarms", figures.alarms),
  };
  // The cards of the first `cap` rows: more rows match, so there may be more cards.
  moreThan.push("uniqueCards");
  return { ...stats, uniqueCards, moreThan };
}

/**
 * Stats without a search, from the counters (migrations 0015, 0025 and 0028)
 * only, one figure per outcome wanted (`o0` … `o3`): the whole hours of the
 * range from access_log_hours plus the rows of its first, partial hour from
 * an index range (at most an hour of the log); the whole log from the
 * per-card totals; unique cards are the card numbers (of the door) whose
 * newest grant or denial (of the wanted outcome) is in the range.
 */
function statsQuery({ since, outcomes, doorId }: Criteria) {
  const rowsOf = (outcome: number) => {
    if (since === null) {
      const table = doorId ? sql`access_log_card_doors` : sql`access_log_cards`;
      const conditions = [...(doorId ? [sql`door_key = ${doorId}`] : []), sql`granted = ${outcome}`];
      return sql`(SELECT coalesce(sum(attempts), 0) FROM ${table} WHERE ${and(conditions)})`;
    }
    const edge = Math.ceil(since / HOUR_MS) * HOUR_MS;
    const hours = [sql`hour >= ${edge / HOUR_MS}`, ...(doorId ? [sql`door_key = ${doorId}`] : []), sql`granted = ${outcome}`];
    const partial = [sql`timestamp >= ${since}`, sql`timestamp < ${edge}`, ...(doorId ? [sql`door_id = ${doorId}`] : []), sql`access_granted = ${outcome}`];
    return sql`((SELECT coalesce(sum(attempts), 0) FROM access_log_hours WHERE ${and(hours)})
      + (SELECT count(*) FROM access_logs WHERE ${and(partial)}))`;
  };
  const figures = outcomes.map((outcome) => sql`${rowsOf(outcome)} AS ${sql.raw(`o${outcome}`)}`);
  return sql`SELECT ${sql.join(figures, sql`, `)}, ${uniqueCardsQuery({ since, outcomes, doorId })} AS uniqueCards`;
}

/**
 * The card numbers (of the door, with the outcome) whose newest row is in the
 * range, each once; door alarms have no card. Without a door, one range of a
 * time index: each card's newest grant or denial (access_log_card_last,
 * migrations 0025 and 0028), or with one outcome its newest row of that
 * outcome (access_log_cards_granted_last_idx; one counter row per card and
 * outcome). At a door, the door's counters in card order (its primary key),
 * grouped without a sort.
 */
function uniqueCardsQuery({ since, outcomes, doorId }: Pick<Criteria, "since" | "outcomes" | "doorId">) {
  const cardOutcomes = outcomes.filter((outcome) => outcome !== ACCESS_OUTCOMES.alarm);
  if (cardOutcomes.length === 0) return sql`0`;
  const inRange = since === null ? [] : [sql`last_at >= ${since}`];
  if (doorId) {
    const cards = and([sql`door_key = ${doorId}`, ...inRange, outcomeIn("granted", cardOutcomes)]);
    return sql`(SELECT count(*) FROM (SELECT 1 FROM access_log_card_doors WHERE ${cards} GROUP BY card_number))`;
  }
  if (cardOutcomes.length > 1) return sql`(SELECT count(*) FROM access_log_card_last${inRange.length ? sql` WHERE ${and(inRange)}` : sql``})`;
  return sql`(SELECT count(*) FROM access_log_cards WHERE ${and([outcomeIn("granted", cardOutcomes), ...inRange])})`;
}

/** The columns a record is read from, in the order of RecordTuple. */
const RECORD_COLUMNS = sql.raw(
  `rowid AS row_id, id, timestamp, card_id, card_number, door_id, door_code, door_name, username,
   access_granted, reason, is_anonymous, offline, ip_address, credential_kind, holder, resolved_at`,
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
  credentialKind: CredentialKind,
  holder: string | null,
  resolvedAt: number | null,
];

/**
 * Runs a select of RECORD_COLUMNS and reads all its rows as one JSON array
 * built by SQLite, in the select's order: libsql makes a JavaScript object
 * per cell, which on an export costs several times SQLite's own work.
 */
async function readRecords(select: SQL) {
  const [result] = await getDb().all<{ records: string }>(sql`
    SELECT json_group_array(json_array(row_id, id, timestamp, card_id, card_number, door_id, door_code, door_name,
                                       username, access_granted, reason, is_anonymous, offline, ip_address,
                                       credential_kind, holder, resolved_at)) AS records
    FROM (${select})`);
  return (JSON.parse(result?.records ?? "[]") as RecordTuple[]).map((tuple) => {
    const [rowId, id, timestamp, cardId, cardNumber, doorId, doorCode, doorName, username, accessGranted, reason, isAnonymous, offline, ipAddress, credentialKind, holder, resolvedAt] =
      tuple;
    const record: AccessLogRecord = {
      id,
      timestamp,
      cardId,
      cardNumber,
      doorId,
      doorCode,
      doorName,
      username,
      accessGranted: accessGranted === ACCESS_OUTCOMES.granted,
      reason,
      isAnonymous: isAnonymous === 1,
      offline: offline === 1,
      ipAddress,
      credentialKind,
      holder,
      outcome: OUTCOME_OF_VALUE[accessGranted] ?? "denied",
      resolvedAt,
    };
    return { rowId, record };
  });
}

/**
 * One page of the filtered rows, newest first (ties by insertion order).
 * The inner select reads only index entries, so a deep OFFSET skips entries,
 * not rows. `total` (the rows the filters match, when known exactly) lets a
 * page in the older half be read from the oldest end, so the last page costs
 * what the first does. A search reads its prefix indexes and sorts the
 * matches; with `manyMatches` (more than LOG_COUNT_BOUND: the stats said so)
 * it walks the time order instead and checks the search on each row, which
 * finds a page after reading at most a few rows per match.
 */
export async function listAccessLogs(
  filters: LogFilters,
  { limit, offset }: { limit: number; offset: number },
  now = new Date(),
  { total, manyMatches = false }: { total?: number; manyMatches?: boolean } = {},
) {
  const criteria = await withResolvedCheck(criteriaOf(filters, now));
  let order = sql`DESC`;
  if (total !== undefined && !criteria.usernamePrefix && offset > total / 2) {
    // The same rows counted from the other end of the index.
    const end = Math.min(total, offset + limit);
    if (end <= offset) return [];
    [limit, offset] = [end - offset, total - end];
    order = sql`ASC`;
  }
  let pageIds: SQL;
  if (!criteria.usernamePrefix) {
    pageIds = sql`SELECT rowid FROM ${filteredLog(criteria)} WHERE ${and(baseConditions(criteria))}
      ORDER BY timestamp ${order}, rowid ${order} LIMIT ${limit} OFFSET ${offset}`;
  } else if (manyMatches || keyKindSearch(criteria)) {
    pageIds = sql`SELECT rowid FROM ${filteredLog(criteria)} WHERE ${and([...baseConditions(criteria), searchCheck(criteria)])}
      ORDER BY timestamp DESC, rowid DESC LIMIT ${limit} OFFSET ${offset}`;
  } else {
    pageIds = sql`SELECT rid FROM (${searchBranches(criteria, sql`access_logs.rowid AS rid, access_logs.timestamp AS timestamp`)})
      ORDER BY timestamp DESC, rid DESC LIMIT ${limit} OFFSET ${offset}`;
  }
  const rows = await readRecords(sql`
    SELECT ${RECORD_COLUMNS} FROM access_logs WHERE rowid IN (${pageIds})
    ORDER BY timestamp DESC, rowid DESC`);
  return rows.map((row) => row.record);
}

/** The search as a check on each row (the unary `+` keeps the planner off the prefix indexes). */
function searchCheck(criteria: Criteria): SQL {
  const byUsername = sql`(+username COLLATE NOCASE >= ${criteria.usernamePrefix} AND +username COLLATE NOCASE < ${prefixEnd(criteria.usernamePrefix!)})`;
  return criteria.cardPrefix
    ? sql`((+card_number >= ${criteria.cardPrefix} AND +card_number < ${prefixEnd(criteria.cardPrefix)}) OR ${byUsername})`
    : byUsername;
}

/**
 * Rows per export batch. A batch's JSON and CSV text (~160 bytes a row) stay
 * under V8's large-object size (128 KiB), so they die young in the new space
 * instead of piling up in the large-object space until a full collection:
 * with 2,000 rows the server's RSS grew by ~110 MB during a 1M-row export,
 * with 250 by ~20 MB. Each batch is one query, so fewer, larger batches cost
 * less per row (scripts/bench-admin.mjs --only=export).
 */
export const EXPORT_BATCH_SIZE = 600;

/**
 * Every filtered row, newest first, in batches: each batch is one keyset
 * query (after the last row sent), so memory stays at one batch whatever the
 * size of the log. Search terms are checked on each row here (the unary `+`
 * keeps the planner on the time-ordered index), so an export with a search
 * reads the date range once instead of sorting matches per batch.
 */
export async function* streamAccessLogs(filters: LogFilters, { batchSize = EXPORT_BATCH_SIZE, now = new Date() } = {}) {
  const placeOf = (row: { rowId: number; record: AccessLogRecord }) => ({ rowId: row.rowId, timestamp: row.record.timestamp });
  for await (const rows of keysetBatches(filters, { batchSize, now }, RECORD_COLUMNS, readRecords, placeOf)) {
    yield rows.map((row) => row.record);
  }
}

/**
 * The keyset walk of the exports: `read` runs a select of `columns` (which
 * include `rowid AS row_id` and `timestamp`); the last row's place (its
 * rowid and timestamp, from `placeOf`) starts the next batch. With
 * `readAhead` (reads on a thread of their own), the next batch is asked for
 * before this one is handed over, so it is read while this one is sent.
 */
async function* keysetBatches<T>(
  filters: LogFilters,
  { batchSize, now, readAhead = false }: { batchSize: number; now: Date; readAhead?: boolean },
  columns: SQL,
  read: (select: SQL) => Promise<T[]>,
  placeOf: (row: T) => { rowId: number; timestamp: number },
) {
  const criteria = await withResolvedCheck(criteriaOf(filters, now));
  const conditions = baseConditions(criteria);
  if (criteria.usernamePrefix) conditions.push(searchCheck(criteria));
  const readAfter = (after: { timestamp: number; rowId: number } | null) => {
    const keyset: SQL[] = after ? [sql`(timestamp, rowid) < (${after.timestamp}, ${after.rowId})`] : [];
    return read(sql`
      SELECT ${columns} FROM ${filteredLog(criteria)}
      WHERE ${and([...conditions, ...keyset])}
      ORDER BY timestamp DESC, rowid DESC LIMIT ${batchSize}`);
  };
  let next = readAfter(null);
  try {
    while (true) {
      const rows = await next;
      if (rows.length === 0) return;
      const more = rows.length === batchSize;
      if (more && readAhead) next = readAfter(placeOf(rows[rows.length - 1]!));
      yield rows;
      if (!more) return;
      if (!readAhead) next = readAfter(placeOf(rows[rows.length - 1]!));
    }
  } finally {
    // A batch read ahead for a download that ended: its answer is not wanted.
    await next.catch(() => {});
  }
}

/**
 * One export row: its rowid (the keyset's place), then its values in the
 * CSV's column order: timestamp (epoch ms), card number, username, door (its
 * name, else its code), outcome (ACCESS_OUTCOMES), reason, anonymous, offline, IP address,
 * credential kind, holder (a key's, else the username).
 */
export type CsvRowTuple = [
  rowId: number,
  timestamp: number,
  cardNumber: string,
  username: string | null,
  door: string,
  outcome: number,
  reason: AccessReason,
  isAnonymous: number,
  offline: number,
  ipAddress: string | null,
  credentialKind: CredentialKind,
  holder: string | null,
];

/** Only what the CSV writes, and the keyset's row id. */
const CSV_COLUMNS = sql.raw(
  `rowid AS row_id, timestamp, card_number, username, door_name, door_code, access_granted, reason, is_anonymous, offline,
   ip_address, credential_kind, holder`,
);

/**
 * The export's rows, in the order and batches of streamAccessLogs, as bare
 * tuples (CsvRowTuple) read as one JSON array per batch: no object per row
 * or per cell. The export service quotes them, each distinct text once
 * (doors, users, cards and addresses repeat), which costs less than quoting
 * every cell in SQL (scripts/bench-admin.mjs --only=export).
 */
export async function* streamAccessLogCsvRows(
  filters: LogFilters,
  { batchSize = EXPORT_BATCH_SIZE, now = new Date() } = {},
): AsyncGenerator<CsvRowTuple[]> {
  // The batches are read on a thread of their own, each while the one before is sent.
  const reader = openReaderThread();
  const read = async (select: SQL) => {
    const [result] = await reader.all<{ rows: string }>(sql`
      SELECT json_group_array(json_array(row_id, timestamp, card_number, username, coalesce(door_name, door_code), access_granted,
                                         reason, is_anonymous, offline, ip_address, credential_kind, coalesce(holder, username)))
        AS rows FROM (${select})`);
    return JSON.parse(result?.rows ?? "[]") as CsvRowTuple[];
  };
  try {
    yield* keysetBatches(filters, { batchSize, now, readAhead: reader.threaded }, CSV_COLUMNS, read, ([rowId, timestamp]) => ({ rowId, timestamp }));
  } finally {
    await reader.close();
  }
}

/**
 * SPEC §7 Logs cleanup, append-only (issue 40, point 15): marks the denied
 * rows of a card number resolved (`resolved_at`, and access_granted 3: the
 * outcome resolved, which the counters follow) instead of deleting them; answers how
 * many, and how many of each door with the oldest and newest (for the audit trail).
 */
export async function resolveDeniedAccessLogsOfCardNumber(cardNumber: string, at: Date) {
  const doors = await getDb().all<{ doorCode: string; doorName: string | null; rows: number; first: number; last: number }>(sql`
    SELECT door_code AS doorCode, max(door_name) AS doorName, count(*) AS rows, min(timestamp) AS first, max(timestamp) AS last
    FROM access_logs WHERE card_number = ${cardNumber} AND access_granted = ${ACCESS_OUTCOMES.denied} GROUP BY door_code ORDER BY door_code`);
  if (doors.length === 0) return { resolved: 0, doors: [] };
  const result = await getDb().run(sql`
    UPDATE access_logs SET resolved_at = ${at.getTime()}, access_granted = ${ACCESS_OUTCOMES.resolved}
    WHERE card_number = ${cardNumber} AND access_granted = ${ACCESS_OUTCOMES.denied}`);
  return {
    resolved: result.rowsAffected,
    doors: doors.map((door) => ({ ...door, rows: Number(door.rows), first: new Date(Number(door.first)), last: new Date(Number(door.last)) })),
  };
}

/**
 * The log's retention (ACCESS_LOG_RETENTION_MONTHS): deletes the rows older
 * than `before`, oldest first, `batchSize` per transaction so that no door's
 * recording waits long behind it; answers how many. The log is append-only
 * (migration 0028): each transaction raises access_log_control.purge_before
 * to `before` (never in the future), which lets the trigger pass deletes of
 * older rows only, and sets it back to 0 before it commits. The counters
 * follow the deletions in the same transaction (migration 0015's triggers).
 */
export async function purgeAccessLogsBefore(before: Date, batchSize = 5000): Promise<number> {
  let deleted = 0;
  while (true) {
    const rows = await inWriteTransaction(async () => {
      await getDb().run(sql`UPDATE access_log_control SET purge_before = ${before.getTime()} WHERE id = 1`);
      const result = await getDb().run(sql`
        DELETE FROM access_logs WHERE rowid IN (
          SELECT rowid FROM access_logs WHERE timestamp < ${before.getTime()} ORDER BY timestamp LIMIT ${batchSize})`);
      await getDb().run(sql`UPDATE access_log_control SET purge_before = 0 WHERE id = 1`);
      return result.rowsAffected;
    });
    deleted += rows;
    if (rows < batchSize) return deleted;
  }
}
