// /api/incidents*: admin only (bearer or the admin's cookie), SPEC §3 admin
// incident JSON, status codes and the Spanish messages of every refusal.
import { beforeAll, describe, expect, it } from "vitest";
import { getIncidentById } from "~/models/incident.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import * as listRoute from "~/routes/api.incidents";
import * as incidentRoute from "~/routes/api.incidents.$id";
import * as statusRoute from "~/routes/api.incidents.$id.status";
import { deleteDoor, updateDoor } from "~/services/doors.server";
import { createApiCallers, createTestDoor, createTestPublicIncident, createTestResidentIncident, createTestUser, sessionCookie } from "../setup/fixtures";
import { callApi, type ApiCall, type ApiRoute } from "../setup/route";

let admin: Awaited<ReturnType<typeof createTestUser>>;
let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  ({ admin, adminToken, residentToken } = await createApiCallers());
});

/** Calls an API route function with the admin's token unless told otherwise. */
const call = (fn: ApiRoute, path: string, options: ApiCall = {}) => callApi(fn, path, { token: adminToken, ...options });

const ROUTES = [
  { name: "GET /api/incidents", fn: listRoute.loader, path: "/api/incidents", method: "GET", params: {} },
  { name: "POST /api/incidents", fn: listRoute.action, path: "/api/incidents", method: "POST", params: {}, body: { title: "x", type: "other", doorId: "d" } },
  { name: "GET /api/incidents/{id}", fn: incidentRoute.loader, path: "/api/incidents/x", method: "GET", params: { id: "x" } },
  { name: "PUT /api/incidents/{id}", fn: incidentRoute.action, path: "/api/incidents/x", method: "PUT", params: { id: "x" }, body: { title: "x" } },
  { name: "DELETE /api/incidents/{id}", fn: incidentRoute.action, path: "/api/incidents/x", method: "DELETE", params: { id: "x" } },
  { name: "PUT /api/incidents/{id}/status", fn: statusRoute.action, path: "/api/incidents/x/status", method: "PUT", params: { id: "x" }, body: { status: "open" } },
] as const;

describe("authentication", () => {
  for (const route of ROUTES) {
    it(`${route.name}: 401 without a token or with a bad one, 403 with a resident's token`, async () => {
      const body = "body" in route ? route.body : undefined;
      const options = { method: route.method, params: route.params, body };
      expect(await call(route.fn, route.path, { ...options, token: null })).toEqual({ status: 401, body: { success: false, error: { message: "No autenticado" } } });
      expect(await call(route.fn, route.path, { ...options, token: "nope" })).toEqual({
        status: 401,
        body: { success: false, error: { message: "Token inválido o expirado" } },
      });
      expect(await call(route.fn, route.path, { ...options, token: residentToken })).toEqual({ status: 403, body: { success: false, error: { message: "Acceso denegado" } } });
    });
  }

  it("accepts the admin's session cookie, and refuses its cross-site mutations", async () => {
    const cookie = await sessionCookie(admin.id);
    const list = await call(listRoute.loader, "/api/incidents", { token: null, headers: { Cookie: cookie } });
    expect(list.status).toBe(200);
    const crossSite = await call(listRoute.action, "/api/incidents", {
      method: "POST",
      token: null,
      headers: { Cookie: cookie, Origin: "https://evil.example" },
      body: { title: "x", type: "other", doorId: "d" },
    });
    expect(crossSite.status).toBe(403);
  });

  it("answers 405 for other methods, after the guard", async () => {
    expect((await call(listRoute.action, "/api/incidents", { method: "PATCH" })).status).toBe(405);
    expect((await call(statusRoute.loader, "/api/incidents/x/status", { params: { id: "x" } })).status).toBe(405);
    expect((await call(statusRoute.action, "/api/incidents/x/status", { method: "POST", params: { id: "x" }, body: {} })).status).toBe(405);
    expect((await call(statusRoute.loader, "/api/incidents/x/status", { params: { id: "x" }, token: null })).status).toBe(401);
  });
});

describe("GET /api/incidents", () => {
  it("lists every source with data.incidents, data.stats and data.total, filtered by status, type, urgency and doorId", async () => {
    const door = await createTestDoor({ name: "Ascensor", location: "Núcleo" });
    const resident = await createTestUser({ firstName: "Iván", unitNumber: "1A" });
    const before = (await call(listRoute.loader, "/api/incidents")).body.data;
    await createTestPublicIncident({ nombre: "Carmen", departamento: "5", tipo: "limpieza", urgencia: "baja" });
    await createTestResidentIncident(resident, { title: "Grifo", category: "plumbing", urgency: "high" });
    const created = await call(listRoute.action, "/api/incidents", {
      method: "POST",
      body: { title: "Botón atascado", type: "hardware", doorId: door.code, urgency: "critical", description: "No baja" },
    });
    expect(created.status).toBe(201);

    const { body, status } = await call(listRoute.loader, "/api/incidents?page=1&limit=20");
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.total - before.total).toBe(3);
    expect(body.data.stats.total - before.stats.total).toBe(3);
    expect(Object.keys(body.data.stats).sort()).toEqual(["cancelled", "closed", "inProgress", "open", "resolved", "total"]);
    expect(body.data.incidents.slice(0, 3).map((i: { source: string }) => i.source)).toEqual(["door", "resident", "public"]);
    expect(body.data.incidents[0]).toMatchObject({
      _id: created.body.data._id,
      title: "Botón atascado",
      type: "hardware",
      status: "open",
      urgency: "critical",
      description: "No baja",
      doorId: door.code,
      doorName: "Ascensor",
      reportedBy: admin.username,
      source: "door",
    });
    expect(new Date(body.data.incidents[0].reportedAt).toISOString()).toBe(body.data.incidents[0].reportedAt);

    const byDoor = await call(listRoute.loader, `/api/incidents?doorId=${door.code}`);
    expect(byDoor.body.data.incidents.map((i: { _id: string }) => i._id)).toEqual([created.body.data._id]);
    const high = await call(listRoute.loader, "/api/incidents?urgency=high&type=maintenance&status=open&limit=100");
    expect(high.body.data.incidents.map((i: { title: string }) => i.title)).toContain("Grifo");
    expect(high.body.data.incidents.every((i: { urgency: string; type: string; status: string }) => i.urgency === "high" && i.type === "maintenance" && i.status === "open")).toBe(true);
    const pageTwo = await call(listRoute.loader, "/api/incidents?limit=1&page=2");
    expect(pageTwo.body.data).toMatchObject({ page: 2, limit: 1 });
    expect(pageTwo.body.data.incidents).toHaveLength(1);
  });

  it("answers 400 with Spanish messages for bad queries", async () => {
    expect((await call(listRoute.loader, "/api/incidents?status=done")).body.error.message).toBe(
      "status debe ser uno de: open, in-progress, resolved, closed, cancelled",
    );
    expect((await call(listRoute.loader, "/api/incidents?limit=500")).body.error.message).toBe("limit debe ser un número entre 1 y 100");
    expect((await call(listRoute.loader, "/api/incidents?page=0")).status).toBe(400);
  });
});

describe("doorId, the door's hardware code", () => {
  it("still takes the door's row id (the former doorId) in the body and the filter for one release, and answers the code", async () => {
    const door = await createTestDoor({ name: "Sótano", location: "Planta -1" });
    const created = await call(listRoute.action, "/api/incidents", { method: "POST", body: { title: "Fuga", type: "maintenance", doorId: door.id } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ doorId: door.code, doorName: "Sótano" });
    const byRowId = await call(listRoute.loader, `/api/incidents?doorId=${door.id}`);
    expect(byRowId.body.data.incidents.map((i: { _id: string; doorId: string }) => [i._id, i.doorId])).toEqual([[created.body.data._id, door.code]]);
  });

  it("answers the door's code as it is now, and null once the door is deleted", async () => {
    const door = await createTestDoor({ name: "Cuarto de bicis", location: "Patio" });
    const created = await call(listRoute.action, "/api/incidents", { method: "POST", body: { title: "Candado", type: "hardware", doorId: door.code } });
    const renamed = `${door.code}-b`;
    await updateDoor(door.id, { doorId: renamed });
    expect((await call(incidentRoute.loader, `/api/incidents/${created.body.data._id}`, { params: { id: created.body.data._id } })).body.data.doorId).toBe(renamed);
    await deleteDoor(door.id);
    expect((await call(incidentRoute.loader, `/api/incidents/${created.body.data._id}`, { params: { id: created.body.data._id } })).body.data).toMatchObject({
      doorId: null,
      doorName: "Cuarto de bicis",
    });
  });
});

describe("POST /api/incidents", () => {
  it("takes a door-level report's fields (doorId as the hardware code, doorName, status, reportedBy, reportedAt) and uses its own name, caller and time", async () => {
    const door = await createTestDoor({ name: "Portal", location: "Calle" });
    const started = Date.now();
    const { status, body } = await call(listRoute.action, "/api/incidents", {
      method: "POST",
      body: { doorId: door.code, doorName: "Otro nombre", type: "access", description: "Tarjeta rechazada", urgency: "medium", status: "open", reportedBy: "admin", reportedAt: "2001-01-01T00:00:00Z" },
    });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ doorId: door.code, doorName: "Portal", type: "access", status: "open", reportedBy: admin.username, title: "Problema de acceso · Portal" });
    expect(Date.parse(body.data.reportedAt)).toBeGreaterThanOrEqual(started - 1000);
  });

  it("answers 400 with the SPEC's required fields, 404 for an unknown door", async () => {
    const missing = await call(listRoute.action, "/api/incidents", { method: "POST", body: { title: "x" } });
    expect(missing).toEqual({ status: 400, body: { success: false, error: { message: "El tipo es requerido, La puerta es requerida" } } });
    const door = await call(listRoute.action, "/api/incidents", { method: "POST", body: { title: "x", type: "other", doorId: "nope" } });
    expect(door).toEqual({ status: 404, body: { success: false, error: { message: "La puerta no existe" } } });
    const status = await call(listRoute.action, "/api/incidents", { method: "POST", body: { type: "other", doorId: "nope", status: "cancelled" } });
    expect(status.body.error.message).toBe("El estado es requerido");
  });
});

describe("PUT, status and DELETE", () => {
  it("edits with the required fields, changes the status (telling a resident), and deletes", async () => {
    const resident = await createTestUser();
    const incident = await createTestResidentIncident(resident, { title: "Persiana" });
    const params = { id: incident.id };
    const path = `/api/incidents/${incident.id}`;

    const incomplete = await call(incidentRoute.action, path, { method: "PUT", params, body: { title: "Persiana", type: "maintenance" } });
    expect(incomplete).toEqual({ status: 400, body: { success: false, error: { message: "El estado es requerido, La urgencia es requerida" } } });
    const edited = await call(incidentRoute.action, path, {
      method: "PUT",
      params,
      body: { title: "Persiana atascada", type: "maintenance", status: "open", urgency: "high", description: "Dormitorio" },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ title: "Persiana atascada", urgency: "high", description: "Dormitorio", source: "resident" });
    expect(await listNotificationsOfUser(resident.id)).toEqual([]);

    const read = await call(incidentRoute.loader, path, { params });
    expect(read.body.data.title).toBe("Persiana atascada");

    const badStatus = await call(statusRoute.action, `${path}/status`, { method: "PUT", params, body: { status: "done" } });
    expect(badStatus).toEqual({ status: 400, body: { success: false, error: { message: "El estado es requerido" } } });
    const changed = await call(statusRoute.action, `${path}/status`, { method: "PUT", params, body: { status: "resolved" } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.status).toBe("resolved");
    const [notification] = await listNotificationsOfUser(resident.id);
    expect(notification).toMatchObject({ type: "incident", message: "Tu incidencia «Persiana atascada» está ahora resuelta." });

    const deleted = await call(incidentRoute.action, path, { method: "DELETE", params });
    expect(deleted).toEqual({ status: 200, body: { success: true, data: { _id: incident.id } } });
    expect(await getIncidentById(incident.id)).toBeNull();
    const notFound = { status: 404, body: { success: false, error: { message: "Incidencia no encontrada" } } };
    expect(await call(incidentRoute.action, path, { method: "DELETE", params })).toEqual(notFound);
    expect(await call(incidentRoute.loader, path, { params })).toEqual(notFound);
    expect(await call(statusRoute.action, `${path}/status`, { method: "PUT", params, body: { status: "open" } })).toEqual(notFound);
  });
});
