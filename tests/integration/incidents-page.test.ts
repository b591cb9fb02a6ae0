// /admin/incidents as Remix calls it: one list over the three sources of the
// store (public fault reports, residents' reports, door incidents) with its
// filters and stats, and each form's answer. Counts are compared before and
// after each test's own rows, so tests never depend on each other's.
import { beforeAll, describe, expect, it } from "vitest";
import { getIncidentById } from "~/models/incident.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import * as page from "~/routes/admin.incidents";
import { reportPublicIncident } from "~/services/visitor.server";
import { reportDoorIncident } from "~/services/doors.server";
import { createTestDoor, createTestResidentIncident, createTestUser, sessionCookie, toastOf } from "../setup/fixtures";
import { callRoute } from "../setup/route";

let admin: Awaited<ReturnType<typeof createTestUser>>;
let adminCookie: string;
let residentCookie: string;

beforeAll(async () => {
  admin = await createTestUser({ role: "admin", username: `admin-${Date.now()}` });
  adminCookie = await sessionCookie(admin.id);
  residentCookie = await sessionCookie((await createTestUser()).id);
});

type IncidentView = { _id: string; title: string; source: string; status: string; reporter: { name: string; floor: string | null; unit: string | null }; doorName: string | null; photos: Array<{ id: string; url: string }> };
type PageData = {
  incidents: IncidentView[];
  stats: { total: number; open: number; inProgress: number; resolved: number };
  total: number;
  page: number;
  pages: number;
  filters: Record<string, string>;
  modal: { name: string | null; incident: IncidentView | null };
};

async function load(search = "", cookie = adminCookie) {
  return callRoute(page.loader, new Request(`http://localhost/admin/incidents${search}`, { headers: { Cookie: cookie } }));
}

async function data(search = ""): Promise<PageData> {
  const response = await load(search);
  expect(response.status).toBe(200);
  return response.json();
}

async function post(fields: Record<string, string>, search = "") {
  return callRoute(
    page.action,
    new Request(`http://localhost/admin/incidents${search}`, {
      method: "POST",
      headers: { Cookie: adminCookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }),
  );
}

describe("guard", () => {
  it("sends residents and visitors away from the page and its actions", async () => {
    expect((await load("", residentCookie)).headers.get("Location")).toBe("/");
    expect((await load("", "")).headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fincidents");
    const action = await callRoute(
      page.action,
      new Request("http://localhost/admin/incidents", {
        method: "POST",
        headers: { Cookie: residentCookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "delete-incident", id: "x" }),
      }),
    );
    expect(action.headers.get("Location")).toBe("/");
  });
});

describe("one list for every source", () => {
  it("shows a public fault report, a resident's report and a door incident, with working filters and stats", async () => {
    const before = await data();
    const door = await createTestDoor({ name: "Garaje norte", location: "Sótano" });
    const resident = await createTestUser({ firstName: "Lucía", lastName: "Suárez", unitNumber: "4C" });
    const reporterName = `Vecino ${Date.now()}`;

    expect(await reportPublicIncident({ nombre: reporterName, departamento: "3", tipo: "electrico", ubicacion: "Escalera", descripcion: "No hay luz", urgencia: "emergencia" }, { ip: "192.0.2.77" })).toEqual({ ok: true, stored: true });
    const residents = await createTestResidentIncident(resident, { title: "Humedad en el techo", category: "structural", urgency: "low", photos: ["p1.jpg"] });
    const doorIncident = await reportDoorIncident(door.id, { type: "hardware", urgency: "high", title: "Lector roto" }, admin);
    if (!doorIncident.ok) throw new Error(doorIncident.message);

    const after = await data();
    expect(after.stats.total - before.stats.total).toBe(3);
    expect(after.stats.open - before.stats.open).toBe(3);
    const newest = after.incidents.slice(0, 3);
    expect(newest.map((incident) => incident.source)).toEqual(["door", "resident", "public"]);
    expect(newest[0]).toMatchObject({ title: "Lector roto", doorName: "Garaje norte", reporter: { name: admin.username } });
    expect(newest[1]).toMatchObject({
      title: "Humedad en el techo",
      reporter: { name: "Lucía Suárez", unit: "4C", floor: null },
      photos: [{ id: "p1.jpg", url: `/api/user-portal/incidents/${residents.id}/photos/p1.jpg` }],
    });
    expect(newest[2]).toMatchObject({ title: "Avería eléctrica · Escalera", reporter: { name: reporterName, floor: "3", unit: null }, photos: [] });

    // Filters: the door (by its hardware code; its row id still works for one release), the type, the urgency, the status.
    const byDoor = await data(`?doorId=${door.code}`);
    expect(byDoor.incidents.map((incident) => incident._id)).toEqual([doorIncident.incident.id]);
    expect(byDoor.stats).toEqual({ total: 1, open: 1, inProgress: 0, resolved: 0, closed: 0, cancelled: 0 });
    expect((await data(`?doorId=${door.id}`)).total).toBe(1);
    const critical = await data("?urgency=critical&type=maintenance");
    expect(critical.incidents.map((incident) => incident.reporter.name)).toContain(reporterName);
    expect(critical.incidents.every((incident) => incident.source !== "door")).toBe(true);
    expect((await data("?urgency=low&type=maintenance")).incidents.map((incident) => incident._id)).toContain(residents.id);

    const advanced = await post({ intent: "advance-status", id: residents.id, status: "in-progress" });
    expect(advanced.status).toBe(302);
    const inProgress = await data("?status=in-progress");
    expect(inProgress.incidents.map((incident) => incident._id)).toContain(residents.id);
    expect(inProgress.incidents.every((incident) => incident.status === "in-progress")).toBe(true);
    // The stats keep counting every status while one is filtered.
    expect(inProgress.stats.total).toBe(after.stats.total);
    expect(inProgress.stats.inProgress - after.stats.inProgress).toBe(1);
    expect(inProgress.total).toBe(inProgress.stats.inProgress);

    // A value nobody could pick drops only that filter.
    const odd = await data(`?status=sideways&doorId=${door.id}`);
    expect(odd.filters).toEqual({ doorId: door.id });
    expect(odd.total).toBe(1);
  });

  it("pages by 20, newest first, and clamps a page past the last", async () => {
    const door = await createTestDoor();
    for (let i = 0; i < 21; i++) {
      const reported = await reportDoorIncident(door.id, { type: "network", urgency: "medium", title: `Corte ${i}` }, admin);
      expect(reported.ok).toBe(true);
    }
    const first = await data(`?doorId=${door.id}`);
    expect(first).toMatchObject({ total: 21, page: 1, pages: 2 });
    expect(first.incidents).toHaveLength(20);
    expect(first.incidents[0]!.title).toBe("Corte 20");
    const second = await data(`?doorId=${door.id}&page=9`);
    expect(second.page).toBe(2);
    expect(second.incidents.map((incident) => incident.title)).toEqual(["Corte 0"]);
  });
});

describe("actions", () => {
  it("creates an incident with the door chosen and urgency medium by default; missing fields get the messages", async () => {
    const door = await createTestDoor({ name: "Trastero", location: "Planta -1" });
    const empty = await post({ intent: "create-incident", title: " ", type: "", doorId: "", urgency: "" }, "?modal=new");
    expect(empty.status).toBe(400);
    const errors = (await empty.json()).result.error;
    expect(errors).toMatchObject({ title: ["El título es requerido"], type: ["El tipo es requerido"], doorId: ["La puerta es requerida"] });

    const unknownDoor = await post({ intent: "create-incident", title: "Puerta atascada", type: "access", doorId: "nope" }, "?modal=new");
    expect(unknownDoor.status).toBe(404);
    expect(await toastOf(unknownDoor)).toMatchObject({ type: "error", title: "Error", description: "No se pudo crear la incidencia: La puerta no existe" });

    const created = await post({ intent: "create-incident", title: "Puerta atascada", type: "access", doorId: door.code, description: "Cuesta abrirla" }, `?type=access&modal=new`);
    expect(created.status).toBe(302);
    expect(created.headers.get("Location")).toBe("/admin/incidents?type=access");
    expect(await toastOf(created)).toMatchObject({ type: "success", title: "Incidencia Creada", description: "Puerta atascada" });
    const [incident] = (await data(`?doorId=${door.code}`)).incidents;
    expect(incident).toMatchObject({ title: "Puerta atascada", source: "door", status: "open", doorName: "Trastero", doorId: door.code });
    expect((await getIncidentById(incident!._id))?.urgency).toBe("medium");
  });

  it("edits title, type, status, urgency and description; refuses a status outside the four", async () => {
    const door = await createTestDoor();
    const reported = await reportDoorIncident(door.id, { type: "other", urgency: "low" }, admin);
    if (!reported.ok) throw new Error();
    const id = reported.incident.id;
    const opened = await data(`?modal=edit&incident=${id}`);
    expect(opened.modal.incident?._id).toBe(id);

    const bad = await post({ intent: "update-incident", id, title: "X", type: "other", status: "cancelled", urgency: "low" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).result.error.status).toEqual(["El estado es requerido"]);

    const saved = await post(
      { intent: "update-incident", id, title: "  Cable suelto ", type: "network", status: "resolved", urgency: "critical", description: "" },
      `?modal=edit&incident=${id}`,
    );
    expect(saved.headers.get("Location")).toBe("/admin/incidents");
    expect(await toastOf(saved)).toMatchObject({ title: "Incidencia Actualizada", description: "Cable suelto" });
    expect(await getIncidentById(id)).toMatchObject({ title: "Cable suelto", type: "network", status: "resolved", urgency: "critical", description: null });

    const gone = await post({ intent: "update-incident", id: "nope", title: "X", type: "other", status: "open", urgency: "low" });
    expect(gone.status).toBe(404);
    expect(await toastOf(gone)).toMatchObject({ title: "Error", description: "No se pudo actualizar la incidencia: Incidencia no encontrada" });
  });

  it("advances the status with the SPEC's toast and keeps the filters", async () => {
    const door = await createTestDoor();
    const reported = await reportDoorIncident(door.id, { type: "hardware", urgency: "low" }, admin);
    if (!reported.ok) throw new Error();
    const id = reported.incident.id;
    const labels = { "in-progress": "En Progreso", resolved: "Resuelta", closed: "Cerrada", open: "Abierta" } as const;
    for (const status of ["in-progress", "resolved", "closed", "open"] as const) {
      const response = await post({ intent: "advance-status", id, status }, `?doorId=${door.id}&index`);
      expect(response.headers.get("Location")).toBe(`/admin/incidents?doorId=${door.id}`);
      expect(await toastOf(response)).toMatchObject({ type: "success", title: "Estado Actualizado", description: `Incidencia marcada como ${labels[status]}` });
      expect((await getIncidentById(id))?.status).toBe(status);
    }
    const refused = await post({ intent: "advance-status", id: "nope", status: "resolved" });
    expect(refused.status).toBe(404);
    expect(await toastOf(refused)).toMatchObject({ title: "Error", description: "No se pudo actualizar el estado: Incidencia no encontrada" });
  });

  it("tells a resident when an admin changes their incident's status, and nobody else", async () => {
    const resident = await createTestUser();
    const incident = await createTestResidentIncident(resident, { title: "Ventana rota" });
    await post({ intent: "advance-status", id: incident.id, status: "in-progress" });
    await post({ intent: "update-incident", id: incident.id, title: "Ventana rota", type: "maintenance", status: "resolved", urgency: "medium" });
    // An edit that keeps the status tells nothing.
    await post({ intent: "update-incident", id: incident.id, title: "Ventana rota (salón)", type: "maintenance", status: "resolved", urgency: "high" });
    const notifications = await listNotificationsOfUser(resident.id);
    expect(notifications.map((n) => [n.type, n.title, n.message])).toEqual([
      ["incident", "Incidencia actualizada", "Tu incidencia «Ventana rota» está ahora resuelta."],
      ["incident", "Incidencia actualizada", "Tu incidencia «Ventana rota» está ahora en progreso."],
    ]);

    // A door incident's reporter is the admin: no notification for them.
    const door = await createTestDoor();
    const reported = await reportDoorIncident(door.id, { type: "hardware", urgency: "low" }, admin);
    if (!reported.ok) throw new Error();
    await post({ intent: "advance-status", id: reported.incident.id, status: "in-progress" });
    expect(await listNotificationsOfUser(admin.id)).toEqual([]);
  });

  it("deletes after the confirmation, closing the modal", async () => {
    const door = await createTestDoor();
    const reported = await reportDoorIncident(door.id, { type: "hardware", urgency: "low", title: "Sobra" }, admin);
    if (!reported.ok) throw new Error();
    const id = reported.incident.id;
    const deleted = await post({ intent: "delete-incident", id }, `?urgency=low&modal=delete&incident=${id}`);
    expect(deleted.headers.get("Location")).toBe("/admin/incidents?urgency=low");
    expect(await toastOf(deleted)).toMatchObject({ title: "Incidencia Eliminada", description: "Sobra" });
    expect(await getIncidentById(id)).toBeNull();
    const again = await post({ intent: "delete-incident", id });
    expect(again.status).toBe(404);
    expect(await toastOf(again)).toMatchObject({ title: "Error", description: "No se pudo eliminar la incidencia: Incidencia no encontrada" });
    const missing = await data(`?modal=delete&incident=${id}`);
    expect(missing.modal).toEqual({ name: "delete", incident: null });
  });
});
