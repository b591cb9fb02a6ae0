// The inventory's screens (issue 28) through their loaders and actions: the
// house's calendar draws each stay on its days; the admin's list of
// residents' bookings filters and cancels; the portal's booking form shows a
// day's free slots; the reservations list searches and confirms into a room;
// /reservar answers what is free without JavaScript.
import { describe, expect, it } from "vitest";
import { listNotificationsOfUser } from "~/models/notification.server";
import { getReservationById } from "~/models/reservation.server";
import * as occupancyPage from "~/routes/admin.ocupacion";
import * as bookingsPage from "~/routes/admin.instalaciones";
import * as reservationsPage from "~/routes/admin.reservations";
import * as bookingsApi from "~/routes/api.facility-bookings";
import * as slotsApi from "~/routes/api.user-portal.facilities.$id.slots";
import * as portalPage from "~/routes/portal";
import * as bookingPage from "~/routes/reservar";
import * as lookupPage from "~/routes/reserva-consulta";
import { createResidentBooking } from "~/services/facility-bookings.server";
import { getOccupancy } from "~/services/occupancy.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { createApiCallers, createTestReservation, createTestResident, sessionCookie, toastOf, unique } from "../setup/fixtures";
import { callApi, callRoute, formPost, pageRequest } from "../setup/route";

const today = todayInMadrid();
const slash = (day: string) => day.split("-").reverse().join("/");

async function adminCookie() {
  const { admin } = await createApiCallers();
  return sessionCookie(admin.id);
}

describe("/admin/ocupacion", () => {
  it("draws each stay across its nights in its room, pending ones on rows of their own, salas with residents' bookings", async () => {
    const from = addDays(today, 670);
    const day = (n: number) => addDays(from, n);
    // A confirmed stay on nights 2–4, one that began before the window, two pending that overlap.
    const inside = await createTestReservation({ guestName: "Dentro", roomType: "individual", startDate: day(2), endDate: day(5) });
    const before = await createTestReservation({ guestName: "Antes", roomType: "individual", startDate: day(-3), endDate: day(1) });
    for (const stay of [inside, before]) expect((await changeReservationStatus(stay.id, "confirmed")).ok).toBe(true);
    const [p1, p2] = [
      await createTestReservation({ guestName: "Pendiente Uno", roomType: "suite", startDate: day(0), endDate: day(3) }),
      await createTestReservation({ guestName: "Pendiente Dos", roomType: "suite", startDate: day(1), endDate: day(20) }),
    ];
    const sala = await createTestReservation({ guestName: "Sala Huésped", reservationType: "sala", roomType: null, startDate: day(6), endDate: day(8) });

    const calendar = await getOccupancy(from);
    expect(calendar.days).toHaveLength(14);
    expect(calendar.days[0]).toMatchObject({ date: from });
    expect(calendar.next).toBe(day(14));
    const rowOf = (id: string) => calendar.rows.find((row) => row.stays.some((stay) => stay.id === id))!;
    const insideRow = rowOf(inside.id);
    expect(insideRow.kind).toBe("room");
    expect(insideRow.name).toBe((await getReservationById(inside.id))!.roomName);
    expect(insideRow.stays.find((stay) => stay.id === inside.id)).toMatchObject({ col: 2, span: 3, before: false, after: false, status: "confirmed", guestName: "Dentro" });
    expect(rowOf(before.id).stays.find((stay) => stay.id === before.id)).toMatchObject({ col: 0, span: 1, before: true });
    // Pending suites have no room yet: rows per type, never two overlapping on one.
    const [row1, row2] = [rowOf(p1.id), rowOf(p2.id)];
    expect(row1.kind).toBe("unassigned");
    expect(row1.name).toBe("Suite sin habitación");
    expect(row1.key).not.toBe(row2.key);
    expect(row2.stays.find((stay) => stay.id === p2.id)).toMatchObject({ col: 1, span: 13, after: true, status: "pending" });
    // The guest's sala holds its days on the sala's row, beside residents' bookings of other salas.
    const salaRow = rowOf(sala.id);
    expect(salaRow).toMatchObject({ kind: "sala", name: sala.salaName });
    expect(salaRow.stays.find((stay) => stay.id === sala.id)).toMatchObject({ col: 6, span: 2 });
    const ana = await createTestResident({ firstName: "Ana", lastName: "Reyes" });
    const booked = await createResidentBooking(ana, { facilityType: "meeting-room", facilityId: "sala-conferencias", date: addDays(today, 3), startTime: "16:00", duration: 2 });
    expect(booked.ok).toBe(true);
    const soon = await getOccupancy(addDays(today, 1));
    const conferencias = soon.rows.find((row) => row.key === "sala-sala-conferencias")!;
    expect(conferencias.bookings).toContainEqual(expect.objectContaining({ col: 2, time: "16:00–18:00", residentName: "Ana Reyes", status: "confirmed" }));
  });

  it("opens a stay's or a booking's details by URL, and only for admins", async () => {
    const cookie = await adminCookie();
    const stay = await createTestReservation({ guestName: `Modal ${unique()}` });
    const page = await (await callRoute(occupancyPage.loader, pageRequest(`/admin/ocupacion?from=${stay.startDate}&modal=stay&reservation=${stay.id}`, cookie))).json();
    expect(page.occupancy.from).toBe(stay.startDate);
    expect(page.modal.stay).toMatchObject({ _id: stay.id, guestName: stay.guestName });
    const resident = await createTestResident();
    const booking = await createResidentBooking(resident, { facilityType: "meeting-room", facilityId: "sala-reuniones-a", date: addDays(today, 5), startTime: "09:00", duration: 1 });
    if (!booking.ok) throw new Error(booking.message);
    const open = await (await callRoute(occupancyPage.loader, pageRequest(`/admin/ocupacion?modal=booking&booking=${booking.booking._id}&from=no-es-fecha`, cookie))).json();
    expect(open.occupancy.from).toBe(today);
    expect(open.modal.booking).toMatchObject({ _id: booking.booking._id, facilityName: "Sala de Reuniones A", resident: { username: resident.username } });
    expect((await callRoute(occupancyPage.loader, pageRequest("/admin/ocupacion", await sessionCookie(resident.id)))).status).toBe(302);
  });
});

describe("/admin/instalaciones and GET /api/facility-bookings", () => {
  it("lists residents' bookings by facility, resident and day, and cancels one, notifying the resident", async () => {
    const cookie = await adminCookie();
    const { adminToken, residentToken } = await createApiCallers();
    const surname = `Vega${unique()}`;
    const marta = await createTestResident({ firstName: "Marta", lastName: surname });
    const luis = await createTestResident({ firstName: "Luis", lastName: surname });
    const day = addDays(today, 12);
    const a = await createResidentBooking(marta, { facilityType: "gym", facilityId: "gimnasio-principal", date: day, startTime: "07:00", duration: 1 });
    const b = await createResidentBooking(luis, { facilityType: "pool", facilityId: "jacuzzi", date: addDays(day, 1), startTime: "20:00", duration: 1 });
    if (!a.ok || !b.ok) throw new Error("booking refused");

    const list = async (query: string) => (await (await callRoute(bookingsPage.loader, pageRequest(`/admin/instalaciones${query}`, cookie))).json()).bookings.map((row: { _id: string }) => row._id);
    expect(await list(`?resident=${surname}`)).toEqual([b.booking._id, a.booking._id]);
    expect(await list(`?resident=${surname}&facilityId=jacuzzi`)).toEqual([b.booking._id]);
    expect(await list(`?resident=${surname}&date=${day}`)).toEqual([a.booking._id]);
    expect(await list(`?resident=${marta.username}`)).toEqual([a.booking._id]);
    // A filter nobody could have picked is dropped, the others stay.
    expect(await list(`?resident=${surname}&date=mañana`)).toEqual([b.booking._id, a.booking._id]);

    const api = await callApi(bookingsApi.loader, `/api/facility-bookings?resident=${surname}&date=${day}`, { token: adminToken });
    expect(api).toMatchObject({ status: 200, body: { data: [{ _id: a.booking._id, facilityName: "Gimnasio Principal", resident: { name: `Marta ${surname}` } }], pagination: { total: 1, pages: 1 } } });
    expect((await callApi(bookingsApi.loader, "/api/facility-bookings?date=ayer", { token: adminToken })).status).toBe(400);
    expect((await callApi(bookingsApi.loader, "/api/facility-bookings", { token: residentToken })).status).toBe(403);

    const modal = await (await callRoute(bookingsPage.loader, pageRequest(`/admin/instalaciones?modal=cancel&booking=${a.booking._id}`, cookie))).json();
    expect(modal.modal.booking).toMatchObject({ _id: a.booking._id, cancellable: true });
    const cancelled = await callRoute(bookingsPage.action, formPost(`/admin/instalaciones?resident=${surname}&modal=cancel&booking=${a.booking._id}`, cookie, { intent: "cancel-booking", id: a.booking._id }));
    expect(cancelled.status).toBe(302);
    expect(cancelled.headers.get("Location")).toBe(`/admin/instalaciones?resident=${surname}`);
    expect(await toastOf(cancelled)).toMatchObject({ type: "success", title: "Reserva cancelada" });
    expect((await listNotificationsOfUser(marta.id)).map((n) => n.title)).toContain("Reserva cancelada");
    const again = await callRoute(bookingsPage.action, formPost("/admin/instalaciones", cookie, { intent: "cancel-booking", id: a.booking._id }));
    expect(again.status).toBe(409);
    expect(await toastOf(again)).toMatchObject({ type: "error", title: "No se pudo cancelar la reserva", description: "La reserva ya está cancelada" });
  });
});

describe("the portal's free slots", () => {
  it("answers a day's free and taken slots, a guest's sala day included, and the page keeps the choices without JavaScript", async () => {
    const { residentToken } = await createApiCallers();
    const resident = await createTestResident();
    const day = addDays(today, 20);
    expect((await createResidentBooking(resident, { facilityType: "meeting-room", facilityId: "sala-reuniones-b", date: day, startTime: "09:30", duration: 2 })).ok).toBe(true);
    expect((await createResidentBooking(resident, { facilityType: "meeting-room", facilityId: "sala-reuniones-b", date: day, startTime: "22:00", duration: 4 })).ok).toBe(true);
    const slots = (id: string, date: string) => callApi(slotsApi.loader, `/api/user-portal/facilities/${id}/slots?date=${date}`, { token: residentToken, params: { id } });
    expect((await slots("sala-reuniones-b", day)).body.data).toEqual({
      facilityId: "sala-reuniones-b",
      facilityName: "Sala de Reuniones B",
      date: day,
      free: [
        { startTime: "00:00", endTime: "09:30" },
        { startTime: "11:30", endTime: "22:00" },
      ],
      busy: [
        { startTime: "09:30", endTime: "11:30", kind: "booking" },
        { startTime: "22:00", endTime: "24:00", kind: "booking" },
      ],
    });
    // A guest holds the first free sala a day later: all of that day is taken.
    const held = await createTestReservation({ reservationType: "sala", roomType: null, startDate: addDays(day, 2), endDate: addDays(day, 3) });
    expect((await slots(held.salaId!, addDays(day, 2))).body.data).toMatchObject({ free: [], busy: [{ startTime: "00:00", endTime: "24:00", kind: "guest" }] });
    expect((await slots("no-existe", day)).status).toBe(404);
    expect((await slots("sala-reuniones-b", "hoy")).body.error.message).toBe("La fecha no es válida");
    expect((await callApi(slotsApi.loader, `/api/user-portal/facilities/sala-reuniones-b/slots?date=${day}`, { params: { id: "sala-reuniones-b" } })).status).toBe(401);

    // 'Ver horarios libres' without JavaScript: a GET of the form.
    const cookie = await sessionCookie(resident.id);
    const query = `?modal=reservar&facilityType=meeting-room&facilityId=sala-reuniones-b&date=${day}&startTime=&duration=2&notes=`;
    const page = await (await callRoute(portalPage.loader, pageRequest(`/portal${query}`, cookie))).json();
    expect(page.bookingDraft.draft).toEqual({ facilityType: "meeting-room", facilityId: "sala-reuniones-b", date: day, duration: "2" });
    expect(page.bookingDraft.slots.free).toHaveLength(2);
    expect(page.modal).toEqual({ name: "reservar", booking: null, incident: null, visitorPass: null });
  });
});

describe("/admin/reservations: search and rooms", () => {
  it("searches by code, name or email, shows the room, confirms into a chosen room and moves a stay", async () => {
    const cookie = await adminCookie();
    const name = `Buscada ${unique()}`;
    const stay = await createTestReservation({ guestName: name, roomType: "doble", startDate: addDays(today, 690), endDate: addDays(today, 692) });
    const list = async (search: string) =>
      (await (await callRoute(reservationsPage.loader, pageRequest(`/admin/reservations?search=${encodeURIComponent(search)}`, cookie))).json()).reservations.map(
        (row: { _id: string }) => row._id,
      );
    expect(await list(stay.reservationCode.toLowerCase())).toEqual([stay.id]);
    expect(await list(name.toUpperCase())).toEqual([stay.id]);
    expect(await list(stay.guestEmail.slice(3, 15))).toEqual([stay.id]);
    expect(await list("nadie-se-llama-asi")).toEqual([]);

    const details = await (await callRoute(reservationsPage.loader, pageRequest(`/admin/reservations?modal=detail&reservation=${stay.id}`, cookie))).json();
    expect(details.modal.places.map((place: { name: string }) => place.name)).toEqual(["201", "202", "203", "204"]);
    const confirmed = await callRoute(reservationsPage.action, formPost(`/admin/reservations?modal=detail&reservation=${stay.id}`, cookie, { intent: "set-status", id: stay.id, status: "confirmed", roomId: "room-203" }));
    expect(await toastOf(confirmed)).toMatchObject({ title: "Estado actualizado correctamente" });
    const row = (await (await callRoute(reservationsPage.loader, pageRequest(`/admin/reservations?search=${stay.reservationCode}`, cookie))).json()).reservations[0];
    expect(row.room).toEqual({ _id: "room-203", name: "203" });

    const moved = await callRoute(reservationsPage.action, formPost(`/admin/reservations?modal=detail&reservation=${stay.id}`, cookie, { intent: "move-room", id: stay.id, roomId: "room-204" }));
    expect(await toastOf(moved)).toMatchObject({ title: "Habitación cambiada", description: `Reserva ${stay.reservationCode}: 204` });
    // The guest's lookup page names the room.
    const lookup = await (await callRoute(lookupPage.action, formPost("/reserva-consulta", "", { code: stay.reservationCode, email: stay.guestEmail }))).json();
    expect(lookup.reservation.room).toEqual({ _id: "room-204", name: "204" });
    const other = await createTestReservation({ roomType: "doble", startDate: addDays(today, 691), endDate: addDays(today, 693) });
    expect((await changeReservationStatus(other.id, "confirmed", new Date(), { roomId: "room-201" })).ok).toBe(true);
    const taken = await callRoute(reservationsPage.action, formPost(`/admin/reservations?modal=detail&reservation=${stay.id}`, cookie, { intent: "move-room", id: stay.id, roomId: "room-201" }));
    expect(taken.status).toBe(409);
    expect(await toastOf(taken)).toMatchObject({ type: "error", description: "La habitación 201 no está libre en esas fechas" });
  });
});

describe("/admin/reservations: 'Cambiar fechas'", () => {
  it("changes a stay's dates with 'Fechas actualizadas'; a taken room and a bad date answer in the form and change nothing", async () => {
    const cookie = await adminCookie();
    const stay = await createTestReservation({ roomType: "suite", startDate: addDays(today, 720), endDate: addDays(today, 722) });
    const other = await createTestReservation({ roomType: "suite", startDate: addDays(today, 724), endDate: addDays(today, 726) });
    expect((await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: "room-301" })).ok).toBe(true);
    expect((await changeReservationStatus(other.id, "confirmed", new Date(), { roomId: "room-301" })).ok).toBe(true);
    const post = (fields: Record<string, string>) =>
      callRoute(reservationsPage.action, formPost(`/admin/reservations?modal=detail&reservation=${stay.id}`, cookie, { intent: "change-dates", id: stay.id, ...fields }));
    const slash = (day: string) => day.split("-").reverse().join("/");

    const [startDate, endDate] = [addDays(today, 721), addDays(today, 724)];
    const changed = await post({ startDate, endDate });
    expect(changed.status).toBe(302);
    expect(changed.headers.get("Location")).toBe(`/admin/reservations?modal=detail&reservation=${stay.id}`);
    expect(await toastOf(changed)).toMatchObject({ type: "success", title: "Fechas actualizadas", description: `Reserva ${stay.reservationCode}: del ${slash(startDate)} al ${slash(endDate)}` });
    expect(await getReservationById(stay.id)).toMatchObject({ startDate, endDate, roomId: "room-301" });

    const taken = await post({ startDate, endDate: addDays(today, 725) });
    expect(taken.status).toBe(409);
    expect(await toastOf(taken)).toMatchObject({ type: "error", title: "No se pudieron cambiar las fechas", description: "La habitación 301 no está libre en esas fechas" });
    expect((await taken.json()).intent).toBe("change-dates");
    const bad = await post({ startDate, endDate: startDate });
    expect(bad.status).toBe(400);
    expect((await bad.json()).result.error.endDate).toEqual(["La fecha de salida debe ser posterior a la fecha de entrada"]);
    expect(await getReservationById(stay.id)).toMatchObject({ startDate, endDate });
  });
});

describe("/reservar without JavaScript", () => {
  const guest = { guestName: "Sin Script", guestEmail: "sinscript@example.com", guestPhone: "600 000 111", contactPreference: "email" };
  const post = (fields: Record<string, string>) =>
    callRoute(bookingPage.action, formPost("/reservar", "", { reservationType: "habitacion", ...fields }));

  it("'Ver disponibilidad' answers what is free for the stay and keeps the form", async () => {
    const startDate = addDays(today, 700);
    const endDate = addDays(today, 702);
    const checked = await (await post({ intent: "check", roomType: "suite", startDate, endDate, ...guest })).json();
    expect(checked.intent).toBe("check");
    expect(checked.availability).toMatchObject({ reservationType: "habitacion", roomType: "suite", available: 2, total: 2 });
    expect(checked.result.initialValue).toMatchObject({ guestName: "Sin Script", roomType: "suite", startDate });
    const bad = await post({ intent: "check", roomType: "suite", startDate, endDate: startDate });
    expect(bad.status).toBe(400);
    expect((await bad.json()).result.error.endDate).toEqual(["La fecha de salida debe ser posterior a la fecha de entrada"]);
  });

  it("a refused booking says what is free beside the refusal", async () => {
    const startDate = addDays(today, 710);
    const endDate = addDays(today, 711);
    for (let i = 0; i < 2; i++) await createTestReservation({ roomType: "suite", startDate, endDate });
    const refused = await post({ roomType: "suite", startDate, endDate, ...guest });
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body.result.error[""]).toEqual(["No quedan habitaciones suites libres para esas fechas"]);
    expect(body.availability).toMatchObject({ available: 0, total: 2 });
    expect(await toastOf(refused)).toMatchObject({ type: "error", description: "No quedan habitaciones suites libres para esas fechas" });
    // A form refused for its other fields still says what is free for its dates.
    const invalid = await (await post({ roomType: "doble", startDate, endDate, guestName: "" })).json();
    expect(invalid.availability).toMatchObject({ available: 4, total: 4 });
  });
});
