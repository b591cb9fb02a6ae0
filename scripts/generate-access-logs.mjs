#!/usr/bin/env node
// Fills a database with a realistic access log for benchmarks: doors, users,
// cards and access_logs rows spread over the last days, about 30 % denied.
// Rows go in with one INSERT … SELECT FROM json_each(?) per few thousand rows,
// many per transaction, in timestamp order, with the log's secondary indexes
// and the counters' triggers (migration 0015) dropped during the load; then
// the indexes are built again, the counters recounted and the triggers put back.
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
const ROWS_PER_STATEMENT = 5000;
const STATEMENTS_PER_TRANSACTION = 20;

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

/** Time-ordered ids (UUIDv7 layout): what a bridge sends is random, but ordered ids load much faster. */
function logId(timestamp, random) {
  const time = timestamp.toString(16).padStart(12, "0");
  const tail = hex(random, 10).toLowerCase();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${tail.slice(0, 3)}-${tail.slice(3, 7)}-${tail.slice(7, 19)}`;
}

/**
 * Attempt times over the last `days`: more during the day (07–23 h) than at
 * night, sorted oldest first.
 */
function timestamps(count, days, now, random) {
  const values = new Float64Array(count);
  const start = now - days * DAY_MS;
  for (let i = 0; i < count; i++) {
    let at;
    do {
      at = start + random() * days * DAY_MS;
      const hour = new Date(at).getUTCHours() + 1; // roughly Madrid
      if ((hour >= 7 && hour <= 23) || random() < 0.15) break;
    } while (true);
    values[i] = Math.floor(at);
  }
  return values.sort();
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
  // The counters' triggers (migration 0015) too: the counters are recounted
  // from the whole log once it is loaded, as the migration backfills them.
  const triggers = (
    await client.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'access_logs'")
  ).rows.map((row) => ({ name: String(row.name), sql: String(row.sql) }));
  for (const trigger of triggers) await client.execute(`DROP TRIGGER "${trigger.name}"`);

  // No foreign-key lookups while loading (libsql turns them on; every row
  // names a door, card and user inserted above: three parent lookups a row for nothing).
  await client.execute("PRAGMA foreign_keys = OFF");
  const times = timestamps(rows, days, now, random);
  const reasonWeights = cumulativeOf(DENIAL_REASONS.map(([, weight]) => weight));
  const insert = `
    INSERT INTO access_logs (id, event_id, timestamp, card_id, card_number, door_id, door_code, door_name, user_id, username,
                             access_granted, reason, is_anonymous, offline, source, ip_address)
    SELECT value->>0, value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8,
           value->>9, value->>10, value->>11, value->>12, value->>13, value->>14
    FROM json_each(?)`;
  let denied = 0;
  let transaction = null;
  for (let offset = 0, statement = 0; offset < rows; offset += ROWS_PER_STATEMENT, statement++) {
    const batch = [];
    for (let i = offset; i < Math.min(rows, offset + ROWS_PER_STATEMENT); i++) {
      const card = cardRows[pickWeighted(cardWeights, random)];
      // Mostly the card's own doors; now and then anywhere.
      const door = doorRows[random() < 0.85 ? card.ownDoors[Math.floor(random() * card.ownDoors.length)] : pickWeighted(doorWeights, random)];
      let reason = "granted";
      if (card.status === "pending") reason = "card_pending";
      else if (random() < 0.255) reason = DENIAL_REASONS[pickWeighted(reasonWeights, random)][0];
      const granted = reason === "granted";
      if (!granted) denied++;
      const offline = reason === "offline_deny" || random() < 0.02;
      batch.push([
        logId(times[i], random), times[i], card.id, card.cardNumber, door.id, door.code, door.name,
        card.user?.id ?? null, card.user?.username ?? null, granted ? 1 : 0, reason, card.isAnonymous ? 1 : 0,
        offline ? 1 : 0, offline ? null : card.isAnonymous ? "mobile" : "reader", door.ip,
      ]);
    }
    transaction ??= await client.transaction("write");
    await transaction.execute({ sql: insert, args: [JSON.stringify(batch)] });
    if ((statement + 1) % STATEMENTS_PER_TRANSACTION === 0) {
      await transaction.commit();
      transaction = null;
      if ((offset / ROWS_PER_STATEMENT + 1) % 40 === 0) log(`[generate] ${offset + batch.length} rows`);
    }
  }
  if (transaction) await transaction.commit();
  log(`[generate] building ${indexes.length} indexes`);
  for (const index of indexes) await client.execute(index.sql);
  log("[generate] counting the counters");
  await client.batch(
    [
      "DELETE FROM access_log_hours",
      "DELETE FROM access_log_card_doors",
      "DELETE FROM access_log_cards",
      `INSERT INTO access_log_hours (hour, door_key, granted, attempts)
         SELECT CAST(timestamp AS INTEGER) / 3600000, coalesce(door_id, ''), access_granted, count(*) FROM access_logs GROUP BY 1, 2, 3`,
      `INSERT INTO access_log_card_doors (door_key, card_number, granted, attempts, last_at)
         SELECT coalesce(door_id, ''), card_number, access_granted, count(*), max(timestamp) FROM access_logs GROUP BY 1, 2, 3`,
      `INSERT INTO access_log_cards (card_number, granted, attempts, last_at)
         SELECT card_number, access_granted, count(*), max(timestamp) FROM access_logs GROUP BY 1, 2`,
      ...triggers.map((trigger) => trigger.sql),
    ],
    "write",
  );
  await client.execute("PRAGMA foreign_keys = ON");
  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
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
