// Residents' facility bookings: the rules of the form, no double bookings
// under concurrency (the database decides), each resident's own data only,
// and the admin's cancellation with its notification. Through the service,
// the JSON API and, for the constraint, two separate database connections.
import { describe, expect, it } from "vitest";
import { listNotificationsOfUser } from "~/models/notification.server";
import * as bookingsApi from "~/routes/api.user-portal.bookings";
import * as cancelApi from "~/routes/api.user-portal.bookings.$id.cancel";
import * as adminCancelApi from "~/routes/api.facility-bookings.$id.cancel";
import { cancelBookingByAdmin, cancelResidentBooking, createResidentBooking, listResidentBookings } from "~/services/facility-bookings.server";
import { issueApiToken } from "~/models/api-token.server";
import { addDays, formatTime, todayInMadrid } from "~/utils/dates";
import { getDb, openDatabase } from "~/utils/db.server";
import { bookingRequest, createTestFacility, createTestResident, createTestUser, minutesFromNow } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

const HOUR = 3600_000;

/** Noon, `days` days from today in the building, plus `hours`. */
function dayAt(days: number, time = "12:00") {
  return { date: addDays(todayInMadrid(), days), startTime: time };
}

async function bearer(userId: string) {
  return `Bearer ${(await issueApiToken(userId)).token}`;
}

describe("creating a booking", () => {
  it("books a free slot, confirmed, and lists it with its facility and times", async () => {
    const resident = await createTestResident();
    const facility = await createTestFacility("gym");
    const created = await createResidentBooking(resident, { facilityType: "gym", facilityId: facility.id, ...dayAt(3, "18:30"), duration: 2, notes: "Con mi entrenador" });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.booking).toMatchObject({ facilityName: facility.name, status: "confirmed", duration: 2, notes: "Con mi entrenador", cancellable: true });
    expect(new Date(created.booking.endTime).getTime() - new Date(created.booking.startTime).getTime()).toBe(2 * HOUR);
    expect(formatTime(created.booking.startTime)).toBe("18:30");
    expect((await listResidentBookings(resident)).map((b) => b._id)).toEqual([created.booking._id]);
  });

  it("refuses a date before today, more than 90 days ahead, a start already past and a facility of another type", async () => {
    const resident = await createTestResident();
    const facility = await createTestFacility("pool");
    const base = { facilityType: "pool" as const, facilityId: facility.id, duration: 1 };
    const cases = [
      [{ ...base, ...dayAt(-1) }, "date", "La fecha no puede ser anterior a hoy"],
      [{ ...base, ...dayAt(91) }, "date", "Solo se puede reservar con un máximo de 90 días de antelación"],
      [bookingRequest(facility.id, "pool", new Date(Date.now() - 2 * 60_000)), "startTime", "La hora de inicio ya ha pasado"],
      [{ ...base, facilityType: "gym" as const, ...dayAt(2) }, "facilityId", "La instalación no corresponde al tipo elegido"],
      [{ ...base, facilityId: "no-such-facility", ...dayAt(2) }, "facilityId", "La instalación no existe"],
    ] as const;
    for (const [input, field, message] of cases) {
      const refused = await createResidentBooking(resident, input);
      expect(refused, message).toMatchObject({ ok: false, status: 400, field, message });
    }
    // Today's last hour in 90 days is still fine.
    expect((await createResidentBooking(resident, { ...base, ...dayAt(90, "23:00") })).ok).toBe(true);
    expect(await listResidentBookings(resident)).toHaveLength(1);
  });

  it("refuses partial overlaps, naming the slot taken, and allows back-to-back bookings", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    const facility = await createTestFacility("meeting-room", "Sala Solape");
    const book = (who: typeof ana, time: string, duration: 1 | 2 | 4 | 8) =>
      createResidentBooking(who, { facilityType: "meeting-room", facilityId: facility.id, ...dayAt(5, time), duration });
    expect((await book(ana, "10:00", 2)).ok).toBe(true); // 10:00–12:00
    const day = dayAt(5).date.split("-").reverse().join("/");
    for (const [time, duration] of [
      ["09:00", 2], // ends inside
      ["11:00", 2], // starts inside
      ["10:30", 1], // inside
      ["08:00", 8], // around
      ["10:00", 2], // the same
    ] as const) {
      const refused = await book(ben, time, duration);
      expect(refused, `${time} +${duration} h`).toMatchObject({
        ok: false,
        status: 409,
        message: `Sala Solape ya está reservada de ${day}, 10:00–12:00. Elige otro horario.`,
      });
    }
    expect((await book(ben, "12:00", 1)).ok).toBe(true); // starts when the first ends
    expect((await book(ben, "08:00", 2)).ok).toBe(true); // ends when the first starts
    // Another facility at the same time is free.
    const other = await createTestFacility("meeting-room");
    expect((await createResidentBooking(ben, { facilityType: "meeting-room", facilityId: other.id, ...dayAt(5, "10:00"), duration: 2 })).ok).toBe(true);
  });

  it("lets exactly one of 50 simultaneous requests for the same slot win", async () => {
    const facility = await createTestFacility("event-room");
    // Five residents, ten requests each (a resident's password hash is slow to make).
    const five = await Promise.all(Array.from({ length: 5 }, () => createTestResident()));
    const residents = Array.from({ length: 50 }, (_, i) => five[i % 5]!);
    const results = await Promise.all(
      residents.map((resident) => createResidentBooking(resident, { facilityType: "event-room", facilityId: facility.id, ...dayAt(7, "20:00"), duration: 4 })),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.status === 409)).toHaveLength(49);
    const rows = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM facility_bookings WHERE facility_id = ?", args: [facility.id] });
    expect(Number(rows.rows[0]!.n)).toBe(1);
  });

  it("lets exactly one of 50 simultaneous API calls for the same slot win", async () => {
    const facility = await createTestFacility("parking");
    const five = await Promise.all(Array.from({ length: 5 }, async () => (await createTestResident()).id));
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => bearer(five[i % 5]!)));
    const body = { facilityType: "parking", facilityId: facility.id, ...dayAt(8, "09:15"), duration: "8" };
    const responses = await Promise.all(
      tokens.map((token) => callRoute(bookingsApi.action, jsonRequest("/api/user-portal/bookings", { method: "POST", body, headers: { Authorization: token } }))),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
  });

  it("is refused by the database itself, whichever connection writes", async () => {
    const resident = await createTestResident();
    const facility = await createTestFacility("gym");
    const second = openDatabase(process.env.DATABASE_URL!);
    try {
      const start = Date.now() + 30 * 24 * HOUR;
      const insert = (db: typeof second, id: string, from: number, to: number) =>
        db.$client.execute({
          sql: "INSERT INTO facility_bookings (id, user_id, facility_id, starts_at, ends_at, duration_hours, status) VALUES (?, ?, ?, ?, ?, 1, 'confirmed')",
          args: [id, resident.id, facility.id, from, to],
        });
      await insert(getDb(), crypto.randomUUID(), start, start + HOUR);
      await expect(insert(second, crypto.randomUUID(), start + HOUR / 2, start + 2 * HOUR)).rejects.toThrow(/facility_booking_overlap/);
      // A cancelled booking frees its slot, and cannot be confirmed again over a new one.
      await getDb().$client.execute({ sql: "UPDATE facility_bookings SET status = 'cancelled' WHERE facility_id = ?", args: [facility.id] });
      await insert(second, "again", start, start + HOUR);
      await expect(
        getDb().$client.execute({ sql: "UPDATE facility_bookings SET status = 'confirmed' WHERE facility_id = ? AND id <> 'again'", args: [facility.id] }),
      ).rejects.toThrow(/facility_booking_overlap/);
    } finally {
      second.$client.close();
    }
  });
});

describe("cancelling", () => {
  it("cancels the resident's own booking once; a cancelled slot can be booked again", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    const facility = await createTestFacility("pool");
    const request = { facilityType: "pool" as const, facilityId: facility.id, ...dayAt(4, "07:00"), duration: 1 };
    const created = await createResidentBooking(ana, request);
    if (!created.ok) throw new Error(created.message);
    expect(await cancelResidentBooking(ben, created.booking._id)).toMatchObject({ ok: false, status: 404, message: "Reserva no encontrada" });
    expect(await cancelResidentBooking(ana, created.booking._id)).toMatchObject({ ok: true, booking: { status: "cancelled", cancellable: false } });
    expect(await cancelResidentBooking(ana, created.booking._id)).toMatchObject({ ok: false, status: 409, message: "La reserva ya está cancelada" });
    expect((await createResidentBooking(ben, request)).ok).toBe(true);
  });

  it("answers 404 through the API for another resident's booking, and changes nothing", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    const facility = await createTestFacility("gym");
    const created = await createResidentBooking(ana, { facilityType: "gym", facilityId: facility.id, ...dayAt(6), duration: 1 });
    if (!created.ok) throw new Error(created.message);
    const path = `/api/user-portal/bookings/${created.booking._id}/cancel`;
    const response = await callRoute(cancelApi.action, jsonRequest(path, { method: "PUT", headers: { Authorization: await bearer(ben.id) } }), {
      id: created.booking._id,
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ success: false, error: { message: "Reserva no encontrada" } });
    expect((await listResidentBookings(ana))[0]?.status).toBe("confirmed");
    const mine = await callRoute(cancelApi.action, jsonRequest(path, { method: "PUT", headers: { Authorization: await bearer(ana.id) } }), {
      id: created.booking._id,
    });
    expect(mine.status).toBe(200);
    expect((await mine.json()).data).toMatchObject({ _id: created.booking._id, status: "cancelled" });
  });

  it("lets an admin cancel a resident's booking (API admin-only), and the resident is notified", async () => {
    const ana = await createTestResident();
    const admin = await createTestUser({ role: "admin" });
    const facility = await createTestFacility("meeting-room", "Sala Notificada");
    const created = await createResidentBooking(ana, { facilityType: "meeting-room", facilityId: facility.id, ...dayAt(9, "16:00"), duration: 1 });
    if (!created.ok) throw new Error(created.message);
    const path = `/api/facility-bookings/${created.booking._id}/cancel`;
    const asResident = await callRoute(adminCancelApi.action, jsonRequest(path, { method: "PUT", headers: { Authorization: await bearer(ana.id) } }), {
      id: created.booking._id,
    });
    expect(asResident.status).toBe(403);
    const asAdmin = await callRoute(adminCancelApi.action, jsonRequest(path, { method: "PUT", headers: { Authorization: await bearer(admin.id) } }), {
      id: created.booking._id,
    });
    expect(asAdmin.status).toBe(200);
    expect((await asAdmin.json()).data.status).toBe("cancelled");
    const [notification] = await listNotificationsOfUser(ana.id);
    expect(notification).toMatchObject({ type: "booking", title: "Reserva cancelada", read: false });
    expect(notification?.message).toContain("Sala Notificada");
    expect(await cancelBookingByAdmin(created.booking._id, admin)).toMatchObject({ ok: false, status: 409 });
    expect(await listNotificationsOfUser(ana.id)).toHaveLength(1);
    expect(await cancelBookingByAdmin("nope", admin)).toMatchObject({ ok: false, status: 404 });
  });
});

describe("the bookings API", () => {
  it("lists only the caller's bookings, upcoming first, and refuses bad input in Spanish", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    const facility = await createTestFacility("gym");
    const later = await createResidentBooking(ana, { facilityType: "gym", facilityId: facility.id, ...dayAt(10), duration: 1 });
    const sooner = await createResidentBooking(ana, bookingRequest(facility.id, "gym", minutesFromNow(90), 1));
    await createResidentBooking(ben, { facilityType: "gym", facilityId: facility.id, ...dayAt(11), duration: 1 });
    const list = await callRoute(bookingsApi.loader, jsonRequest("/api/user-portal/bookings", { headers: { Authorization: await bearer(ana.id) } }));
    const body = await list.json();
    expect(body.success).toBe(true);
    expect(body.data.map((b: { _id: string }) => b._id)).toEqual([sooner.ok && sooner.booking._id, later.ok && later.booking._id]);

    const bad = await callRoute(
      bookingsApi.action,
      jsonRequest("/api/user-portal/bookings", { method: "POST", body: { facilityType: "gym", duration: "3" }, headers: { Authorization: await bearer(ana.id) } }),
    );
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe(
      "La instalación es requerida, La fecha es requerida, La hora de inicio es requerida, La duración debe ser de 1, 2, 4 u 8 horas",
    );
    const anonymous = await callRoute(bookingsApi.loader, jsonRequest("/api/user-portal/bookings"));
    expect(anonymous.status).toBe(401);
  });
});
