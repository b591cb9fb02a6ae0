#!/usr/bin/env node
// Fills a database with the house's residents for benchmarks of the users
// screen and API: users with names, emails, departments, phones, units and
// statuses (about 90 % active, 7 % inactive, 3 % suspended; one admin in 500),
// about 1.2 cards each (most active), and some cards nobody holds or pending.
// Nobody can sign in as them (their password hash is a placeholder).
//
//   node scripts/generate-users.mjs --db=file:/tmp/x/app.db [--users=10000] [--seed=7]
//
// The database is migrated first; run it on a scratch database (it adds users
// and cards next to whatever is there).
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { FIRST_NAMES, hex, LAST_NAMES } from "./generate-access-logs.mjs";
import { randomSource } from "./lib/random.mjs";
import { openScratchDatabase } from "./lib/scratch-db.mjs";

const DEPARTMENTS = ["Coworking", "Coliving", "Planta 1", "Planta 2", "Planta 3", "Ático", "Estudio", "Mantenimiento", "Recepción", "Cocina"];
const DOMAINS = ["example.com", "correo.es", "gmail.test", "coliving.es"];
const ROWS_PER_STATEMENT = 2000;

const capitalized = (word) => word.charAt(0).toUpperCase() + word.slice(1);

async function insertRows(client, sql, rows) {
  for (let offset = 0; offset < rows.length; offset += ROWS_PER_STATEMENT) {
    await client.execute({ sql, args: [JSON.stringify(rows.slice(offset, offset + ROWS_PER_STATEMENT))] });
  }
}

export async function generateUsers({ url, users = 10_000, seed = 7, now = Date.now(), log = console.info }) {
  const random = randomSource(seed);
  const client = await openScratchDatabase(url);
  const started = performance.now();
  const run = Date.now().toString(36);

  const userRows = Array.from({ length: users }, (_, i) => {
    const first = FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)];
    const last = LAST_NAMES[Math.floor(random() * LAST_NAMES.length)];
    const admin = i % 500 === 0;
    const draw = random();
    const status = admin || draw < 0.9 ? "active" : draw < 0.97 ? "inactive" : "suspended";
    const username = `${first}.${last}${i + 1}-${run}`;
    return {
      id: crypto.randomUUID(),
      username,
      email: `${username}@${DOMAINS[i % DOMAINS.length]}`,
      firstName: capitalized(first),
      lastName: capitalized(last),
      department: random() < 0.85 ? DEPARTMENTS[Math.floor(random() * DEPARTMENTS.length)] : null,
      phone: random() < 0.7 ? `+34 6${String(Math.floor(random() * 1e8)).padStart(8, "0")}` : null,
      role: admin ? "admin" : "user",
      status,
      unitNumber: admin ? null : `${1 + Math.floor(random() * 5)}${"ABCD"[Math.floor(random() * 4)]}`,
      createdAt: now - Math.floor(random() * 730) * 86_400_000,
    };
  });
  await insertRows(
    client,
    `INSERT INTO users (id, username, email, password_hash, first_name, last_name, department, phone, role, status, unit_number, created_at, updated_at)
     SELECT value->>'id', value->>'username', value->>'email', 'not-a-hash', value->>'firstName', value->>'lastName', value->>'department',
            value->>'phone', value->>'role', value->>'status', value->>'unitNumber', value->>'createdAt', value->>'createdAt'
     FROM json_each(?)`,
    userRows,
  );

  const cardNumbers = new Set();
  const cardRows = [];
  const addCard = (fields) => {
    let cardNumber;
    do cardNumber = hex(random, random() < 0.8 ? 4 : 7);
    while (cardNumbers.has(cardNumber));
    cardNumbers.add(cardNumber);
    cardRows.push({ id: crypto.randomUUID(), cardNumber, isAnonymous: random() < 0.04 ? 1 : 0, ...fields });
  };
  for (const user of userRows) {
    const draw = random();
    const count = draw < 0.15 ? 0 : draw < 0.8 ? 1 : draw < 0.95 ? 2 : 3;
    for (let i = 0; i < count; i++) addCard({ userId: user.id, status: random() < 0.85 ? "active" : "inactive" });
  }
  for (let i = 0; i < Math.ceil(users / 30); i++) addCard({ userId: null, status: random() < 0.5 ? "active" : "inactive" });
  for (let i = 0; i < Math.ceil(users / 50); i++) addCard({ userId: null, status: "pending" });
  await insertRows(
    client,
    `INSERT INTO cards (id, card_number, status, is_anonymous, user_id)
     SELECT value->>'id', value->>'cardNumber', value->>'status', value->>'isAnonymous', value->>'userId' FROM json_each(?)`,
    cardRows,
  );
  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  client.close();
  const summary = { users, cards: cardRows.length, seconds: Math.round((performance.now() - started) / 100) / 10 };
  log(`[generate] ${JSON.stringify(summary)}`);
  return { ...summary, userRows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      db: { type: "string" },
      users: { type: "string", default: "10000" },
      seed: { type: "string", default: "7" },
    },
  });
  if (!values.db) {
    console.error("usage: node scripts/generate-users.mjs --db=file:/path/app.db [--users=10000] [--seed=7]");
    process.exit(1);
  }
  await generateUsers({ url: values.db, users: Number(values.users), seed: Number(values.seed) });
}
