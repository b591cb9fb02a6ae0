#!/usr/bin/env node
// `npm run bench:rooms`: the room inventory under load (issue 28), on the
// production build and a scratch database holding `--stays` guests' stays
// (default 10,000) over two years past and one ahead, in an inventory of
// `--rooms` rooms per type, written through the database's own rules (the
// triggers of drizzle/0013_rooms_inventory.sql), plus residents' bookings of
// the salas. Measures, with `--connections` concurrent clients (default 20):
//   - GET /api/availability for a room type and three nights;
//   - GET /admin/ocupacion (the 14-day calendar) signed in as the admin;
// each beside a bare node:http server in its own process sending the same
// bytes with the same Content-Type in the same run (as bench:web does), and
// the 50-way race: 50 simultaneous POST /api/anonymous-reservations for the
// last 3 free rooms of a type, with the rows the database holds afterwards.
//
//   node scripts/bench-rooms.mjs [--stays=10000] [--rooms=20] [--requests=1000] [--connections=20]
//
// Needs `npm run build` first.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runLoad } from "./lib/load.mjs";
import { randomSource } from "./lib/random.mjs";
import { openScratchDatabase } from "./lib/scratch-db.mjs";
import { assertBuilt, freePort, signIn, startApp, waitForPort } from "./lib/server.mjs";

const { values: args } = parseArgs({
  options: {
    stays: { type: "string", default: "10000" },
    rooms: { type: "string", default: "20" },
    requests: { type: "string", default: "1000" },
    connections: { type: "string", default: "20" },
  },
});
const STAYS = Number(args.stays);
const ROOMS_PER_TYPE = Number(args.rooms);
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
const TYPES = ["individual", "doble", "suite"];
const DAY_MS = 86_400_000;

assertBuilt();

const madridToday = () => new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Madrid" }).format(new Date());
const addDays = (day, days) => new Date(Date.parse(`${day}T12:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const today = madridToday();

/**
 * Rooms per type beside the seeded ten, and stays laid along each room's
 * nights (a gap, then a stay of 1 to 6 nights), so no night needs more rooms
 * than there are. Most are confirmed in their room; some pending (no room
 * yet) or cancelled. Inserted through the triggers, in batches.
 */
async function seed(url) {
  const random = randomSource(28);
  const client = await openScratchDatabase(url);
  const extra = [];
  for (const [t, type] of TYPES.entries()) {
    const seeded = type === "suite" ? 2 : 4;
    for (let i = seeded; i < ROOMS_PER_TYPE; i++) extra.push({ id: `bench-room-${type}-${i}`, name: `${t + 1}${String(i + 1).padStart(2, "0")}B`, floor: t + 1, roomType: type });
  }
  await client.execute({
    sql: "INSERT INTO rooms (id, name, floor, room_type) SELECT value->>'id', value->>'name', value->>'floor', value->>'roomType' FROM json_each(?)",
    args: [JSON.stringify(extra)],
  });
  const rooms = (await client.execute("SELECT id, room_type FROM rooms")).rows.map((row) => ({ id: String(row.id), type: String(row.room_type) }));
  const first = addDays(today, -730);
  const stays = [];
  const cursor = new Map(rooms.map((room) => [room.id, 0]));
  while (stays.length < STAYS) {
    const room = rooms[Math.floor(random() * rooms.length)];
    const start = cursor.get(room.id) + Math.floor(random() * 4);
    const nights = 1 + Math.floor(random() * 6);
    if (start + nights > 1095) continue;
    cursor.set(room.id, start + nights);
    const roll = random();
    const status = roll < 0.7 ? "confirmed" : roll < 0.9 ? "pending" : "cancelled";
    const i = stays.length;
    stays.push({
      id: crypto.randomUUID(),
      code: `B${String(i).padStart(7, "0")}`,
      name: `Huésped ${i}`,
      email: `huesped${i}@example.com`,
      type: room.type,
      roomId: status === "confirmed" ? room.id : null,
      startDate: addDays(first, start),
      endDate: addDays(first, start + nights),
      status,
    });
  }
  stays.sort((a, b) => a.startDate.localeCompare(b.startDate));
  for (let at = 0; at < stays.length; at += 1000) {
    await client.execute({
      sql: `INSERT INTO anonymous_reservations (id, reservation_code, guest_name, guest_email, guest_phone, reservation_type, room_type, room_id, start_date, end_date, status)
            SELECT value->>'id', value->>'code', value->>'name', value->>'email', '600000000', 'habitacion', value->>'type', value->>'roomId', value->>'startDate', value->>'endDate', value->>'status'
            FROM json_each(?)`,
      args: [JSON.stringify(stays.slice(at, at + 1000))],
    });
  }
  // A resident's bookings of the salas: a few each day of the calendar's weeks.
  const residentId = crypto.randomUUID();
  await client.execute({ sql: "INSERT INTO users (id, username, email, password_hash, first_name) VALUES (?, 'bench-resident', 'bench-resident@example.com', 'x', 'Residente')", args: [residentId] });
  const salas = (await client.execute("SELECT id FROM facilities WHERE type = 'meeting-room'")).rows.map((row) => String(row.id));
  const bookings = [];
  for (let day = 0; day < 28; day++) {
    for (const sala of salas) {
      const startsAt = Date.parse(`${addDays(today, day)}T08:00:00Z`) + Math.floor(random() * 8) * 3600_000;
      bookings.push({ id: crypto.randomUUID(), facilityId: sala, startsAt, endsAt: startsAt + 2 * 3600_000 });
    }
  }
  await client.execute({
    sql: `INSERT INTO facility_bookings (id, user_id, facility_id, starts_at, ends_at, duration_hours, status)
          SELECT value->>'id', ?, value->>'facilityId', value->>'startsAt', value->>'endsAt', 2, 'confirmed' FROM json_each(?)`,
    args: [residentId, JSON.stringify(bookings)],
  });
  const counts = (await client.execute("SELECT status, count(*) AS n FROM anonymous_reservations GROUP BY status")).rows.map((row) => `${row.status} ${row.n}`);
  client.close();
  console.info(`[bench] ${stays.length} stays (${counts.join(", ")}) in ${rooms.length} rooms, ${bookings.length} residents' sala bookings`);
}

async function startBare(dir, pages) {
  const file = path.join(dir, "bare-pages.json");
  fs.writeFileSync(file, JSON.stringify(pages));
  const port = await freePort();
  const child = spawn(process.execPath, ["scripts/bench/bare-server.mjs", file, String(port)], { stdio: ["ignore", "ignore", "inherit"] });
  await waitForPort(port);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Each request from its own client address (the public call is limited per address). */
const fromClient = (i) => ({ "X-Forwarded-For": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });

async function measure(baseUrl, requestPath, headers = () => ({})) {
  const makeRequest = (i) => ({ path: requestPath, headers: headers(i) });
  await runLoad({ baseUrl, total: 100, concurrency: 5, makeRequest: (i) => makeRequest(i + 1_000_000) });
  const result = await runLoad({ baseUrl, total: REQUESTS, concurrency: CONNECTIONS, makeRequest });
  if (Object.keys(result.statuses).some((status) => status !== "200")) console.error(`[bench] GET ${requestPath} on ${baseUrl}: ${JSON.stringify(result.statuses)}`);
  return result;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-rooms-"));
const url = `file:${path.join(dir, "app.db")}`;
console.info(`[bench] seeding ${STAYS} stays in ${dir}`);
await seed(url);
const server = await startApp({ dataDir: dir, env: { ACCESS_SERVICE: "off" } });
let bare = null;
const table = [];
try {
  const cookie = await signIn(server.url);
  const availabilityPath = `/api/availability?reservationType=habitacion&roomType=doble&startDate=${addDays(today, 30)}&endDate=${addDays(today, 33)}`;
  const calendarPath = `/admin/ocupacion?from=${today}`;
  const targets = [
    { name: `GET ${availabilityPath.split("?")[0]}`, path: availabilityPath, headers: fromClient },
    { name: "GET /admin/ocupacion", path: calendarPath, headers: () => ({ Cookie: cookie }) },
  ];
  const pages = {};
  for (const target of targets) {
    const response = await fetch(server.url + target.path, { headers: { ...target.headers(0), "Accept-Encoding": "identity" } });
    if (response.status !== 200) throw new Error(`${target.path}: ${response.status}`);
    pages[target.path] = { contentType: response.headers.get("content-type"), body: Buffer.from(await response.arrayBuffer()).toString("base64") };
  }
  console.info(`[bench] availability answer: ${Buffer.from(pages[availabilityPath].body, "base64").toString("utf8")}`);
  bare = await startBare(dir, pages);
  for (const target of targets) {
    const app = await measure(server.url, target.path, target.headers);
    const floor = await measure(bare.url, target.path, target.headers);
    const p95Ratio = floor.p95 ? Math.round((app.p95 / floor.p95) * 10) / 10 : null;
    const bytes = Buffer.from(pages[target.path].body, "base64").length;
    console.log(JSON.stringify({ request: target.name, concurrency: CONNECTIONS, bytes, latencyMs: app, bare: floor, p95Ratio }));
    table.push({ request: target.name, app, bare: floor, p95Ratio, bytes });
  }

  // The race: the last 3 free rooms of a type, 50 guests at once.
  const raceStart = addDays(today, 700);
  const raceEnd = addDays(today, 702);
  const fill = async (i) =>
    fetch(`${server.url}/api/anonymous-reservations`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url, ...fromClient(2_000_000 + i) },
      body: JSON.stringify({ guestName: `Carrera ${i}`, guestEmail: `carrera${i}@example.com`, guestPhone: "600000000", reservationType: "habitacion", roomType: "suite", startDate: raceStart, endDate: raceEnd }),
    }).then((response) => response.status);
  for (let i = 0; i < ROOMS_PER_TYPE - 3; i++) if ((await fill(i)) !== 201) throw new Error("could not fill the suites before the race");
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => fill(100 + i)));
  const { createClient } = await import("@libsql/client");
  const client = createClient({ url });
  const rows = await client.execute({ sql: "SELECT count(*) AS n FROM anonymous_reservations WHERE room_type = 'suite' AND status IN ('pending', 'confirmed') AND start_date = ? AND end_date = ?", args: [raceStart, raceEnd] });
  client.close();
  const count = (status) => answers.filter((answer) => answer === status).length;
  console.log(JSON.stringify({ race: `50 simultaneous POST /api/anonymous-reservations for the last 3 of ${ROOMS_PER_TYPE} suites`, created: count(201), refused: count(409), other: answers.length - count(201) - count(409), suitesInDatabase: Number(rows.rows[0].n) }));
} finally {
  await bare?.stop();
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

const cell = (value, width) => String(value ?? "–").padStart(width);
console.log(`\n${"request".padEnd(32)}${cell("app p50", 9)}${cell("app p95", 9)}${cell("bare p50", 10)}${cell("bare p95", 10)}${cell("p95 ×", 7)}${cell("bytes", 9)}`);
for (const row of table) {
  console.log(`${row.request.padEnd(32)}${cell(row.app.p50, 9)}${cell(row.app.p95, 9)}${cell(row.bare.p50, 10)}${cell(row.bare.p95, 10)}${cell(row.p95Ratio, 7)}${cell(row.bytes, 9)}`);
}
