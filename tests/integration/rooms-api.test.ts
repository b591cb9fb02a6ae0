// The house's rooms (issue 28): the seeded inventory, /api/rooms and
// /admin/habitaciones. A room with confirmed stays to come is neither deleted,
// taken out of service nor given another type (the refusal names them); one
// out of service is not counted in the availability.
import { describe, expect, it } from "vitest";
import * as page from "~/routes/admin.habitaciones";
import * as roomsRoute from "~/routes/api.rooms";
import * as roomRoute from "~/routes/api.rooms.$id";
import { readAvailability } from "~/services/availability.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { createApiCallers, createTestDoor, createTestReservation, sessionCookie, toastOf, unique } from "../setup/fixtures";
import { callApi, callRoute, formPost, pageRequest } from "../setup/route";

const today = todayInMadrid();

describe("the seeded inventory", () => {
  it("has 4 individual rooms on floor 1, 4 doubles on floor 2 and 2 suites on floor 3", async () => {
    const { adminToken } = await createApiCallers();
    const { status, body } = await callApi(roomsRoute.loader, "/api/rooms", { token: adminToken });
    expect(status).toBe(200);
    const seeded = body.data.filter((room: { _id: string }) => room._id.startsWith("room-"));
    expect(seeded.map((room: { name: string; floor: number; roomType: string }) => `${room.name} ${room.floor} ${room.roomType}`)).toEqual([
      "101 1 individual",
      "102 1 individual",
      "103 1 individual",
      "104 1 individual",
      "201 2 doble",
      "202 2 doble",
      "203 2 doble",
      "204 2 doble",
      "301 3 suite",
      "302 3 suite",
    ]);
    expect(seeded[0]).toEqual({ _id: "room-101", name: "101", floor: 1, roomType: "individual", doorId: null, status: "available", notes: null });
  });
});

describe("/api/rooms", () => {
  it("creates, reads, edits and deletes a room; validates and refuses a taken name", async () => {
    const { adminToken, residentToken } = await createApiCallers();
    const door = await createTestDoor();
    const name = `A-${unique()}`;
    const created = await callApi(roomsRoute.action, "/api/rooms", { method: "POST", token: adminToken, body: { name, floor: "4", roomType: "individual", doorId: door.code, notes: "Vistas" } });
    // doorId on the wire is the door's hardware code (architecture rule 11).
    expect(created).toMatchObject({ status: 201, body: { data: { name, floor: 4, roomType: "individual", doorId: door.code, status: "available", notes: "Vistas" } } });
    const id = created.body.data._id as string;
    // Out of service at once, so the other tests' counts stay the seeded ones.
    expect((await callApi(roomRoute.action, `/api/rooms/${id}`, { method: "PUT", token: adminToken, params: { id }, body: { status: "out-of-service" } })).body.data.status).toBe("out-of-service");
    expect((await callApi(roomRoute.loader, `/api/rooms/${id}`, { token: adminToken, params: { id } })).body.data).toMatchObject({ name, status: "out-of-service" });

    const bad = [
      [{ floor: 1, roomType: "doble" }, "El nombre o número es requerido"],
      [{ name: "X", roomType: "doble" }, "La planta es requerida"],
      [{ name: "X", floor: "uno", roomType: "doble" }, "La planta debe ser un número entero entre -5 y 100"],
      [{ name: "X", floor: 1.5, roomType: "doble" }, "La planta debe ser un número entero entre -5 y 100"],
      [{ name: "X", floor: 1 }, "El tipo de habitación es requerido"],
      [{ name: "X", floor: 1, roomType: "doble", status: "rota" }, "El estado no es válido (available o out-of-service)"],
    ] as const;
    for (const [body, message] of bad) {
      const answer = await callApi(roomsRoute.action, "/api/rooms", { method: "POST", token: adminToken, body });
      expect(answer.status, message).toBe(400);
      expect(answer.body.error.message).toContain(message);
    }
    expect((await callApi(roomsRoute.action, "/api/rooms", { method: "POST", token: adminToken, body: { name: "X", floor: 1, roomType: "doble", doorId: "no-existe", status: "out-of-service" } })).body.error.message).toBe("La puerta no existe");
    expect(await callApi(roomsRoute.action, "/api/rooms", { method: "POST", token: adminToken, body: { name: name.toLowerCase(), floor: 1, roomType: "doble", status: "out-of-service" } })).toMatchObject({
      status: 409,
      body: { error: { message: "Ya existe una habitación con ese nombre" } },
    });
    expect((await callApi(roomRoute.action, `/api/rooms/${id}`, { method: "PUT", token: adminToken, params: { id }, body: {} })).body.error.message).toBe("No hay cambios que guardar");
    // A door's row id is still accepted for one release, and answered as its code.
    expect((await callApi(roomRoute.action, `/api/rooms/${id}`, { method: "PUT", token: adminToken, params: { id }, body: { doorId: door.id } })).body.data).toMatchObject({ doorId: door.code });
    expect((await callApi(roomsRoute.loader, "/api/rooms", { token: adminToken })).body.data.find((room: { _id: string }) => room._id === id)).toMatchObject({ doorId: door.code });
    expect((await callApi(roomRoute.action, `/api/rooms/${id}`, { method: "PUT", token: adminToken, params: { id }, body: { doorId: "", notes: null } })).body.data).toMatchObject({ doorId: null, notes: null });

    expect(await callApi(roomRoute.action, `/api/rooms/${id}`, { method: "DELETE", token: adminToken, params: { id } })).toMatchObject({ status: 200, body: { data: { _id: id } } });
    expect((await callApi(roomRoute.loader, `/api/rooms/${id}`, { token: adminToken, params: { id } })).status).toBe(404);
    // Guards.
    expect((await callApi(roomsRoute.loader, "/api/rooms")).status).toBe(401);
    expect((await callApi(roomsRoute.loader, "/api/rooms", { token: residentToken })).status).toBe(403);
    expect((await callApi(roomRoute.action, `/api/rooms/room-101`, { method: "PATCH", token: adminToken, params: { id: "room-101" } })).status).toBe(405);
  });

  it("keeps a room with confirmed stays to come in service, of its type and in the inventory, naming the stays", async () => {
    const { adminToken } = await createApiCallers();
    const start = addDays(today, 200);
    const stay = await createTestReservation({ roomType: "suite", startDate: start, endDate: addDays(start, 2) });
    const confirmed = await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: "room-302" });
    expect(confirmed.ok).toBe(true);
    const dates = `${start.split("-").reverse().join("/")}–${addDays(start, 2).split("-").reverse().join("/")}`;
    const put = (body: unknown) => callApi(roomRoute.action, "/api/rooms/room-302", { method: "PUT", token: adminToken, params: { id: "room-302" }, body });
    expect((await put({ status: "out-of-service" })).body.error.message).toBe(`No se puede poner fuera de servicio la habitación 302: tiene estancias confirmadas (${stay.reservationCode}, ${dates})`);
    expect((await put({ roomType: "doble" })).body.error.message).toBe(`No se puede cambiar el tipo de la habitación 302: tiene estancias confirmadas (${stay.reservationCode}, ${dates})`);
    expect((await callApi(roomRoute.action, "/api/rooms/room-302", { method: "DELETE", token: adminToken, params: { id: "room-302" } })).body.error.message).toBe(
      `No se puede eliminar la habitación 302: tiene estancias confirmadas (${stay.reservationCode}, ${dates})`,
    );
    // The same type, notes or a name change are fine.
    expect((await put({ roomType: "suite", notes: "Con terraza" })).status).toBe(200);

    // Without confirmed stays it may leave service: then it is not counted, nor given.
    expect((await changeReservationStatus(stay.id, "cancelled")).ok).toBe(true);
    expect((await put({ status: "out-of-service" })).status).toBe(200);
    try {
      expect(await readAvailability({ reservationType: "habitacion", roomType: "suite", startDate: start, endDate: addDays(start, 1) })).toMatchObject({ available: 1, total: 1 });
      const other = await createTestReservation({ roomType: "suite", startDate: start, endDate: addDays(start, 1) });
      expect(await changeReservationStatus(other.id, "confirmed", new Date(), { roomId: "room-302" })).toMatchObject({ ok: false, status: 409, message: "La habitación 302 está fuera de servicio" });
      await expect(createTestReservation({ roomType: "suite", startDate: start, endDate: addDays(start, 1) })).rejects.toThrow(/rooms-full/);
    } finally {
      expect((await put({ status: "available", notes: "" })).status).toBe(200);
    }
  });
});

describe("/admin/habitaciones", () => {
  it("lists the rooms, creates, edits and deletes one with the forms, and refuses with a toast", async () => {
    const { admin, resident } = await createApiCallers();
    const cookie = await sessionCookie(admin.id);
    const listed = await callRoute(page.loader, pageRequest("/admin/habitaciones", cookie));
    expect(listed.status).toBe(200);
    const data = await listed.json();
    expect(data.rooms.map((room: { name: string }) => room.name)).toContain("201");

    const name = `B-${unique()}`;
    const created = await callRoute(page.action, formPost("/admin/habitaciones?modal=new", cookie, { intent: "create-room", name, floor: "5", roomType: "doble", status: "out-of-service", doorId: "", notes: "" }));
    expect(created.status).toBe(302);
    expect(created.headers.get("Location")).toBe("/admin/habitaciones");
    expect(await toastOf(created)).toMatchObject({ type: "success", title: "Habitación creada", description: name });
    const id = (await (await callRoute(page.loader, pageRequest("/admin/habitaciones", cookie))).json()).rooms.find((room: { name: string }) => room.name === name)._id;

    const invalid = await callRoute(page.action, formPost("/admin/habitaciones?modal=new", cookie, { intent: "create-room", name: "", floor: "x", roomType: "doble", status: "available" }));
    expect(invalid.status).toBe(400);
    const taken = await callRoute(page.action, formPost("/admin/habitaciones?modal=new", cookie, { intent: "create-room", name: "201", floor: "2", roomType: "doble", status: "available" }));
    expect(taken.status).toBe(409);
    expect(await toastOf(taken)).toMatchObject({ type: "error", description: "Ya existe una habitación con ese nombre" });

    const edited = await callRoute(page.action, formPost(`/admin/habitaciones?modal=edit&room=${id}`, cookie, { intent: "update-room", id, name, floor: "6", roomType: "suite", status: "out-of-service", notes: "Reformada" }));
    expect(await toastOf(edited)).toMatchObject({ title: "Habitación actualizada" });
    const modal = await (await callRoute(page.loader, pageRequest(`/admin/habitaciones?modal=edit&room=${id}`, cookie))).json();
    expect(modal.modal.room).toMatchObject({ floor: 6, roomType: "suite", notes: "Reformada" });

    const deleted = await callRoute(page.action, formPost(`/admin/habitaciones?modal=delete&room=${id}`, cookie, { intent: "delete-room", id }));
    expect(await toastOf(deleted)).toMatchObject({ title: "Habitación eliminada", description: name });
    expect((await callRoute(page.loader, pageRequest("/admin/habitaciones", await sessionCookie(resident.id)))).status).toBe(302);
  });
});
