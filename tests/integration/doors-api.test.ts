import { beforeAll, describe, expect, it, vi } from "vitest";
import * as credentialsRoute from "~/routes/api.doors.$id.credentials";
import * as messagesRoute from "~/routes/api.doors.$id.messages";
import * as doorRoute from "~/routes/api.doors.$id";
import * as statsRoute from "~/routes/api.doors.stats";
import * as doorsRoute from "~/routes/api.doors";
import { getDoorById } from "~/models/door.server";
import * as dashboard from "~/routes/admin._index";
import { createApiCallers, createTestDoor, createTestUser, insertLogs, sessionCookie } from "../setup/fixtures";
import { callRoute, formPost, jsonRequest } from "../setup/route";

let adminToken = "";
let residentToken = "";

beforeAll(async () => {
  ({ adminToken, residentToken } = await createApiCallers());
});

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

async function call(
  fn: (args: never) => unknown,
  path: string,
  { method = "GET", body, token = adminToken, params = {} }: { method?: string; body?: unknown; token?: string | null; params?: Record<string, string> } = {},
) {
  const headers = token ? auth(token) : {};
  return callRoute(fn as never, jsonRequest(path, { method, body, headers }), params);
}

describe("every door route refuses anonymous callers (401) and residents (403)", () => {
  const routes: Array<[string, (args: never) => unknown, string, string]> = [
    ["GET /api/doors", doorsRoute.loader, "/api/doors", "GET"],
    ["POST /api/doors", doorsRoute.action, "/api/doors", "POST"],
    ["GET /api/doors/stats", statsRoute.loader, "/api/doors/stats", "GET"],
    ["PUT /api/doors/{id}", doorRoute.action, "/api/doors/x", "PUT"],
    ["DELETE /api/doors/{id}", doorRoute.action, "/api/doors/x", "DELETE"],
    ["PUT /api/doors/{id}/messages", messagesRoute.action, "/api/doors/x/messages", "PUT"],
    ["POST /api/doors/{id}/credentials", credentialsRoute.action, "/api/doors/x/credentials", "POST"],
  ];
  it.each(routes)("%s", async (_name, fn, path, method) => {
    const body = method === "GET" ? undefined : {};
    const anonymous = await call(fn, path, { method, token: null, params: { id: "x" }, body });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).success).toBe(false);
    const resident = await call(fn, path, { method, token: residentToken, params: { id: "x" }, body });
    expect(resident.status).toBe(403);
  });
});

describe("doors API", () => {
  it("creates, lists, updates and deletes a door", async () => {
    const created = await call(doorsRoute.action, "/api/doors", {
      method: "POST",
      body: { name: "Portal", location: "Planta baja", doorId: "portal-api", description: "Entrada principal" },
    });
    expect(created.status).toBe(201);
    const door = (await created.json()).data;
    expect(door).toMatchObject({ doorId: "portal-api", status: "active", useCustomMessages: false });
    expect(door).not.toHaveProperty("bridgeSecretHash");

    const list = await (await call(doorsRoute.loader, "/api/doors")).json();
    expect(list.data.map((d: { doorId: string }) => d.doorId)).toContain("portal-api");

    const updated = await call(doorRoute.action, `/api/doors/${door._id}`, { method: "PUT", body: { status: "emergency", name: "Portal norte" }, params: { id: door._id } });
    expect((await updated.json()).data).toMatchObject({ status: "emergency", name: "Portal norte", location: "Planta baja" });

    const stats = await (await call(statsRoute.loader, "/api/doors/stats")).json();
    expect(stats.data.emergencyDoors).toBeGreaterThanOrEqual(1);
    expect(stats.data.recentActivity).toEqual(expect.objectContaining({ total: expect.any(Number), successful: expect.any(Number), failed: expect.any(Number) }));

    const deleted = await call(doorRoute.action, `/api/doors/${door._id}`, { method: "DELETE", params: { id: door._id } });
    expect(deleted.status).toBe(200);
    expect(await getDoorById(door._id)).toBeUndefined();
    const again = await call(doorRoute.action, `/api/doors/${door._id}`, { method: "DELETE", params: { id: door._id } });
    expect(again.status).toBe(404);
  });

  it.each([
    [{ name: "", location: "x", doorId: "ok" }, "El nombre es requerido"],
    [{ name: "x", location: "", doorId: "ok" }, "La ubicación es requerida"],
    [{ name: "x", location: "x", doorId: "no vale!" }, "El ID de puerta solo admite"],
    [{ name: "x", location: "x", doorId: "a".repeat(33) }, "Máximo 32 caracteres"],
  ])("refuses %o with 400", async (body, message) => {
    const response = await call(doorsRoute.action, "/api/doors", { method: "POST", body });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain(message);
  });

  it("changes only the fields a PUT sends: a description edit keeps an emergency lockdown; an empty body is a 400", async () => {
    const door = await createTestDoor({ status: "emergency" });
    const put = (body: unknown) => call(doorRoute.action, `/api/doors/${door.id}`, { method: "PUT", body, params: { id: door.id } });
    const edited = await put({ description: "Cristal nuevo" });
    expect(edited.status).toBe(200);
    expect((await edited.json()).data).toMatchObject({ status: "emergency", description: "Cristal nuevo", name: door.name });
    expect((await getDoorById(door.id))?.status).toBe("emergency");
    for (const body of [{}, { unknown: "x" }]) {
      const empty = await put(body);
      expect(empty.status).toBe(400);
      expect((await empty.json()).error.message).toBe("No hay cambios que guardar");
    }
    expect((await getDoorById(door.id))?.status).toBe("emergency");
  });

  it("answers 409 to a doorId already taken", async () => {
    await createTestDoor({ code: "dup-door", name: "A", location: "A" });
    const response = await call(doorsRoute.action, "/api/doors", { method: "POST", body: { name: "B", location: "B", doorId: "dup-door" } });
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toBe("Ya existe una puerta con ese ID");
  });

  it("enforces the message lengths and printable characters on the server", async () => {
    const door = await createTestDoor({ code: "msg-door", name: "M", location: "M" });
    const put = (body: unknown) => call(messagesRoute.action, `/api/doors/${door.id}/messages`, { method: "PUT", body, params: { id: door.id } });
    expect((await put({ useCustomMessages: true, customStatus: "12345678901" })).status).toBe(400);
    expect((await put({ useCustomMessages: true, customMessage: "12345678901234567" })).status).toBe(400);
    expect((await put({ useCustomMessages: true, customMessage: "Hola\u0007" })).status).toBe(400);
    expect((await getDoorById(door.id))?.useCustomMessages).toBe(false);
    const ok = await put({ useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Bienvenidos" });
    expect((await ok.json()).data).toMatchObject({ useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Bienvenidos" });
  });

  it("changes only the message fields sent: switching custom messages off and on gives the admin's texts back", async () => {
    const door = await createTestDoor();
    const put = (body: unknown) => call(messagesRoute.action, `/api/doors/${door.id}/messages`, { method: "PUT", body, params: { id: door.id } });
    await put({ useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Bienvenidos" });
    const off = await put({ useCustomMessages: false });
    expect((await off.json()).data).toMatchObject({ useCustomMessages: false, customStatus: "ABIERTO", customMessage: "Bienvenidos" });
    const on = await put({ useCustomMessages: true });
    expect((await on.json()).data).toMatchObject({ useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Bienvenidos" });
    const welcomeOnly = await put({ customMessage: "Hola" });
    expect((await welcomeOnly.json()).data).toMatchObject({ useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Hola" });
    const cleared = await put({ customStatus: null, customMessage: "" });
    expect((await cleared.json()).data).toMatchObject({ useCustomMessages: true, customStatus: null, customMessage: null });
    const empty = await put({});
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.message).toBe("No hay cambios que guardar");
    expect((await put({ useCustomMessages: "sí" })).status).toBe(400);
  });

  it("the dashboard's messages form keeps the texts when custom messages are switched off, and clears an emptied one", async () => {
    const door = await createTestDoor();
    const cookie = await sessionCookie((await createTestUser({ role: "admin" })).id);
    const post = (fields: Record<string, string>) =>
      callRoute(dashboard.action, formPost(`/admin?modal=messages&door=${door.id}`, cookie, { intent: "set-messages", id: door.id, ...fields }));
    expect((await post({ useCustomMessages: "on", customStatus: "ABIERTO", customMessage: "Bienvenidos" })).status).toBe(302);
    expect((await post({ customStatus: "ABIERTO", customMessage: "Bienvenidos" })).status).toBe(302);
    expect(await getDoorById(door.id)).toMatchObject({ useCustomMessages: false, customStatus: "ABIERTO", customMessage: "Bienvenidos" });
    await post({ useCustomMessages: "on", customStatus: "", customMessage: "Bienvenidos" });
    expect(await getDoorById(door.id)).toMatchObject({ useCustomMessages: true, customStatus: null, customMessage: "Bienvenidos" });
  });

  it("the dashboard counts its 24 hours from the start of the minute: the same data all minute long, a new swipe at once", async () => {
    const door = await createTestDoor({ name: "Puerta del minuto" });
    const cookie = await sessionCookie((await createTestUser({ role: "admin" })).id);
    const load = async () => (await callRoute(dashboard.loader, new Request("http://localhost/admin", { headers: { Cookie: cookie } }))).json();
    const activityOf = (page: { doors: { _id: string; recentActivity: number }[] }) => page.doors.find((d) => d._id === door.id)?.recentActivity;
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(minute + 10_000);
      // Within the last 24 hours now; 24 hours and 10 seconds old at minute + 50 s.
      await insertLogs([{ at: minute - 24 * 3600_000 + 40_000, cardNumber: "AB1E0001", door, granted: true }]);
      const first = await load();
      expect(activityOf(first)).toBe(1);
      vi.setSystemTime(minute + 50_000);
      expect(await load()).toEqual(first);
      await insertLogs([{ at: minute + 50_000, cardNumber: "AB1E0001", door, granted: false }]);
      expect(activityOf(await load())).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("rotates the bridge credential: a new secret each time, only its hash stored", async () => {
    const door = await createTestDoor({ code: "cred-door", name: "C", location: "C" });
    const first = await (await call(credentialsRoute.action, `/api/doors/${door.id}/credentials`, { method: "POST", params: { id: door.id } })).json();
    const second = await (await call(credentialsRoute.action, `/api/doors/${door.id}/credentials`, { method: "POST", params: { id: door.id } })).json();
    expect(first.data.username).toBe("cred-door");
    expect(first.data.password).not.toBe(second.data.password);
    const stored = await getDoorById(door.id);
    expect(stored?.bridgeSecretHash).toMatch(/^\$7\$/);
    expect(stored?.bridgeSecretHash).not.toContain(second.data.password);
  });
});
