#!/usr/bin/env node
// Fills a database with a realistic access log for benchmarks: doors, users,
// cards and access_logs rows spread over the last days, about 30 % denied;
// 3 % of the rows are guests' PINs and 1 % their QR codes (issue 29).
// The rows are made inside SQLite (loadRows: INSERT … SELECT from a counter,
// random() and small lookup tables of doors, cards and reasons, 250,000 rows
// a statement, in timestamp order), with the log's secondary indexes, the
// counters' triggers (migration 0015), foreign-key checks and the WAL off
// during the load; then the indexes are built again, the counters recounted
// in one GROUP BY each and the triggers and WAL put back. ~45 CPU-seconds per
// million rows, most of it building the 11 indexes (writing the rows: ~8, was
// ~35 with the rows made in JavaScript; 10,000,000 rows: 480 CPU-seconds on
// one core). `--seed` fixes the doors, users, cards and their
// weights; the rows' draws come from SQLite's random().
//
//   node scripts/generate-access-logs.mjs --db=file:/tmp/x/app.db [--rows=1000000]
//        [--doors=50] [--cards=5000] [--days=90] [--seed=1]
//
// The database is migrated first; run it on a scratch database (it adds
// doors, users and cards next to whatever is there).
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { randomSource } from "./lib/random.mjs";
import { openScratchDatabase } from "./lib/scratch-db.mjs";

const DAY_MS = 24 * 3600_000;
/** Shares of the rows made with a guest's PIN and QR code; the rest are cards. */
const PIN_SHARE = 0.03;
const QR_SHARE = 0.01;
const ROWS_PER_STATEMENT = 250_000;

const DOOR_NAMES = [
  "Entrada principal", "Garaje", "Gimnasio", "Coworking", "Sala de reuniones A", "Sala de reuniones B",
  "Sala de conferencias", "Lavandería", "Terraza", "Piscina", "Jacuzzi", "Sala de yoga", "Bodega",
  "Cuarto de bicis", "Sala de eventos", "Cocina común", "Biblioteca", "Azotea", "Trastero norte", "Trastero sur",
];
export const FIRST_NAMES = ["marta", "javier", "lucia", "pablo", "carmen", "diego", "ana", "sergio", "elena", "mario", "laura", "hugo", "paula", "adrian", "sara", "ivan", "noelia", "ruben", "irene", "xuan"];
export const LAST_NAMES = ["garcia", "fernandez", "lopez", "martinez", "suarez", "alvarez", "menendez", "rodriguez", "gonzalez", "diaz", "fdez", "iglesias", "rubio", "castro", "prieto"];
/** Denial reasons of known, usable cards, with their weights. */
const DENIAL_REASONS = [
  ["no_permission", 55], ["card_inactive", 8], ["card_expired", 8], ["card_suspended", 4], ["user_inactive", 5],
  ["door_maintenance", 8], ["door_emergency", 2], ["offline_deny", 6], ["invalid_request", 4],
];

/** Picks an index with probability proportional to weights (cumulative array). */
function pickWeighted(cumulative, random) {
  const target = random() * cumulative[cumulative.length - 1];
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle] < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

function cumulativeOf(weights) {
  let sum = 0;
  return weights.map((weight) => (sum += weight));
}

export function hex(random, bytes) {
  let text = "";
  for (let i = 0; i < bytes; i++) text += Math.floor(random() * 256).toString(16).padStart(2, "0");
  return text.toUpperCase();
}

/**
 * The log's time buckets over the last `days`, one per clock hour (the first
 * and last partial): attempts are more likely by day (07–23 h, roughly Madrid)
 * than at night (0.15 as likely). `lo`/`hi` are each bucket's share of the
 * cumulative distribution, so a uniform u in [lo, hi) maps to a time in it.
 */
function hourBuckets(days, now) {
  const buckets = [];
  for (let from = now - days * DAY_MS; from < now; ) {
    const to = Math.min(now, (Math.floor(from / 3600_000) + 1) * 3600_000);
    const hour = new Date(from).getUTCHours() + 1;
    buckets.push({ from, span: to - from, weight: (to - from) * (hour >= 7 && hour <= 23 ? 1 : 0.15) });
    from = to;
  }
  const total = buckets.reduce((sum, bucket) => sum + bucket.weight, 0);
  let sum = 0;
  return buckets.map((bucket, i) => {
    const lo = sum / total;
    sum += bucket.weight;
    // The last bucket takes everything up to 1 (and past it, against rounding).
    return { from: bucket.from, span: bucket.span, lo, hi: i === buckets.length - 1 ? 2 : sum / total };
  });
}

/** A uniform number in [0, 1) from SQLite's random(). */
const UNIFORM = "((random() & 4503599627370495) / 4503599627370496.0)";

/**
 * Writes the rows inside SQLite: JavaScript only fills small lookup tables
 * (doors and cards with their weights, each card's own doors, denial reasons,
 * hour buckets), and each INSERT … SELECT makes ROWS_PER_STATEMENT rows from a
 * counter, SQLite's random() and those tables, in timestamp order (row n's
 * time is the inverse distribution at (n + u) / rows, so times ascend).
 * Each row's random draws are materialised once, so every use reads the same.
 */
async function loadRows(client, { rows, days, now, doorRows, doorWeights, cardRows, cardWeights, guestRows, log }) {
  const normalised = (cumulative) => cumulative.map((value) => value / cumulative[cumulative.length - 1]);
  const doorCum = normalised(doorWeights);
  const cardCum = normalised(cardWeights);
  const reasonCum = normalised(cumulativeOf(DENIAL_REASONS.map(([, weight]) => weight)));
  const tables = [
    ["gen_doors", "i INTEGER PRIMARY KEY, cum REAL NOT NULL, id TEXT, code TEXT, name TEXT, ip TEXT", ["i", "cum", "id", "code", "name", "ip"],
      doorRows.map((door, i) => [i, doorCum[i], door.id, door.code, door.name, door.ip])],
    ["gen_cards", "i INTEGER PRIMARY KEY, cum REAL NOT NULL, id TEXT, card_number TEXT, user_id TEXT, username TEXT, pending INTEGER, anon INTEGER, own INTEGER",
      ["i", "cum", "id", "card_number", "user_id", "username", "pending", "anon", "own"],
      cardRows.map((card, i) => [i, cardCum[i], card.id, card.cardNumber, card.user?.id ?? null, card.user?.username ?? null, card.status === "pending" ? 1 : 0, card.isAnonymous ? 1 : 0, card.ownDoors.length])],
    ["gen_own", "card INTEGER, k INTEGER, door INTEGER, PRIMARY KEY (card, k)", ["card", "k", "door"],
      cardRows.flatMap((card, i) => card.ownDoors.map((door, k) => [i, k, door]))],
    ["gen_guests", "i INTEGER PRIMARY KEY, code TEXT, holder TEXT", ["i", "code", "holder"], guestRows.map((guest, i) => [i, guest.code, guest.holder])],
    ["gen_reasons", "cum REAL PRIMARY KEY, reason TEXT", ["cum", "reason"], DENIAL_REASONS.map(([reason], i) => [reasonCum[i], reason])],
    ["gen_hours", "hi REAL PRIMARY KEY, lo REAL, start INTEGER, span INTEGER", ["hi", "lo", "start", "span"],
      hourBuckets(days, now).map((bucket) => [bucket.hi, bucket.lo, bucket.from, bucket.span])],
  ];
  for (const [name, columns, names, values] of tables) {
    await client.execute(`CREATE TEMP TABLE ${name} (${columns})`);
    await client.execute({
      sql: `INSERT INTO ${name} (${names.join(", ")}) SELECT ${names.map((_, i) => `value->>${i}`).join(", ")} FROM json_each(?)`,
      args: [JSON.stringify(values)],
    });
  }
  await client.execute("CREATE INDEX temp.gen_doors_cum ON gen_doors (cum)");
  await client.execute("CREATE INDEX temp.gen_cards_cum ON gen_cards (cum)");

  const id = "substr(th, 1, 8) || '-' || substr(th, 9) || '-7' || substr(tail, 1, 3) || '-' || substr(tail, 4, 4) || '-' || substr(tail, 8, 12)";
  const insert = `
    WITH RECURSIVE seq(n) AS (SELECT ?1 UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < ?2),
    draws AS MATERIALIZED (
      SELECT n, ${UNIFORM} AS u_time, ${UNIFORM} AS u_card, ${UNIFORM} AS u_own, ${UNIFORM} AS u_door,
             ${UNIFORM} AS u_reason, ${UNIFORM} AS u_offline, ${UNIFORM} AS u_kind, lower(hex(randomblob(10))) AS tail
      FROM seq),
    picks AS MATERIALIZED (
      SELECT n, tail, u_own, u_door, u_reason, u_offline,
             CASE WHEN u_kind < ${PIN_SHARE} THEN 'pin' WHEN u_kind < ${PIN_SHARE + QR_SHARE} THEN 'qr' ELSE 'card' END AS kind,
             CAST(u_card * ${guestRows.length} AS INTEGER) AS guest,
             (SELECT h.start + CAST((x - h.lo) / (h.hi - h.lo) * h.span AS INTEGER)
                FROM gen_hours h WHERE h.hi > x ORDER BY h.hi LIMIT 1) AS at,
             (SELECT i FROM gen_cards WHERE cum > u_card ORDER BY cum LIMIT 1) AS card
      FROM (SELECT draws.*, (n + u_time) / ?3 AS x FROM draws)),
    decided AS MATERIALIZED (
      SELECT p.n, p.tail, p.at, p.card, p.kind, p.guest,
             CASE WHEN u_door < 0.85 THEN (SELECT door FROM gen_own o WHERE o.card = p.card AND o.k = CAST(u_own * c.own AS INTEGER))
                  ELSE (SELECT i FROM gen_doors WHERE cum > u_own ORDER BY cum LIMIT 1) END AS door,
             CASE WHEN p.kind <> 'card' THEN
                    CASE WHEN u_reason < 0.06 THEN 'invalid_key' WHEN u_reason < 0.1 THEN 'outside_key_window' ELSE 'granted' END
                  WHEN c.pending THEN 'card_pending'
                  WHEN u_reason < 0.255 THEN (SELECT reason FROM gen_reasons WHERE cum > u_reason / 0.255 ORDER BY cum LIMIT 1)
                  ELSE 'granted' END AS reason,
             u_offline
      FROM picks p CROSS JOIN gen_cards c ON c.i = p.card),
    logs AS (
      SELECT n, tail, at, card, kind, guest, door, reason, printf('%012x', at) AS th, reason = 'offline_deny' OR u_offline < 0.02 AS offline FROM decided)
    INSERT INTO access_logs (id, event_id, timestamp, card_id, card_number, door_id, door_code, door_name, user_id, username,
                             access_granted, reason, is_anonymous, offline, source, ip_address, credential_kind, holder)
    SELECT ${id}, ${id}, at, card.id, coalesce(card.card_number, iif(reason = 'invalid_key', '', g.code)), d.id, d.code, d.name,
           card.user_id, card.username, reason = 'granted', reason, coalesce(card.anon, 0), offline,
           CASE WHEN offline THEN NULL WHEN kind = 'pin' THEN 'keypad' WHEN kind = 'qr' THEN 'qr' WHEN card.anon THEN 'mobile' ELSE 'reader' END, d.ip,
           kind, iif(kind <> 'card' AND reason <> 'invalid_key', g.holder, NULL)
    FROM logs l CROSS JOIN gen_doors d ON d.i = l.door CROSS JOIN gen_guests g ON g.i = l.guest
    LEFT JOIN gen_cards card ON card.i = l.card AND l.kind = 'card'
    ORDER BY l.n`;
  for (let offset = 0; offset < rows; offset += ROWS_PER_STATEMENT) {
    const end = Math.min(rows, offset + ROWS_PER_STATEMENT);
    await client.execute({ sql: insert, args: [offset, end, rows] });
    if (end % 1_000_000 === 0 || end === rows) log(`[generate] ${end} rows`);
  }
  for (const [name] of tables) await client.execute(`DROP TABLE temp.${name}`);
}

export async function generateAccessLogs({ url, rows = 1_000_000, doors = 50, cards = 5000, days = 90, seed = 1, now = Date.now(), log = console.info }) {
  const random = randomSource(seed);
  const client = await openScratchDatabase(url);
  await client.execute("PRAGMA cache_size = -262144");
  const started = performance.now();
  const run = Date.now().toString(36);

  const doorRows = Array.from({ length: doors }, (_, i) => {
    const base = DOOR_NAMES[i % DOOR_NAMES.length];
    const name = i < DOOR_NAMES.length ? base : `${base} ${Math.floor(i / DOOR_NAMES.length) + 1}`;
    return { id: crypto.randomUUID(), code: `bench-${run}-${i + 1}`, name, ip: `192.168.10.${(i % 250) + 1}` };
  });
  // Door traffic is skewed: the entrance and the garage see most swipes.
  const doorWeights = cumulativeOf(doorRows.map((_, i) => 1 / (i + 1) ** 0.9));

  const userCount = Math.round(cards * 0.7);
  const userRows = Array.from({ length: userCount }, (_, i) => {
    const first = FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)];
    const last = LAST_NAMES[Math.floor(random() * LAST_NAMES.length)];
    return { id: crypto.randomUUID(), username: `${first}.${last}${i + 1}`, email: `${first}.${last}${i + 1}-${run}@example.com`, first };
  });

  const cardNumbers = new Set();
  const cardRows = Array.from({ length: cards }, (_, i) => {
    let cardNumber;
    do cardNumber = hex(random, random() < 0.8 ? 4 : 7);
    while (cardNumbers.has(cardNumber));
    cardNumbers.add(cardNumber);
    // ~8 % pending (first seen at a door), ~4 % anonymous (phones), the rest held by users or spare.
    const pending = i % 12 === 0;
    const user = !pending && i < userCount * 1.2 ? userRows[i % userCount] : null;
    const ownDoors = [0, ...Array.from({ length: 2 + Math.floor(random() * 4) }, () => pickWeighted(doorWeights, random))];
    return {
      id: crypto.randomUUID(),
      cardNumber,
      status: pending ? "pending" : "active",
      isAnonymous: i % 25 === 1,
      user,
      ownDoors,
    };
  });
  // Guests' door keys (issue 29): a PIN or a QR code each, logged with the
  // stay's reservation code and the holder as the access service writes them.
  const guestRows = Array.from({ length: Math.max(10, Math.round(cards / 12)) }, () => {
    const capital = (name) => name.charAt(0).toUpperCase() + name.slice(1);
    const code = `LC${hex(random, 3)}`;
    const holder = `Huésped ${capital(FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)])} ${capital(LAST_NAMES[Math.floor(random() * LAST_NAMES.length)])} · ${code}`;
    return { code, holder };
  });
  // Some cards swipe far more than others.
  const cardWeights = cumulativeOf(cardRows.map(() => 0.2 + random() ** 3 * 3));

  await client.execute({
    sql: `INSERT INTO doors (id, door_id, name, location)
          SELECT value->>'id', value->>'code', value->>'name', 'Edificio' FROM json_each(?)`,
    args: [JSON.stringify(doorRows)],
  });
  await client.execute({
    sql: `INSERT INTO users (id, username, email, password_hash, first_name)
          SELECT value->>'id', value->>'username', value->>'email', 'not-a-hash', value->>'first' FROM json_each(?)`,
    args: [JSON.stringify(userRows)],
  });
  await client.execute({
    sql: `INSERT INTO cards (id, card_number, status, is_anonymous, user_id)
          SELECT value->>'id', value->>'cardNumber', value->>'status', value->>'isAnonymous', value->>'userId' FROM json_each(?)`,
    args: [JSON.stringify(cardRows.map((card) => ({ ...card, isAnonymous: card.isAnonymous ? 1 : 0, userId: card.user?.id ?? null })))],
  });

  // Bulk load: building each index once over the loaded rows is several
  // times faster than updating them row by row. Same definitions, restored below.
  const indexes = (
    await client.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'access_logs' AND sql IS NOT NULL")
  ).rows.map((row) => ({ name: String(row.name), sql: String(row.sql) }));
  for (const index of indexes) await client.execute(`DROP INDEX "${index.name}"`);
  // The counters' triggers (migrations 0015 and 0025) too: the counters are recounted
  // from the whole log once it is loaded, as the migration backfills them.
  const triggers = (
    await client.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'access_logs'")
  ).rows.map((row) => ({ name: String(row.name), sql: String(row.sql) }));
  for (const trigger of triggers) await client.execute(`DROP TRIGGER "${trigger.name}"`);

  // No foreign-key lookups while loading (libsql turns them on; every row
  // names a door, card and user inserted above: three parent lookups a row for nothing).
  await client.execute("PRAGMA foreign_keys = OFF");
  // Nor a write-ahead log while loading: every page would be written twice
  // (log, then checkpoint). A scratch database; WAL comes back at the end.
  await client.execute("PRAGMA journal_mode = OFF");
  await loadRows(client, { rows, days, now, doorRows, doorWeights, cardRows, cardWeights, guestRows, log });
  const elapsed = () => `${Math.round(performance.now() - started) / 1000} s`;
  log(`[generate] ${rows} rows written; building ${indexes.length} indexes (${elapsed()})`);
  for (const index of indexes) await client.execute(index.sql);
  log(`[generate] indexes built; counting the counters (${elapsed()})`);
  await client.batch(
    [
      "DELETE FROM access_log_hours",
      "DELETE FROM access_log_card_doors",
      "DELETE FROM access_log_cards",
      "DELETE FROM access_log_card_last",
      // Grouped by the columns themselves (not coalesce(door_id, '')) so the
      // door indexes give the groups in order: no sort of the whole log.
      `INSERT INTO access_log_hours (hour, door_key, granted, attempts)
         SELECT CAST(timestamp AS INTEGER) / 3600000, coalesce(door_id, ''), access_granted, count(*) FROM access_logs
         GROUP BY door_id, access_granted, CAST(timestamp AS INTEGER) / 3600000`,
      `INSERT INTO access_log_card_doors (door_key, card_number, granted, attempts, last_at)
         SELECT coalesce(door_id, ''), card_number, access_granted, count(*), max(timestamp) FROM access_logs
         GROUP BY door_id, card_number, access_granted`,
      `INSERT INTO access_log_cards (card_number, granted, attempts, last_at)
         SELECT card_number, access_granted, count(*), max(timestamp) FROM access_logs GROUP BY 1, 2`,
      `INSERT INTO access_log_card_last (card_number, last_at)
         SELECT card_number, max(last_at) FROM access_log_cards GROUP BY 1`,
      ...triggers.map((trigger) => trigger.sql),
    ],
    "write",
  );
  await client.execute("PRAGMA foreign_keys = ON");
  await client.execute("PRAGMA journal_mode = WAL");
  const denied = Number(
    (
      await client.execute({
        sql: "SELECT coalesce(sum(attempts), 0) AS n FROM access_log_hours WHERE granted = 0 AND door_key IN (SELECT value FROM json_each(?))",
        args: [JSON.stringify(doorRows.map((door) => door.id))],
      })
    ).rows[0].n,
  );
  client.close();
  const seconds = (performance.now() - started) / 1000;
  const summary = { rows, denied, deniedShare: Math.round((denied / rows) * 1000) / 10, doors, cards, users: userCount, days, seconds: Math.round(seconds * 10) / 10 };
  log(`[generate] ${JSON.stringify(summary)}`);
  return { ...summary, doorRows, cardRows, userRows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      db: { type: "string" },
      rows: { type: "string", default: "1000000" },
      doors: { type: "string", default: "50" },
      cards: { type: "string", default: "5000" },
      days: { type: "string", default: "90" },
      seed: { type: "string", default: "1" },
    },
  });
  if (!values.db) {
    console.error("usage: node scripts/generate-access-logs.mjs --db=file:/path/app.db [--rows=1000000] [--doors=50] [--cards=5000] [--days=90] [--seed=1]");
    process.exit(1);
  }
  await generateAccessLogs({
    url: values.db,
    rows: Number(values.rows),
    doors: Number(values.doors),
    cards: Number(values.cards),
    days: Number(values.days),
    seed: Number(values.seed),
  });
}
