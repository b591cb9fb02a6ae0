#!/usr/bin/env node
// Fills a database with the back office's lists for benchmarks: incidents of
// every source (door, resident, public), guests' reservations and
// consultations (enquiries and visit requests), `rows` of each, spread over
// the last two years (reservations also a year ahead). Rows go in with one
// INSERT … SELECT FROM json_each(?) per few thousand rows, in creation order.
//
//   node scripts/generate-backoffice.mjs --db=file:/tmp/x/app.db [--rows=100000] [--doors=50]
//        [--residents=2000] [--seed=1]
//
// The database is migrated first; run it on a scratch database (it adds
// doors and residents next to whatever is there).
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { randomSource } from "./lib/random.mjs";
import { openScratchDatabase } from "./lib/scratch-db.mjs";

const DAY_MS = 24 * 3600_000;
const ROWS_PER_STATEMENT = 2000;

const FIRST_NAMES = ["Marta", "Javier", "Lucía", "Pablo", "Carmen", "Diego", "Ana", "Sergio", "Elena", "Mario", "Laura", "Hugo", "Paula", "Adrián", "Sara", "Iván", "Noelia", "Rubén", "Irene", "Xuan"];
const LAST_NAMES = ["García", "Fernández", "López", "Martínez", "Suárez", "Álvarez", "Menéndez", "Rodríguez", "González", "Díaz", "Iglesias", "Rubio", "Castro", "Prieto"];
const PLACES = ["Baño", "Cocina", "Salón", "Dormitorio", "Escalera", "Portal", "Garaje", "Terraza", "Lavandería", "Pasillo"];
const WORDS = (
  "hola quería saber si tenéis habitaciones libres para el mes que viene y cuál es el precio mensual con gastos incluidos " +
  "también me interesa el coworking por días trabajo en remoto y necesito buena conexión llegaría en tren desde Oviedo " +
  "somos dos personas con un perro pequeño podríamos visitar la casa antes de reservar gracias un saludo"
).split(" ");

/** Picks a value with the given weights: [[value, weight], …]. */
function weighted(pairs, random) {
  const total = pairs.reduce((sum, [, weight]) => sum + weight, 0);
  let target = random() * total;
  for (const [value, weight] of pairs) {
    target -= weight;
    if (target <= 0) return value;
  }
  return pairs[pairs.length - 1][0];
}

const pick = (list, random) => list[Math.floor(random() * list.length)];
const isoDay = (epochMs) => new Date(epochMs).toISOString().slice(0, 10);

function sentence(random, words) {
  return Array.from({ length: words }, () => pick(WORDS, random)).join(" ").replace(/^./, (c) => c.toUpperCase());
}

/** Creation instants over `days` up to `now`, oldest first. */
function instants(count, days, now, random) {
  return Array.from({ length: count }, () => Math.floor(now - random() * days * DAY_MS)).sort((a, b) => a - b);
}

async function insertInBatches(client, sql, rows) {
  for (let offset = 0; offset < rows.length; offset += ROWS_PER_STATEMENT * 10) {
    const transaction = await client.transaction("write");
    for (let at = offset; at < Math.min(rows.length, offset + ROWS_PER_STATEMENT * 10); at += ROWS_PER_STATEMENT) {
      await transaction.execute({ sql, args: [JSON.stringify(rows.slice(at, at + ROWS_PER_STATEMENT))] });
    }
    await transaction.commit();
  }
}

export async function generateBackoffice({ url, rows = 100_000, doors = 50, residents = 2000, seed = 1, now = Date.now(), log = console.info }) {
  const random = randomSource(seed);
  const client = await openScratchDatabase(url);
  const started = performance.now();
  const run = Date.now().toString(36);

  const doorRows = Array.from({ length: doors }, (_, i) => ({ id: crypto.randomUUID(), code: `bo-${run}-${i + 1}`, name: `Puerta ${i + 1}`, location: `Planta ${i % 6}` }));
  await client.execute({
    sql: `INSERT INTO doors (id, door_id, name, location) SELECT value->>'id', value->>'code', value->>'name', value->>'location' FROM json_each(?)`,
    args: [JSON.stringify(doorRows)],
  });
  const residentRows = Array.from({ length: residents }, (_, i) => ({
    id: crypto.randomUUID(),
    username: `residente${i + 1}-${run}`,
    email: `residente${i + 1}-${run}@example.com`,
    firstName: pick(FIRST_NAMES, random),
    lastName: pick(LAST_NAMES, random),
    unit: `${1 + (i % 6)}${"ABCD"[i % 4]}`,
  }));
  await client.execute({
    sql: `INSERT INTO users (id, username, email, password_hash, first_name, last_name, unit_number)
          SELECT value->>'id', value->>'username', value->>'email', 'not-a-hash', value->>'firstName', value->>'lastName', value->>'unit' FROM json_each(?)`,
    args: [JSON.stringify(residentRows)],
  });

  // Incidents: 50 % public fault reports, 30 % residents', 20 % door incidents; old ones mostly closed.
  const incidentTimes = instants(rows, 730, now, random);
  const incidents = incidentTimes.map((at) => {
    const source = weighted([["public", 5], ["resident", 3], ["door", 2]], random);
    const ageDays = (now - at) / DAY_MS;
    const status = ageDays > 30
      ? weighted([["closed", 80], ["resolved", 15], ["open", 3], ["in-progress", 2]], random)
      : weighted([["open", 40], ["in-progress", 30], ["resolved", 20], ["closed", 10]], random);
    const urgency = weighted([["low", 3], ["medium", 5], ["high", 2], ["critical", 1]], random);
    const place = pick(PLACES, random);
    const base = { id: crypto.randomUUID(), source, status, urgency, description: sentence(random, 12), reportedAt: at };
    if (source === "door") {
      const door = doorRows[Math.floor(random() ** 2 * doorRows.length)];
      const type = weighted([["hardware", 4], ["access", 3], ["network", 2], ["maintenance", 1], ["other", 1]], random);
      return { ...base, type, title: `Avería de ${type} · ${door.name}`, doorId: door.id, doorName: door.name, reportedBy: "admin" };
    }
    const category = pick(["plumbing", "electrical", "hvac", "structural", "cleaning", "security", "other"], random);
    const type = category === "other" ? "other" : "maintenance";
    if (source === "resident") {
      const resident = pick(residentRows, random);
      return { ...base, type, category, title: `Problema en ${place}`, location: place, reportedById: resident.id, reportedBy: resident.username, photos: random() < 0.3 ? JSON.stringify([`${crypto.randomUUID()}.jpg`]) : null };
    }
    const name = `${pick(FIRST_NAMES, random)} ${pick(LAST_NAMES, random)}`;
    return { ...base, type, category, title: `Avería · ${place}`, location: place, reporterName: name, reportedBy: name, floor: String(Math.floor(random() * 6)) };
  });
  await insertInBatches(
    client,
    `INSERT INTO incidents (id, source, title, type, category, status, urgency, description, location, door_id, door_name,
                           reported_by_id, reported_by, reporter_name, floor, photos, reported_at, created_at, updated_at)
     SELECT value->>'id', value->>'source', value->>'title', value->>'type', value->>'category', value->>'status', value->>'urgency',
            value->>'description', value->>'location', value->>'doorId', value->>'doorName', value->>'reportedById', value->>'reportedBy',
            value->>'reporterName', value->>'floor', value->>'photos', value->>'reportedAt', value->>'reportedAt', value->>'reportedAt'
     FROM json_each(?)`,
    incidents,
  );
  log(`[generate] ${rows} incidents`);

  // Reservations booked over two years, for stays from a week to a year after booking.
  const reservationTimes = instants(rows, 730, now, random);
  const codes = new Set();
  const reservations = reservationTimes.map((at, i) => {
    let code;
    do code = crypto.randomBytes(5).toString("base64url").toUpperCase().replace(/[^A-Z2-9]/g, "X").slice(0, 8);
    while (codes.has(code));
    codes.add(code);
    const start = at + (7 + random() * 358) * DAY_MS;
    const nights = 1 + Math.floor(random() ** 2 * 30);
    const type = random() < 0.8 ? "habitacion" : "sala";
    const status = weighted([["pending", 3], ["confirmed", 5], ["cancelled", 2]], random);
    const first = pick(FIRST_NAMES, random);
    return {
      id: crypto.randomUUID(),
      code,
      name: `${first} ${pick(LAST_NAMES, random)}`,
      email: `${first.toLowerCase()}${i}@example.com`,
      phone: `+34 6${String(Math.floor(random() * 1e8)).padStart(8, "0")}`,
      preference: weighted([["email", 6], ["phone", 2], ["both", 2]], random),
      type,
      roomType: type === "habitacion" ? pick(["individual", "doble", "suite"], random) : null,
      startDate: isoDay(start),
      endDate: isoDay(start + nights * DAY_MS),
      status,
      requests: random() < 0.3 ? sentence(random, 8) : null,
      confirmedAt: status === "confirmed" ? at + DAY_MS : null,
      createdAt: at,
    };
  });
  // A history far larger than the house's rooms: loaded as if from before the
  // inventory existed, so its rules (triggers) are set aside while it loads.
  const { rows: inventoryRules } = await client.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'anonymous_reservations'");
  for (const rule of inventoryRules) await client.execute(`DROP TRIGGER "${rule.name}"`);
  await insertInBatches(
    client,
    `INSERT INTO anonymous_reservations (id, reservation_code, guest_name, guest_email, guest_phone, contact_preference, reservation_type,
                                        room_type, start_date, end_date, status, special_requests, confirmed_at, ip_address, created_at, updated_at)
     SELECT value->>'id', value->>'code', value->>'name', value->>'email', value->>'phone', value->>'preference', value->>'type',
            value->>'roomType', value->>'startDate', value->>'endDate', value->>'status', value->>'requests', value->>'confirmedAt',
            '192.0.2.1', value->>'createdAt', value->>'createdAt'
     FROM json_each(?)`,
    reservations,
  );
  for (const rule of inventoryRules) await client.execute(String(rule.sql));
  log(`[generate] ${rows} reservations`);

  // Consultations of the last year (what the retention period keeps): 25 % visit requests.
  const consultationTimes = instants(rows, 365, now, random);
  const consultations = consultationTimes.map((at, i) => {
    const first = pick(FIRST_NAMES, random);
    const visit = random() < 0.25;
    const day = isoDay(at + (1 + random() * 20) * DAY_MS);
    const hour = pick(["10:00", "11:00", "12:00", "16:00", "17:00", "18:00"], random);
    const mensaje = visit
      ? `Solicitud de visita\nFecha preferida: ${day.split("-").reverse().join("/")}\nHora preferida: ${hour}`
      : sentence(random, 10 + Math.floor(random() * 50));
    const ageDays = (now - at) / DAY_MS;
    return {
      id: crypto.randomUUID(),
      kind: visit ? "visita" : "consulta",
      nombre: `${first} ${pick(LAST_NAMES, random)}`,
      email: `${first.toLowerCase()}.${i}@example.com`,
      telefono: `6${String(Math.floor(random() * 1e8)).padStart(8, "0")}`,
      mensaje,
      hash: crypto.createHash("sha256").update(`${i}`).digest("hex"),
      visitDate: visit ? day : null,
      visitTime: visit ? hour : null,
      status: ageDays > 14 ? weighted([["replied", 6], ["closed", 3], ["read", 1]], random) : weighted([["pending", 5], ["read", 3], ["replied", 2]], random),
      ip: `198.51.100.${i % 250}`,
      createdAt: at,
    };
  });
  await insertInBatches(
    client,
    `INSERT INTO consultations (id, kind, nombre, email, telefono, mensaje, message_hash, visit_date, visit_time, status, ip_address, created_at, updated_at)
     SELECT value->>'id', value->>'kind', value->>'nombre', value->>'email', value->>'telefono', value->>'mensaje', value->>'hash',
            value->>'visitDate', value->>'visitTime', value->>'status', value->>'ip', value->>'createdAt', value->>'createdAt'
     FROM json_each(?)`,
    consultations,
  );
  log(`[generate] ${rows} consultations`);

  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  client.close();
  const summary = { rows, doors, residents, seconds: Math.round((performance.now() - started) / 100) / 10 };
  log(`[generate] ${JSON.stringify(summary)}`);
  return { ...summary, doorRows, residentRows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      db: { type: "string" },
      rows: { type: "string", default: "100000" },
      doors: { type: "string", default: "50" },
      residents: { type: "string", default: "2000" },
      seed: { type: "string", default: "1" },
    },
  });
  if (!values.db) {
    console.error("usage: node scripts/generate-backoffice.mjs --db=file:/path/app.db [--rows=100000] [--doors=50] [--residents=2000] [--seed=1]");
    process.exit(1);
  }
  await generateBackoffice({ url: values.db, rows: Number(values.rows), doors: Number(values.doors), residents: Number(values.residents), seed: Number(values.seed) });
}
