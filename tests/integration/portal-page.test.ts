// /portal as Remix calls it: the guard, the page's data (the resident's own
// only), the URL-state modals' data, each form's answer (a redirect to
// /portal with the SPEC's toast, or the refusal with its message and error
// toast), and a card whose data cannot be read.
import { describe, expect, it } from "vitest";
import { insertBuildingReading } from "~/models/building-reading.server";
import { getIncidentById } from "~/models/incident.server";
import { getUserById, verifyLogin } from "~/models/user.server";
import * as page from "~/routes/portal";
import { createResidentBooking, listResidentBookings } from "~/services/facility-bookings.server";
import { notifyUser } from "~/services/notifications.server";
import { reportResidentIncident } from "~/services/resident-incidents.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { createTestFacility, createTestResident, sessionCookie, TINY_PNG, toastOf } from "../setup/fixtures";
import { callRoute } from "../setup/route";

async function resident(fields: Parameters<typeof createTestResident>[0] = {}) {
  const user = await createTestResident(fields);
  return { user, cookie: await sessionCookie(user.id) };
}

function load(cookie: string, search = "") {
  return callRoute(page.loader, new Request(`http://localhost/portal${search}`, { headers: { Cookie: cookie } }));
}

function post(cookie: string, fields: Record<string, string> | FormData, search = "") {
  const body = fields instanceof FormData ? fields : new URLSearchParams(fields);
  return callRoute(
    page.action,
    new Request(`http://localhost/portal${search}`, { method: "POST", headers: { Cookie: cookie, Origin: "http://localhost" }, body }),
  );
}

const day = (days: number) => addDays(todayInMadrid(), days);

describe("guard", () => {
  it("sends visitors to the login, and refuses a cross-site post", async () => {
    expect((await load("")).headers.get("Location")).toBe("/login?redirectTo=%2Fportal");
    const { cookie } = await resident();
    const crossSite = await callRoute(
      page.action,
      new Request("http://localhost/portal", {
        method: "POST",
        headers: { Cookie: cookie, Origin: "https://evil.example" },
        body: new URLSearchParams({ intent: "mark-notifications-read" }),
      }),
    );
    expect(crossSite.status).toBe(403);
  });
});

describe("loader", () => {
  it("shows the resident's name, unit and building, and only their own bookings, incidents and notifications", async () => {
    const ana = await resident({ firstName: "Ana", unitNumber: "3B", buildingName: "Casa Norte" });
    const ben = await resident();
    const facility = await createTestFacility("gym");
    await createResidentBooking(ana.user, { facilityType: "gym", facilityId: facility.id, date: day(2), startTime: "10:00", duration: 1 });
    await createResidentBooking(ben.user, { facilityType: "gym", facilityId: facility.id, date: day(3), startTime: "10:00", duration: 1 });
    await reportResidentIncident(ana.user, { title: "Persiana rota", category: "structural", location: "Salón", description: "No baja", priority: "low" });
    await notifyUser(ana.user.id, { type: "info", title: "Hola", message: "Bienvenida" });
    await notifyUser(ben.user.id, { type: "info", title: "Otro", message: "No es tuyo" });

    const body = await (await load(ana.cookie)).json();
    expect(body.profile).toMatchObject({ firstName: "Ana", unitNumber: "3B", buildingName: "Casa Norte" });
    expect(body.profile).not.toHaveProperty("passwordHash");
    expect(body.bookings.data.map((b: { facilityName: string }) => b.facilityName)).toEqual([facility.name]);
    expect(body.incidents.data.map((i: { title: string }) => i.title)).toEqual(["Persiana rota"]);
    expect(body.notifications.data).toMatchObject({ unread: 1, notifications: [{ title: "Hola" }] });
    expect(body.modal).toEqual({ name: null, booking: null, incident: null, visitorPass: null });
  });

  it("loads the open modal's booking or incident only when it is the resident's", async () => {
    const ana = await resident();
    const ben = await resident();
    const facility = await createTestFacility("pool");
    const booking = await createResidentBooking(ana.user, { facilityType: "pool", facilityId: facility.id, date: day(4), startTime: "09:00", duration: 1 });
    if (!booking.ok) throw new Error(booking.message);
    const mine = await (await load(ana.cookie, `?modal=cancelar-reserva&reserva=${booking.booking._id}`)).json();
    expect(mine.modal.booking._id).toBe(booking.booking._id);
    const theirs = await (await load(ben.cookie, `?modal=cancelar-reserva&reserva=${booking.booking._id}`)).json();
    expect(theirs.modal).toEqual({ name: "cancelar-reserva", booking: null, incident: null, visitorPass: null });
    const reservar = await (await load(ana.cookie, "?modal=reservar")).json();
    expect(reservar.facilities.map((f: { name: string }) => f.name)).toContain("Sala de Reuniones A");
    expect(reservar.bookingDates).toEqual({ min: todayInMadrid(), max: day(90) });
    expect((await (await load(ana.cookie, "?modal=otra")).json()).modal.name).toBeNull();
  });

  // Issue 40, point 16: never the SPEC's made-up defaults; the latest reading, stale past 30 minutes
  // (tests/integration/portal-building.test.ts: with no reading at all, and as rendered).
  it("shows the sensor's latest reading, an old one marked stale", async () => {
    const { cookie } = await resident();
    const old = new Date(Date.now() - 2 * 3600_000);
    await insertBuildingReading({ temperature: 19.5, humidity: 60, wifiStatus: "Conectado", recordedAt: old });
    const stale = await (await load(cookie)).json();
    expect(stale.building.data).toEqual({ reading: { temperature: 19.5, humidity: 60, wifiStatus: "Conectado", recordedAt: old.toISOString(), stale: true } });
    const recordedAt = new Date(Date.now() - 10 * 60_000);
    await insertBuildingReading({ temperature: 23.4, humidity: 51, wifiStatus: "Sin conexión", recordedAt });
    const fresh = await (await load(cookie)).json();
    expect(fresh.building.data).toEqual({ reading: { temperature: 23.4, humidity: 51, wifiStatus: "Sin conexión", recordedAt: recordedAt.toISOString(), stale: false } });
  });
});

describe("actions", () => {
  it("creates a booking with 'Reserva Creada', and refuses a clash with 'No se pudo crear la reserva' naming the slot", async () => {
    const ana = await resident();
    const facility = await createTestFacility("meeting-room", "Sala Página");
    const fields = { intent: "create-booking", facilityType: "meeting-room", facilityId: facility.id, date: day(6), startTime: "17:00", duration: "2", notes: "" };
    const created = await post(ana.cookie, fields, "?modal=reservar");
    expect(created.status).toBe(302);
    expect(created.headers.get("Location")).toBe("/portal");
    expect(await toastOf(created)).toMatchObject({ type: "success", title: "Reserva Creada" });

    const clash = await post(ana.cookie, { ...fields, startTime: "18:00", duration: "1" }, "?modal=reservar");
    expect(clash.status).toBe(409);
    const reply = await clash.json();
    expect(reply.intent).toBe("create-booking");
    const message = `Sala Página ya está reservada de ${day(6).split("-").reverse().join("/")}, 17:00–19:00. Elige otro horario.`;
    expect(reply.result.error[""]).toEqual([message]);
    expect(await toastOf(clash)).toMatchObject({ type: "error", title: "No se pudo crear la reserva", description: message });

    const invalid = await post(ana.cookie, { intent: "create-booking", facilityType: "", facilityId: "", date: "", startTime: "", duration: "3" });
    expect(invalid.status).toBe(400);
    const errors = (await invalid.json()).result.error;
    expect(errors).toMatchObject({
      facilityType: ["El tipo de instalación es requerido"],
      facilityId: ["La instalación es requerida"],
      date: ["La fecha es requerida"],
      startTime: ["La hora de inicio es requerida"],
      duration: ["La duración debe ser de 1, 2, 4 u 8 horas"],
    });
    expect(await toastOf(invalid)).toMatchObject({ type: "error", title: "No se pudo crear la reserva" });
    expect(await listResidentBookings(ana.user)).toHaveLength(1);
  });

  it("cancels the resident's booking with 'Reserva Cancelada'; another resident's answers 404", async () => {
    const ana = await resident();
    const ben = await resident();
    const facility = await createTestFacility("gym");
    const booking = await createResidentBooking(ana.user, { facilityType: "gym", facilityId: facility.id, date: day(3), startTime: "08:00", duration: 1 });
    if (!booking.ok) throw new Error(booking.message);
    const foreign = await post(ben.cookie, { intent: "cancel-booking", id: booking.booking._id });
    expect(foreign.status).toBe(404);
    expect(await toastOf(foreign)).toMatchObject({ type: "error", title: "No se pudo cancelar la reserva", description: "Reserva no encontrada" });
    const cancelled = await post(ana.cookie, { intent: "cancel-booking", id: booking.booking._id });
    expect(cancelled.status).toBe(302);
    expect(await toastOf(cancelled)).toMatchObject({ type: "success", title: "Reserva Cancelada" });
  });

  it("reports an incident with photos (multipart) with 'Incidencia Reportada'; a text file named .png is refused keeping what was typed", async () => {
    const ana = await resident();
    const form = new FormData();
    for (const [name, value] of Object.entries({ intent: "report-incident", title: "Mancha de humedad", category: "structural", location: "Dormitorio", description: "En el techo", priority: "medium" })) {
      form.append(name, value);
    }
    form.append("photos", new Blob([TINY_PNG], { type: "image/png" }), "techo.png");
    const reported = await post(ana.cookie, form, "?modal=reportar");
    expect(reported.status).toBe(302);
    expect(await toastOf(reported)).toMatchObject({ type: "success", title: "Incidencia Reportada" });

    const bad = new FormData();
    for (const [name, value] of Object.entries({ intent: "report-incident", title: "Falsa foto", category: "other", location: "Cocina", description: "x", priority: "low" })) {
      bad.append(name, value);
    }
    bad.append("photos", new Blob(["no soy una imagen"], { type: "image/png" }), "falsa.png");
    const refused = await post(ana.cookie, bad, "?modal=reportar");
    expect(refused.status).toBe(415);
    const reply = await refused.json();
    expect(reply.result.error.photos).toEqual(["falsa.png: Solo se admiten fotos JPEG, PNG o WebP"]);
    expect(reply.result.initialValue).toMatchObject({ title: "Falsa foto", location: "Cocina" });
    expect(await toastOf(refused)).toMatchObject({ type: "error", title: "No se pudo enviar el reporte" });
    const tooLarge = new FormData();
    tooLarge.append("intent", "report-incident");
    tooLarge.append("description", "x".repeat(70 * 1024));
    const unread = await post(ana.cookie, tooLarge, "?modal=reportar");
    expect(unread.status).toBe(413);
    expect(await toastOf(unread)).toMatchObject({ type: "error", title: "No se pudo enviar el reporte", description: "La solicitud es demasiado grande" });
    const titles = (await getDb().$client.execute({ sql: "SELECT title FROM incidents WHERE reported_by_id = ?", args: [ana.user.id] })).rows.map((r) => r.title);
    expect(titles).toEqual(["Mancha de humedad"]);
  });

  it("edits with 'Incidencia Actualizada' and cancels with 'Incidencia Cancelada'", async () => {
    const ana = await resident();
    const reported = await reportResidentIncident(ana.user, { title: "Enchufe", category: "electrical", location: "Cocina", description: "Chispas", priority: "high" });
    if (!reported.ok) throw new Error(reported.message);
    const id = reported.incident._id;
    const edited = await post(ana.cookie, { intent: "edit-incident", id, title: "Enchufe quemado", category: "electrical", location: "Cocina", description: "Chispas", priority: "critical" });
    expect(await toastOf(edited)).toMatchObject({ type: "success", title: "Incidencia Actualizada" });
    expect(await getIncidentById(id)).toMatchObject({ title: "Enchufe quemado", urgency: "critical" });
    const cancelled = await post(ana.cookie, { intent: "cancel-incident", id });
    expect(await toastOf(cancelled)).toMatchObject({ type: "success", title: "Incidencia Cancelada" });
    const again = await post(ana.cookie, { intent: "cancel-incident", id });
    expect(again.status).toBe(409);
    expect(await toastOf(again)).toMatchObject({ type: "error", title: "No se pudo cancelar la incidencia", description: "Solo se pueden cancelar incidencias abiertas" });
  });

  it("marks every notification read with 'Notificaciones'", async () => {
    const ana = await resident();
    await notifyUser(ana.user.id, { type: "info", title: "Uno", message: "1" });
    await notifyUser(ana.user.id, { type: "info", title: "Dos", message: "2" });
    const marked = await post(ana.cookie, { intent: "mark-notifications-read" });
    expect(await toastOf(marked)).toMatchObject({ type: "success", title: "Notificaciones" });
    expect((await (await load(ana.cookie)).json()).notifications.data.unread).toBe(0);
  });

  it("updates the profile, and changes the password only with the current one", async () => {
    const ana = await resident({ firstName: "Ana" });
    const anaElsewhere = await sessionCookie(ana.user.id);
    const updated = await post(ana.cookie, { intent: "update-profile", firstName: "Anabel", lastName: "Ruiz", email: "ANABEL@example.com", phone: "+34 600 111 222" });
    expect(await toastOf(updated)).toMatchObject({ type: "success", title: "Perfil actualizado" });
    expect(await getUserById(ana.user.id)).toMatchObject({ firstName: "Anabel", lastName: "Ruiz", email: "anabel@example.com", phone: "+34 600 111 222" });
    const ben = await resident();
    const taken = await post(ben.cookie, { intent: "update-profile", firstName: "Ben", email: "anabel@example.com" });
    expect(taken.status).toBe(409);
    expect((await taken.json()).result.error.email).toEqual(["Ese email ya está en uso"]);

    const wrong = await post(ana.cookie, { intent: "change-password", currentPassword: "no-es-esta", newPassword: "nueva-clave-1", confirmPassword: "nueva-clave-1" });
    expect(wrong.status).toBe(400);
    const reply = await wrong.json();
    expect(reply.result.error.currentPassword).toEqual(["La contraseña actual no es correcta"]);
    expect(JSON.stringify(reply)).not.toContain("nueva-clave-1");
    const short = await post(ana.cookie, { intent: "change-password", currentPassword: "secreto-123", newPassword: "corta", confirmPassword: "otra" });
    expect((await short.json()).result.error).toMatchObject({
      newPassword: ["La contraseña debe tener al menos 10 caracteres"],
      confirmPassword: ["Las contraseñas no coinciden"],
    });
    const changed = await post(ana.cookie, { intent: "change-password", currentPassword: "secreto-123", newPassword: "nueva-clave-1", confirmPassword: "nueva-clave-1" });
    expect(await toastOf(changed)).toMatchObject({ type: "success", title: "Contraseña actualizada" });
    expect((await verifyLogin(ana.user.username, "nueva-clave-1")).ok).toBe(true);
    // The browser that changed it stays signed in; her other sessions end.
    expect((await load(ana.cookie)).status).toBe(200);
    expect((await load(anaElsewhere)).status).toBe(302);
  });
});

describe("a card whose data cannot be read", () => {
  it("shows its SPEC message while the rest of the page works", async () => {
    const ana = await resident();
    await notifyUser(ana.user.id, { type: "info", title: "Visible", message: "x" });
    await getDb().$client.execute("ALTER TABLE incidents RENAME TO incidents_away");
    try {
      const body = await (await load(ana.cookie)).json();
      expect(body.incidents).toEqual({ ok: false, message: "No se pudieron cargar las incidencias" });
      expect(body.notifications.data.notifications[0].title).toBe("Visible");
    } finally {
      await getDb().$client.execute("ALTER TABLE incidents_away RENAME TO incidents");
    }
  });
});
