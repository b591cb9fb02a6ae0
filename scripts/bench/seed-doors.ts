// Seeding entry for `bench:access --scenario web|flood|signin`, bundled and run in its own
// process against DATABASE_URL before the server starts. Goes through the
// app's services as an admin would (tests/setup/fixtures.ts does the same): doors
// with a bridge credential each, residents holding cards, each card granted on
// about a fifth of the doors, and a building sensor when BENCH_SENSOR names
// one. Writes what the simulated bridges (and sensor) need as JSON to
// BENCH_SEED_OUT (stdout carries the models' log lines).
//
//   BENCH_DOORS (20), BENCH_CARDS (200), BENCH_SENSOR (unset), BENCH_SEED_OUT (required)
import fs from "node:fs";
import path from "node:path";
import { assignCardToUser } from "~/models/card.server";
import { createUser } from "~/models/user.server";
import { provisionBuildingSensor } from "~/services/building-sensors.server";
import { setCardPermission } from "~/services/cards.server";
import { provisionDoor } from "~/services/doors.server";
import { getDb, migrateDatabase } from "~/utils/db.server";

const doorCount = Number(process.env.BENCH_DOORS ?? 20);
const cardCount = Number(process.env.BENCH_CARDS ?? 200);
const out = process.env.BENCH_SEED_OUT;
if (!out) throw new Error("BENCH_SEED_OUT is required");
// Each user costs a scrypt hash (~60 ms), so a resident holds several cards.
const CARDS_PER_USER = 10;

await migrateDatabase(getDb(), path.resolve("drizzle"));

const doors: { rowId: string; code: string; password: string }[] = [];
for (let i = 0; i < doorCount; i++) {
  const code = `puerta-${String(i + 1).padStart(2, "0")}`;
  const { door, credential } = await provisionDoor(code, { name: `Puerta ${i + 1}`, location: "Benchmark" });
  doors.push({ rowId: door.id, code, password: credential.password });
}

const cards: { number: string; allowedDoors: string[] }[] = [];
let userId = "";
for (let i = 0; i < cardCount; i++) {
  if (i % CARDS_PER_USER === 0) {
    const n = i / CARDS_PER_USER + 1;
    ({ id: userId } = await createUser({
      username: `bench-vecino-${n}`,
      email: `bench-vecino-${n}@example.com`,
      password: "bench-vecino-password",
      firstName: `Vecino ${n}`,
    }));
  }
  const number = `BE${(i + 1).toString(16).toUpperCase().padStart(6, "0")}`;
  const { card } = await assignCardToUser(userId, { cardNumber: number });
  const allowed = doors.filter((_, d) => (d + i) % 5 === 0);
  for (const door of allowed) await setCardPermission(card.id, door.rowId, true);
  cards.push({ number, allowedDoors: allowed.map((door) => door.code) });
}

const sensorId = process.env.BENCH_SENSOR;
const sensor = sensorId ? { id: sensorId, ...(await provisionBuildingSensor(sensorId)) } : null;

fs.writeFileSync(out, JSON.stringify({ doors: doors.map(({ code, password }) => ({ code, password })), cards, sensor }));
getDb().$client.close();
