// Data for `npm run bench:portal` (scripts/bench-portal.mjs), made through
// the app's own models and services on the scratch database named by
// DATABASE_URL: residents with a unit, a few bookings, incidents and
// notifications each, a building reading, a door linked to every facility
// (so a booking also announces its door), and for each resident a session
// cookie (the page) and an API token (the JSON API).
import path from "node:path";
import { issueApiToken } from "~/models/api-token.server";
import { insertBuildingReading } from "~/models/building-reading.server";
import { listFacilities } from "~/models/facility-booking.server";
import { insertNotification } from "~/models/notification.server";
import { createUser } from "~/models/user.server";
import { createDoor } from "~/services/doors.server";
import { createResidentBooking } from "~/services/facility-bookings.server";
import { reportResidentIncident } from "~/services/resident-incidents.server";
import { sessionCookieFor } from "~/utils/auth.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getDb, migrateDatabase } from "~/utils/db.server";

/** `prefix` names this run's residents and doors, so a database can be seeded again. */
export async function seedPortal({ residents, prefix = "bench" }: { residents: number; prefix?: string }) {
  await migrateDatabase(getDb(), path.resolve("drizzle"));
  const facilities = await listFacilities();
  for (const facility of facilities) {
    const door = await createDoor({ doorId: `${prefix}-${facility.id}`.slice(0, 32), name: `Puerta ${facility.name}`, location: "Bench", status: "active", facilityId: facility.id });
    if (!door.ok) throw new Error(door.message);
  }
  await insertBuildingReading({ temperature: 21.5, humidity: 47, wifiStatus: "Conectado", recordedAt: new Date() });
  const sessions: { cookie: string; token: string }[] = [];
  for (let i = 0; i < residents; i++) {
    const username = `${prefix}-resident-${i}`;
    const user = await createUser({ username, email: `${username}@example.com`, password: "bench-password-1", firstName: `Residente ${i}`, unitNumber: `${(i % 9) + 1}${"ABCD"[i % 4]}` });
    // A few of each, late in the 90-day window so the benchmark's own bookings stay free.
    for (let b = 0; b < 3; b++) {
      const facility = facilities[(i * 3 + b) % facilities.length]!;
      await createResidentBooking(user, { facilityType: facility.type, facilityId: facility.id, date: addDays(todayInMadrid(), 85 + b), startTime: `${String(6 + (i % 14)).padStart(2, "0")}:00`, duration: 1 });
    }
    for (let n = 0; n < 3; n++) {
      await reportResidentIncident(user, { title: `Incidencia ${n}`, category: "plumbing", location: "Baño", description: "Bench", priority: "medium" });
    }
    for (let n = 0; n < 10; n++) await insertNotification(user.id, { type: "info", title: `Aviso ${n}`, message: "Bench" }, new Date(Date.now() - n * 3600_000));
    sessions.push({ cookie: (await sessionCookieFor(user)).split(";")[0]!, token: (await issueApiToken(user.id)).token });
  }
  getDb().$client.close();
  return { sessions, facilities: facilities.map((facility) => ({ id: facility.id, type: facility.type })) };
}
