// Rooms as inventory (issue 28): availability before booking, no overbooking
// whatever the concurrency (the database decides), a room assigned on
// confirmation and never given twice, one calendar for guests' salas and
// residents' facility bookings, and new dates only within the inventory.
// Through the JSON API and the services, on the
// seeded inventory (4 individual, 4 doble, 2 suite; 3 salas). Each test books
// its own nights, far enough apart that no two tests meet.
import { describe, expect, it } from "vitest";
import { reservationConfirmedByHouseMail } from "~/mail/visitor-mail.server";
import { getReservationById } from "~/models/reservation.server";
import * as availabilityRoute from "~/routes/api.availability";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as lookupRoute from "~/routes/api.anonymous-reservations.code.$code";
import * as datesRoute from "~/routes/api.anonymous-reservations.$id.dates";
import * as roomRoute from "~/routes/api.anonymous-reservations.$id.room";
import * as statusRoute from "~/routes/api.anonymous-reservations.$id.status";
import { createResidentBooking } from "~/services/facility-bookings.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { cancelGuestReservation } from "~/services/visitor.server";
import { addDays, startOfMadridDay, todayInMadrid } from "~/utils/dates";
import { getDb, openDatabase } from "~/utils/db.server";
import { RATE_LIMITS } from "~/services/rate-limits.server";
import { createApiCallers, createTestReservation, createTestResident } from "../setup/fixtures";
import { callApi, callRoute, jsonRequest } from "../setup/route";

const today = todayInMadrid();
let windows = 0;
/** Nights of their own for a test: `nights` from a start 560 + 10·n days ahead (beyond the fixtures' random stays). */
function nights(count = 3) {
  const start = addDays(today, 560 + 10 * windows++);
  return { startDate: start, endDate: addDays(start, count) };
}

const guest = (overrides: Record<string, unknown> = {}) => ({
  guestName: "Nuria Prieto",
  guestEmail: "nuria@example.com",
  guestPhone: "+34 600 222 333",
  reservationType: "habitacion",
  roomType: "doble",
  contactPreference: "email",
  ...overrides,
});

async function book(body: Record<string, unknown>) {
  const response = await callRoute(reservationsRoute.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body }));
  return { status: response.status, body: await response.json() };
}

async function availability(query: Record<string, string>, ip?: string) {
  const response = await callRoute(availabilityRoute.loader, jsonRequest(`/api/availability?${new URLSearchParams(query)}`, { ip }));
  return { status: response.status, body: await response.json() };
}

describe("availability and overbooking", () => {
  it("counts the rooms of a type free every night, refuses a full type with 409, and nights are half-open", async () => {
    const stay = nights(3);
    expect((await availability({ reservationType: "habitacion", roomType: "doble", ...stay })).body).toEqual({ success: true, data: { available: 4, total: 4 } });
    for (let i = 0; i < 4; i++) expect((await book(guest(stay))).status).toBe(201);
    expect((await availability({ reservationType: "habitacion", roomType: "doble", ...stay })).body.data).toEqual({ available: 0, total: 4 });
    const refused = await book(guest(stay));
    expect(refused).toEqual({ status: 409, body: { success: false, error: { message: "No quedan habitaciones dobles libres para esas fechas" } } });
    // A night inside the stay is full too; the night it ends and the night before it starts are free.
    expect((await book(guest({ startDate: addDays(stay.startDate, 1), endDate: addDays(stay.startDate, 2) }))).status).toBe(409);
    expect((await book(guest({ startDate: stay.endDate, endDate: addDays(stay.endDate, 2) }))).status).toBe(201);
    expect((await book(guest({ startDate: addDays(stay.startDate, -2), endDate: stay.startDate }))).status).toBe(201);
    // Other types are theirs: two suites, one left after one is booked.
    expect((await book(guest({ ...stay, roomType: "suite" }))).status).toBe(201);
    expect((await availability({ reservationType: "habitacion", roomType: "suite", ...stay })).body.data).toEqual({ available: 1, total: 2 });
    expect((await book(guest({ ...stay, roomType: "suite" }))).status).toBe(201);
    expect((await book(guest({ ...stay, roomType: "suite" }))).body.error.message).toBe("No quedan habitaciones suites libres para esas fechas");
    // A cancelled stay frees its night.
    const mine = await createTestReservation({ ...stay, roomType: "individual", guestEmail: "libera@example.com" });
    await cancelGuestReservation(mine.reservationCode, "libera@example.com", { ip: "198.51.100.30" });
    expect((await availability({ reservationType: "habitacion", roomType: "individual", ...stay })).body.data).toEqual({ available: 4, total: 4 });
  });

  it("counts the busiest night, not every stay that overlaps", async () => {
    const { startDate } = nights();
    const day = (n: number) => addDays(startDate, n);
    // Two suites: one taken nights 0–1, the other nights 2–3.
    await createTestReservation({ roomType: "suite", startDate: day(0), endDate: day(2) });
    await createTestReservation({ roomType: "suite", startDate: day(2), endDate: day(4) });
    // Nights 0–3 overlap both stays, yet each night one suite is free.
    expect((await availability({ reservationType: "habitacion", roomType: "suite", startDate: day(0), endDate: day(4) })).body.data).toEqual({ available: 1, total: 2 });
    expect((await book(guest({ roomType: "suite", startDate: day(0), endDate: day(4) }))).status).toBe(201);
    expect((await book(guest({ roomType: "suite", startDate: day(1), endDate: day(2) }))).status).toBe(409);
  });

  it("of 50 simultaneous bookings for the last 3 free rooms, creates exactly 3", async () => {
    const stay = nights(2);
    await createTestReservation({ ...stay, roomType: "doble" });
    expect((await availability({ reservationType: "habitacion", roomType: "doble", ...stay })).body.data).toEqual({ available: 3, total: 4 });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => book(guest({ ...stay, guestEmail: `carrera${i}@example.com` }))));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 409 && answer.body.error.message === "No quedan habitaciones dobles libres para esas fechas")).toHaveLength(47);
    const rows = await getDb().$client.execute({
      sql: "SELECT count(*) AS n FROM anonymous_reservations WHERE room_type = 'doble' AND status IN ('pending', 'confirmed') AND start_date = ? AND end_date = ?",
      args: [stay.startDate, stay.endDate],
    });
    expect(Number(rows.rows[0]!.n)).toBe(4);
  });

  it("is refused by the database itself, whichever connection writes", async () => {
    const stay = nights(1);
    for (let i = 0; i < 2; i++) await createTestReservation({ ...stay, roomType: "suite" });
    const second = openDatabase(process.env.DATABASE_URL!);
    try {
      await expect(
        second.$client.execute({
          sql: `INSERT INTO anonymous_reservations (id, reservation_code, guest_name, guest_email, guest_phone, reservation_type, room_type, start_date, end_date)
                VALUES ('otra', 'OTRA2345', 'x', 'x@example.com', '600', 'habitacion', 'suite', ?, ?)`,
          args: [stay.startDate, stay.endDate],
        }),
      ).rejects.toThrow(/reservation_rooms_full/);
    } finally {
      second.$client.close();
    }
  });

  it("answers the booking's date rules with 400, is public and limited per address", async () => {
    const stay = nights();
    const cases: Array<[Record<string, string>, string]> = [
      [{ reservationType: "habitacion", roomType: "doble" }, "La fecha de entrada es requerida"],
      [{ reservationType: "habitacion", roomType: "doble", startDate: stay.startDate, endDate: stay.startDate }, "La fecha de salida debe ser posterior a la fecha de entrada"],
      [{ reservationType: "habitacion", ...stay }, "El tipo de habitación es requerido"],
      [{ reservationType: "habitacion", roomType: "doble", startDate: addDays(today, -1), endDate: today }, "La fecha de entrada no puede ser anterior a hoy"],
      [{ reservationType: "hotel", ...stay }, "El tipo de reserva no es válido"],
    ];
    for (const [query, message] of cases) {
      const answer = await availability(query);
      expect(answer.status, message).toBe(400);
      expect(answer.body.error.message).toContain(message);
    }
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMITS.availability.limit; i++) statuses.push((await availability({ reservationType: "sala", ...stay }, "203.0.113.77")).status);
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe("confirmation assigns a room", () => {
  it("gives each confirmed stay a distinct room of its type, also when confirmed at once", async () => {
    const stay = nights(3);
    const pending = await Promise.all(Array.from({ length: 4 }, () => createTestReservation({ ...stay, roomType: "doble" })));
    const confirmed = await Promise.all(pending.map((reservation) => changeReservationStatus(reservation.id, "confirmed")));
    expect(confirmed.every((result) => result.ok)).toBe(true);
    const rooms = confirmed.map((result) => (result.ok ? result.reservation.room : null));
    expect(new Set(rooms.map((room) => room?._id)).size).toBe(4);
    expect(rooms.map((room) => room?.name).sort()).toEqual(["201", "202", "203", "204"]);
    // The guest's lookup and confirmation mail name the room.
    const first = (await getReservationById(pending[0]!.id))!;
    const lookup = await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/${first.reservationCode}?email=${first.guestEmail}`), { code: first.reservationCode });
    expect((await lookup.json()).data.room).toEqual({ _id: first.roomId, name: first.roomName });
    expect(reservationConfirmedByHouseMail(first).text).toContain(`Habitación: ${first.roomName}`);
  });

  it("never gives one room to two stays: a chosen room that is taken is refused naming it", async () => {
    const { adminToken } = await createApiCallers();
    const stay = nights(2);
    const [a, b] = [await createTestReservation({ ...stay }), await createTestReservation({ ...stay })];
    const put = (id: string, body: unknown) => callApi(statusRoute.action, `/api/anonymous-reservations/${id}/status`, { method: "PUT", body, token: adminToken, params: { id } });
    const both = await Promise.all([put(a.id, { status: "confirmed", roomId: "room-203" }), put(b.id, { status: "confirmed", roomId: "room-203" })]);
    expect(both.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(both.find((answer) => answer.status === 409)!.body.error.message).toBe("La habitación 203 no está libre en esas fechas");
    expect(both.find((answer) => answer.status === 200)!.body.data).toMatchObject({ status: "confirmed", room: { _id: "room-203", name: "203" } });
    // Another type, or a room that does not exist.
    const loser = both[0]!.status === 409 ? a : b;
    expect((await put(loser.id, { status: "confirmed", roomId: "room-301" })).body.error.message).toBe("La habitación 301 no es doble");
    expect((await put(loser.id, { status: "confirmed", roomId: "no-existe" })).status).toBe(404);
    expect((await put(loser.id, { status: "cancelled", roomId: "room-201" })).status).toBe(400);
    // Without a choice it gets a free one.
    expect((await put(loser.id, { status: "confirmed" })).body.data.room.name).toMatch(/^20[124]$/);
  });

  it("under many confirmations at once never double-assigns, and refuses what does not fit", async () => {
    // Two windows sharing a middle night: 4 stays on nights 0–1, 4 on nights 1–2 would need 8 rooms;
    // the first two are booked, the inventory refuses the rest beyond 4 per night.
    const { startDate } = nights();
    const day = (n: number) => addDays(startDate, n);
    const stays = [];
    for (let i = 0; i < 2; i++) stays.push(await createTestReservation({ startDate: day(0), endDate: day(2) }));
    for (let i = 0; i < 2; i++) stays.push(await createTestReservation({ startDate: day(1), endDate: day(3) }));
    for (let i = 0; i < 2; i++) stays.push(await createTestReservation({ startDate: day(2), endDate: day(4) }));
    await expect(createTestReservation({ startDate: day(1), endDate: day(2) })).rejects.toThrow(/rooms-full/);
    const results = await Promise.all(stays.map((stay) => changeReservationStatus(stay.id, "confirmed")));
    expect(results.every((result) => result.ok)).toBe(true);
    const rows = await getDb().$client.execute({
      sql: `SELECT a.id FROM anonymous_reservations a JOIN anonymous_reservations b ON a.room_id = b.room_id AND a.id < b.id
            AND a.start_date < b.end_date AND b.start_date < a.end_date AND a.status = 'confirmed' AND b.status = 'confirmed'`,
      args: [],
    });
    expect(rows.rows).toHaveLength(0);
  });

  it("moves a confirmed stay to another free room; refuses a taken one and a pending stay", async () => {
    const { adminToken } = await createApiCallers();
    const stay = nights(2);
    const [a, b, pending] = [await createTestReservation({ ...stay, roomType: "suite" }), await createTestReservation({ ...stay, roomType: "suite" }), await createTestReservation({ ...stay, roomType: "individual" })];
    const confirmedA = await changeReservationStatus(a.id, "confirmed", new Date(), { roomId: "room-301" });
    const confirmedB = await changeReservationStatus(b.id, "confirmed", new Date(), { roomId: "room-302" });
    expect([confirmedA.ok, confirmedB.ok]).toEqual([true, true]);
    const move = (id: string, roomId: string) => callApi(roomRoute.action, `/api/anonymous-reservations/${id}/room`, { method: "PUT", body: { roomId }, token: adminToken, params: { id } });
    expect(await move(a.id, "room-302")).toMatchObject({ status: 409, body: { error: { message: "La habitación 302 no está libre en esas fechas" } } });
    await changeReservationStatus(b.id, "cancelled");
    expect(await move(a.id, "room-302")).toMatchObject({ status: 200, body: { data: { room: { _id: "room-302", name: "302" } } } });
    expect((await move(pending.id, "room-101")).body.error.message).toBe("Solo se puede cambiar la habitación de una reserva confirmada cuya estancia no ha terminado");
    expect((await move(a.id, "")).status).toBe(400);
    expect((await callApi(roomRoute.action, `/api/anonymous-reservations/${a.id}/room`, { method: "PUT", body: { roomId: "room-301" }, params: { id: a.id } })).status).toBe(401);
  });
});

describe("salas: one calendar with residents' bookings", () => {
  it("a guest's sala day and a resident's booking of that sala refuse each other, naming why", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    const day = addDays(today, 40);
    const slash = day.split("-").reverse().join("/");
    const residentBooks = (who: typeof ana, facilityId: string, startTime: string) =>
      createResidentBooking(who, { facilityType: "meeting-room", facilityId, date: day, startTime, duration: 2 });
    const salaStay = { reservationType: "sala", startDate: day, endDate: addDays(day, 1) };

    expect((await availability({ reservationType: "sala", startDate: day, endDate: addDays(day, 1) })).body.data).toMatchObject({ available: 3, total: 3 });
    expect((await residentBooks(ana, "sala-reuniones-a", "10:00")).ok).toBe(true);
    const free = (await availability({ reservationType: "sala", startDate: day, endDate: addDays(day, 1) })).body.data;
    expect(free).toEqual({ available: 2, total: 3, salas: [{ _id: "sala-reuniones-b", name: "Sala de Reuniones B", capacity: 8 }, { _id: "sala-conferencias", name: "Sala de Conferencias", capacity: 20 }] });

    // The guest gets a sala nobody has that day, held for the whole day.
    const booked = await book(guest(salaStay));
    expect(booked.status).toBe(201);
    expect(booked.body.data.room).toEqual({ _id: "sala-reuniones-b", name: "Sala de Reuniones B" });
    // A resident cannot book that sala on that day, at any hour.
    expect(await residentBooks(ben, "sala-reuniones-b", "18:00")).toMatchObject({
      ok: false,
      status: 409,
      message: `Sala de Reuniones B está reservada todo el día por un huésped el ${slash}. Elige otro día u otra sala.`,
    });
    expect((await residentBooks(ben, "sala-reuniones-b", "18:00")).ok).toBe(false);
    // ...but the day after, yes (the hold ends at midnight).
    expect((await createResidentBooking(ben, { facilityType: "meeting-room", facilityId: "sala-reuniones-b", date: addDays(day, 1), startTime: "00:00", duration: 1 })).ok).toBe(true);

    // A resident takes the last sala: now every sala is taken that day, a guest is refused.
    expect((await residentBooks(ben, "sala-conferencias", "12:00")).ok).toBe(true);
    expect(await book(guest(salaStay))).toMatchObject({ status: 409, body: { error: { message: "No quedan salas libres para esas fechas" } } });

    // A day on which every sala has a resident's booking: the refusal says so.
    // (A third resident books them: each may hold only so many bookings at once.)
    const carla = await createTestResident();
    const other = addDays(day, 3);
    for (const sala of ["sala-reuniones-a", "sala-reuniones-b", "sala-conferencias"]) {
      expect((await createResidentBooking(carla, { facilityType: "meeting-room", facilityId: sala, date: other, startTime: "09:00", duration: 1 })).ok).toBe(true);
    }
    expect((await book(guest({ reservationType: "sala", startDate: addDays(other, -1), endDate: addDays(other, 1) }))).body.error.message).toBe(
      `No quedan salas libres para esas fechas: el ${other.split("-").reverse().join("/")} todas las salas tienen reservas de residentes`,
    );
  });

  it("of simultaneous sala bookings for one day, exactly as many as there are free salas are created", async () => {
    const day = addDays(today, 60);
    const answers = await Promise.all(Array.from({ length: 20 }, () => book(guest({ reservationType: "sala", startDate: day, endDate: addDays(day, 1) }))));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created).toHaveLength(3);
    expect(new Set(created.map((answer) => answer.body.data.room._id)).size).toBe(3);
  });
});

describe("new dates (PUT /api/anonymous-reservations/{id}/dates)", () => {
  it("keep a confirmed stay's room only if it is free on them, need a free room of a pending stay's type, and refuse without changing anything", async () => {
    const { adminToken } = await createApiCallers();
    const redate = (id: string, body: unknown) => callApi(datesRoute.action, `/api/anonymous-reservations/${id}/dates`, { method: "PUT", body, token: adminToken, params: { id } });
    const [first, second] = [nights(2), nights(2)];
    const [p, q] = [await createTestReservation({ ...first, roomType: "doble" }), await createTestReservation({ ...second, roomType: "doble" })];
    expect((await changeReservationStatus(p.id, "confirmed", new Date(), { roomId: "room-201" })).ok).toBe(true);
    expect((await changeReservationStatus(q.id, "confirmed", new Date(), { roomId: "room-201" })).ok).toBe(true);

    // Onto p's nights: room 201 is taken (though other doubles are free).
    expect(await redate(q.id, first)).toEqual({ status: 409, body: { success: false, error: { message: "La habitación 201 no está libre en esas fechas" } } });
    expect(await getReservationById(q.id)).toMatchObject({ ...second, roomId: "room-201", status: "confirmed" });
    // From the day p leaves (nights are half-open): the room is free, the stay keeps it.
    const later = { startDate: first.endDate, endDate: addDays(first.endDate, 3) };
    expect(await redate(q.id, later)).toMatchObject({ status: 200, body: { data: { ...later, days: 3, status: "confirmed", room: { _id: "room-201", name: "201" } } } });
    const events = await getDb().$client.execute({ sql: "SELECT action, before, after FROM audit_events WHERE entity_id = ? AND action = 'reservation.dates'", args: [q.id] });
    expect(events.rows.map((row) => [row.action, JSON.parse(String(row.before)), JSON.parse(String(row.after))])).toEqual([
      ["reservation.dates", { ...second, salaId: null }, { ...later, salaId: null }],
    ]);

    // A pending stay needs its type free on every new night: both suites are held there.
    const full = nights(2);
    for (let i = 0; i < 2; i++) await createTestReservation({ ...full, roomType: "suite" });
    const pending = await createTestReservation({ ...nights(2), roomType: "suite" });
    expect(await redate(pending.id, full)).toMatchObject({ status: 409, body: { error: { message: "No quedan habitaciones suites libres para esas fechas" } } });
    expect(await getReservationById(pending.id)).toMatchObject({ startDate: pending.startDate, endDate: pending.endDate, status: "pending" });

    // The booking's date rules and messages; only an open stay; an admin only.
    expect((await redate(q.id, { startDate: later.startDate, endDate: later.startDate })).body.error.message).toBe("La fecha de salida debe ser posterior a la fecha de entrada");
    expect((await redate(q.id, { startDate: addDays(today, -1), endDate: addDays(today, 1) })).body.error.message).toBe("La fecha de entrada no puede ser anterior a hoy");
    expect((await redate(q.id, {})).status).toBe(400);
    await changeReservationStatus(p.id, "cancelled");
    expect(await redate(p.id, later)).toMatchObject({ status: 409, body: { error: { message: "Solo se pueden cambiar las fechas de una reserva pendiente o confirmada" } } });
    expect(await redate("no-existe", later)).toMatchObject({ status: 404, body: { error: { message: "Reserva no encontrada" } } });
    expect((await callApi(datesRoute.action, `/api/anonymous-reservations/${q.id}/dates`, { method: "PUT", body: later, params: { id: q.id } })).status).toBe(401);
  });

  it("a sala: a confirmed stay keeps its sala only if it is free those days; a pending one takes another free sala", async () => {
    const { adminToken } = await createApiCallers();
    const redate = (id: string, body: unknown) => callApi(datesRoute.action, `/api/anonymous-reservations/${id}/dates`, { method: "PUT", body, token: adminToken, params: { id } });
    const [day, other, third] = [nights(1), nights(1), nights(1)];
    const held = await createTestReservation({ ...day, reservationType: "sala", roomType: null });
    expect(held.salaId).toBe("sala-reuniones-a");
    // Pending, on another day in the same sala: moved onto `day`, it takes the next free sala.
    const pending = await createTestReservation({ ...other, reservationType: "sala", roomType: null });
    expect(await redate(pending.id, day)).toMatchObject({ status: 200, body: { data: { ...day, room: { _id: "sala-reuniones-b", name: "Sala de Reuniones B" } } } });
    // Confirmed: it keeps its sala, which is held that day.
    const confirmed = await createTestReservation({ ...third, reservationType: "sala", roomType: null });
    expect((await changeReservationStatus(confirmed.id, "confirmed")).ok).toBe(true);
    expect(await redate(confirmed.id, day)).toMatchObject({ status: 409, body: { error: { message: "Sala de Reuniones A no está libre en esas fechas" } } });
    expect(await getReservationById(confirmed.id)).toMatchObject({ ...third, salaId: "sala-reuniones-a" });
    // On a free day it keeps its sala, held for the new whole days.
    const free = nights(2);
    expect(await redate(confirmed.id, free)).toMatchObject({ status: 200, body: { data: { ...free, room: { _id: "sala-reuniones-a" } } } });
    expect(await getReservationById(confirmed.id)).toMatchObject({ heldFrom: startOfMadridDay(free.startDate), heldTo: startOfMadridDay(free.endDate) });
  });
});
