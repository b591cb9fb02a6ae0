// /api/holidays and the doors' timetable fields in /api/doors: the shapes
// docs/api.md gives, admin only, Spanish refusals that change nothing, audit
// events, and the fresh install's holidays seeded once. The doors' side
// (bridges applying the timetables) is in door-timetables.test.ts.
import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, holidays } from "~/db/schema";
import { getDoorById } from "~/models/door.server";
import * as doorRoute from "~/routes/api.doors.$id";
import * as doorsRoute from "~/routes/api.doors";
import * as holidayRoute from "~/routes/api.holidays.$id";
import * as holidaysRoute from "~/routes/api.holidays";
import { seedHolidays } from "~/services/holidays.server";
import { getDb } from "~/utils/db.server";
import { createApiCallers, createTestDoor, unique } from "../setup/fixtures";
import { callApi, type ApiCall, type ApiRoute } from "../setup/route";

let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  ({ adminToken, residentToken } = await createApiCallers());
});

const call = (fn: ApiRoute, path: string, options: ApiCall = {}) => callApi(fn, path, { token: adminToken, ...options });

async function lastAuditEvent(entityId: string) {
  const [event] = await getDb().select().from(auditEvents).where(eq(auditEvents.entityId, entityId)).orderBy(desc(auditEvents.id)).limit(1);
  return event;
}

describe("/api/holidays", () => {
  it("refuses anonymous callers and residents", async () => {
    for (const [fn, path, method] of [
      [holidaysRoute.loader, "/api/holidays", "GET"],
      [holidaysRoute.action, "/api/holidays", "POST"],
      [holidayRoute.action, "/api/holidays/x", "DELETE"],
    ] as const) {
      expect((await callApi(fn, path, { method, params: { id: "x" }, body: method === "GET" ? undefined : {} })).status).toBe(401);
      expect((await callApi(fn, path, { method, token: residentToken, params: { id: "x" }, body: method === "GET" ? undefined : {} })).status).toBe(403);
    }
  });

  it("creates, lists and deletes a holiday, each change audited; a day taken twice or a bad date changes nothing", async () => {
    const name = `Fiesta ${unique()}`;
    const created = await call(holidaysRoute.action, "/api/holidays", { method: "POST", body: { day: "2031-02-03", name } });
    expect(created.status).toBe(201);
    const holiday = created.body.data as { _id: string; day: string; name: string };
    expect(holiday).toMatchObject({ day: "2031-02-03", name });
    expect(await lastAuditEvent(holiday._id)).toMatchObject({ action: "holiday.create", entityType: "holiday" });

    const listed = await call(holidaysRoute.loader, "/api/holidays");
    expect(listed.body.data).toContainEqual(expect.objectContaining({ _id: holiday._id, day: "2031-02-03", name }));

    const twice = await call(holidaysRoute.action, "/api/holidays", { method: "POST", body: { day: "2031-02-03", name: "Otra" } });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toBe("Ya hay un festivo ese día");
    const bad = await call(holidaysRoute.action, "/api/holidays", { method: "POST", body: { day: "2031-02-30", name: "Nunca" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("La fecha no es válida");
    expect(await getDb().select().from(holidays).where(eq(holidays.day, "2031-02-30"))).toHaveLength(0);

    const deleted = await call(holidayRoute.action, `/api/holidays/${holiday._id}`, { method: "DELETE", params: { id: holiday._id } });
    expect(deleted.status).toBe(200);
    expect(await lastAuditEvent(holiday._id)).toMatchObject({ action: "holiday.delete" });
    const again = await call(holidayRoute.action, `/api/holidays/${holiday._id}`, { method: "DELETE", params: { id: holiday._id } });
    expect(again.status).toBe(404);
    expect(again.body.error.message).toBe("Festivo no encontrado");
  });

  it("a fresh install is seeded once with Spain's and Asturias's holidays of this year and the next", async () => {
    expect(await seedHolidays(new Date("2027-06-01T10:00:00Z"))).toBe(true);
    const days = (await getDb().select().from(holidays)).map((row) => row.day);
    for (const day of ["2027-03-25", "2027-03-26", "2027-09-08", "2027-12-25", "2028-04-13", "2028-04-14", "2028-01-06"]) expect(days).toContain(day);
    // Once: a holiday deleted later is not brought back at the next boot.
    await getDb().delete(holidays).where(eq(holidays.day, "2027-12-25"));
    expect(await seedHolidays(new Date("2027-06-01T10:00:00Z"))).toBe(false);
    expect(await getDb().select().from(holidays).where(eq(holidays.day, "2027-12-25"))).toHaveLength(0);
  });
});

describe("door timetables in /api/doors", () => {
  it("creates and changes a door's unlock timetable and flags, audited; a bad timetable changes nothing", async () => {
    const created = await call(doorsRoute.action, "/api/doors", {
      method: "POST",
      body: { name: "Cowork", location: "Planta 1", doorId: `cowork-${unique()}`, unlockSchedule: [{ days: [1, 2, 3, 4, 5], from: "09:00", to: "18:00" }] },
    });
    expect(created.status).toBe(201);
    const door = created.body.data as { _id: string };
    expect(created.body.data).toMatchObject({ unlockSchedule: [{ days: [1, 2, 3, 4, 5], from: "09:00", to: "18:00" }], unlockOnHolidays: false, firstPersonIn: false });

    const updated = await call(doorRoute.action, `/api/doors/${door._id}`, { method: "PUT", params: { id: door._id }, body: { firstPersonIn: true, unlockOnHolidays: true } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ unlockSchedule: [{ days: [1, 2, 3, 4, 5], from: "09:00", to: "18:00" }], firstPersonIn: true, unlockOnHolidays: true });
    expect(await lastAuditEvent(door._id)).toMatchObject({ action: "door.update" });

    const bad = await call(doorRoute.action, `/api/doors/${door._id}`, { method: "PUT", params: { id: door._id }, body: { unlockSchedule: [{ days: [1], from: "18:00", to: "09:00" }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("«hasta» posterior a «desde»");
    expect((await getDoorById(door._id))?.unlockSchedule).toEqual([{ days: [1, 2, 3, 4, 5], from: "09:00", to: "18:00" }]);

    const cleared = await call(doorRoute.action, `/api/doors/${door._id}`, { method: "PUT", params: { id: door._id }, body: { unlockSchedule: [] } });
    expect(cleared.body.data).toMatchObject({ unlockSchedule: [] });
    const other = await createTestDoor();
    expect((await getDoorById(other.id))?.unlockSchedule).toEqual([]);
  });
});
