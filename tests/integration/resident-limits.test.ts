// Per-resident quotas (issue 25 §6): bookings not over yet per facility type
// (a booking of a door-linked facility opens that door) and incidents
// reported per day (each mails the staff), through the service, the JSON API
// and under concurrency.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { facilityBookings, incidents } from "~/db/schema";
import { issueApiToken } from "~/models/api-token.server";
import * as bookingsApi from "~/routes/api.user-portal.bookings";
import * as incidentsApi from "~/routes/api.user-portal.incidents";
import { cancelResidentBooking, createResidentBooking } from "~/services/facility-bookings.server";
import { reportResidentIncident } from "~/services/resident-incidents.server";
import { createId } from "~/utils/crypto.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { createTestFacility, createTestResident, TINY_PNG } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

const HOUR = 3600_000;
const INCIDENT = { title: "Grifo", category: "plumbing", location: "Baño", description: "Gotea", priority: "low" } as const;

function setEnv(values: Record<string, string>) {
  Object.assign(process.env, values);
  resetEnvForTests();
}

afterEach(() => {
  for (const name of ["MAX_ACTIVE_BOOKINGS", "MAX_ACTIVE_BOOKINGS_BY_TYPE", "MAX_INCIDENTS_PER_DAY"]) delete process.env[name];
  resetEnvForTests();
});

async function bearer(userId: string) {
  return `Bearer ${(await issueApiToken(userId)).token}`;
}

const slot = (facilityId: string, facilityType: "gym" | "pool", days: number, startTime = "10:00") =>
  ({ facilityType, facilityId, date: addDays(todayInMadrid(), days), startTime, duration: 1 }) as const;

describe("active bookings per resident and facility type", () => {
  it("refuses the booking past the limit with a Spanish 409, per type; a cancelled or finished booking frees its place", async () => {
    setEnv({ MAX_ACTIVE_BOOKINGS: "2" });
    const resident = await createTestResident();
    const [gym, otherGym, pool] = [await createTestFacility("gym"), await createTestFacility("gym"), await createTestFacility("pool")];
    const first = await createResidentBooking(resident, slot(gym.id, "gym", 2));
    expect((await createResidentBooking(resident, slot(otherGym.id, "gym", 3))).ok).toBe(true);
    const refused = await createResidentBooking(resident, slot(gym.id, "gym", 4));
    expect(refused).toMatchObject({
      ok: false,
      status: 409,
      message: "Ya tienes 2 reservas activas de Gimnasio, el máximo por residente. Cancela una o espera a que termine para reservar otra.",
    });
    // Another type has its own count.
    expect((await createResidentBooking(resident, slot(pool.id, "pool", 4))).ok).toBe(true);
    // A booking that is over does not count.
    await getDb().insert(facilityBookings).values({
      id: createId(),
      userId: resident.id,
      facilityId: gym.id,
      startsAt: new Date(Date.now() - 3 * HOUR),
      endsAt: new Date(Date.now() - 2 * HOUR),
      durationHours: 1,
      status: "confirmed",
    });
    expect((await createResidentBooking(resident, slot(gym.id, "gym", 4))).ok).toBe(false);
    if (!first.ok) throw new Error(first.message);
    expect((await cancelResidentBooking(resident, first.booking._id)).ok).toBe(true);
    expect((await createResidentBooking(resident, slot(gym.id, "gym", 4))).ok).toBe(true);
  });

  it("takes a limit per type from MAX_ACTIVE_BOOKINGS_BY_TYPE", async () => {
    setEnv({ MAX_ACTIVE_BOOKINGS: "5", MAX_ACTIVE_BOOKINGS_BY_TYPE: "pool=1" });
    const resident = await createTestResident();
    const pool = await createTestFacility("pool");
    expect((await createResidentBooking(resident, slot(pool.id, "pool", 2))).ok).toBe(true);
    expect(await createResidentBooking(resident, slot(pool.id, "pool", 3))).toMatchObject({
      ok: false,
      status: 409,
      message: "Ya tienes 1 reserva activa de Piscina, el máximo por residente. Cancela una o espera a que termine para reservar otra.",
    });
  });

  it("holds for simultaneous API calls: of 12 free slots asked at once, exactly the limit is booked; the rest answer 409", async () => {
    setEnv({ MAX_ACTIVE_BOOKINGS: "3" });
    const resident = await createTestResident();
    const gym = await createTestFacility("gym");
    const token = await bearer(resident.id);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        callRoute(
          bookingsApi.action,
          jsonRequest("/api/user-portal/bookings", { method: "POST", body: { ...slot(gym.id, "gym", 1 + i), duration: "1" }, headers: { Authorization: token } }),
        ),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
    const refused = responses.find((response) => response.status === 409)!;
    expect((await refused.json()).error.message).toMatch(/^Ya tienes 3 reservas activas de Gimnasio/);
    const rows = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM facility_bookings WHERE user_id = ?", args: [resident.id] });
    expect(Number(rows.rows[0]!.n)).toBe(3);
  });
});

describe("incidents per resident and day", () => {
  const photoDir = () => path.join(process.env.DATA_DIR!, "uploads", "incidents");
  const storedPhotos = () => (fs.existsSync(photoDir()) ? fs.readdirSync(photoDir()) : []);

  it("refuses the report past the day's limit with a Spanish 429 and Retry-After until midnight, storing nothing; yesterday's do not count", async () => {
    setEnv({ MAX_INCIDENTS_PER_DAY: "2" });
    const resident = await createTestResident();
    await getDb().insert(incidents).values({
      id: createId(),
      source: "resident",
      title: "De ayer",
      type: "maintenance",
      urgency: "low",
      reportedById: resident.id,
      reportedAt: new Date(Date.now() - 26 * HOUR),
    });
    expect((await reportResidentIncident(resident, INCIDENT)).ok).toBe(true);
    expect((await reportResidentIncident(resident, INCIDENT)).ok).toBe(true);
    const before = storedPhotos().length;
    const form = new FormData();
    for (const [name, value] of Object.entries(INCIDENT)) form.append(name, value);
    form.append("photos", new Blob([new Uint8Array(TINY_PNG)], { type: "image/png" }), "foto.png");
    const response = await callRoute(
      incidentsApi.action,
      new Request("http://localhost/api/user-portal/incidents", { method: "POST", headers: { Authorization: await bearer(resident.id) }, body: form }),
    );
    expect(response.status).toBe(429);
    expect((await response.json()).error.message).toBe(
      "Ya has reportado 2 incidencias hoy, el máximo por residente. Podrás reportar más mañana; si es urgente, avisa a la administración.",
    );
    const retryAfter = Number(response.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(25 * 3600);
    expect(storedPhotos()).toHaveLength(before);
    const rows = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM incidents WHERE reported_by_id = ?", args: [resident.id] });
    expect(Number(rows.rows[0]!.n)).toBe(3);
  });

  it("holds for simultaneous API calls: of 10 reports at once, exactly the limit is stored", async () => {
    setEnv({ MAX_INCIDENTS_PER_DAY: "4" });
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        callRoute(incidentsApi.action, jsonRequest("/api/user-portal/incidents", { method: "POST", body: INCIDENT, headers: { Authorization: token } })),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
  });
});
