// The audit trail's admin API (docs/api.md "Audit"): GET /api/audit with its
// filters and pages, GET /api/audit/export as CSV, GET /api/audit/verify.
import { beforeAll, describe, expect, it } from "vitest";
import type { User } from "~/models/user.server";
import * as listRoute from "~/routes/api.audit";
import * as exportRoute from "~/routes/api.audit.export";
import * as verifyRoute from "~/routes/api.audit.verify";
import { addDays, todayInMadrid } from "~/utils/dates";
import { jsonRequest, callApi, callRoute, type ApiCall, type ApiRoute } from "../setup/route";
import { createApiCallers, unique } from "../setup/fixtures";
import { recordTestEvents } from "../setup/audit";

let admin: User;
let resident: User;
let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  ({ admin, resident, adminToken, residentToken } = await createApiCallers());
});

const call = (fn: ApiRoute, path: string, options: ApiCall = {}) => callApi(fn, path, { token: adminToken, ...options });

/** Three events tagged `tag`: an admin's door change, a resident's booking, then the admin's card grant. */
async function seed(tag: string) {
  await recordTestEvents(admin, "198.51.100.1", [
    { action: "door.update", entityType: "door", entityId: `puerta-${tag}`, summary: `editó la puerta ${tag}`, before: { name: "Antes" }, after: { name: "Después" } },
  ]);
  await recordTestEvents(resident, "198.51.100.2", [
    { action: "booking.create", entityType: "booking", entityId: `reserva-${tag}`, summary: `reservó el gimnasio ${tag}`, after: { facility: "Gimnasio" } },
  ]);
  await recordTestEvents(admin, "198.51.100.1", [
    { action: "card.permission_grant", entityType: "card", entityId: `tarjeta-${tag}`, summary: `concedió el acceso de la tarjeta ${tag} a Gimnasio`, after: { door: "Gimnasio", granted: true } },
  ]);
}

type EventBody = { _id: number; summary: string; entityType: string; actor: { username: string } };

describe("guard", () => {
  for (const [name, fn, path] of [
    ["GET /api/audit", listRoute.loader, "/api/audit"],
    ["GET /api/audit/export", exportRoute.loader, "/api/audit/export"],
    ["GET /api/audit/verify", verifyRoute.loader, "/api/audit/verify"],
  ] as const) {
    it(`${name}: 401 without a token, 403 for a resident, 405 for other methods`, async () => {
      expect((await call(fn, path, { token: null })).status).toBe(401);
      expect(await call(fn, path, { token: residentToken })).toEqual({ status: 403, body: { success: false, error: { message: "Acceso denegado" } } });
    });
  }

  it("answers 405 to writes: the trail is read-only", async () => {
    for (const route of [listRoute, exportRoute, verifyRoute]) expect((await call(route.action, "/api/audit", { method: "POST", body: {} })).status).toBe(405);
  });
});

describe("GET /api/audit", () => {
  it("answers the events newest first, each in the documented shape, with the pagination", async () => {
    const tag = unique();
    await seed(tag);
    const { status, body } = await call(listRoute.loader, `/api/audit?search=${tag}`);
    expect(status).toBe(200);
    expect(body.data.pagination).toEqual({ page: 1, limit: 50, total: 3, pages: 1 });
    const [grant, booking, door] = body.data.events;
    expect(Object.keys(grant).sort()).toEqual(["_id", "action", "actor", "after", "at", "before", "entityId", "entityType", "ip", "summary"]);
    expect(grant).toMatchObject({
      actor: { id: admin.id, username: admin.username, role: "admin" },
      ip: "198.51.100.1",
      action: "card.permission_grant",
      entityType: "card",
      entityId: `tarjeta-${tag}`,
      summary: `${admin.username} concedió el acceso de la tarjeta ${tag} a Gimnasio`,
      before: null,
      after: { door: "Gimnasio", granted: true },
    });
    expect(new Date(grant.at).toISOString()).toBe(grant.at);
    expect(booking.actor).toEqual({ id: resident.id, username: resident.username, role: "user" });
    expect(door).toMatchObject({ before: { name: "Antes" }, after: { name: "Después" } });
    expect(grant._id).toBeGreaterThan(booking._id);
    expect(booking._id).toBeGreaterThan(door._id);
  });

  it("filters by who, entity type, action, dates and text, and pages", async () => {
    const tag = unique();
    await seed(tag);
    const summaries = async (query: string) =>
      ((await call(listRoute.loader, `/api/audit?search=${tag}&${query}`)).body.data.events as EventBody[]).map((event) => event.summary.split(" ").slice(1, 2)[0]);
    expect(await summaries(`actor=${resident.username.slice(0, 8).toUpperCase()}`)).toEqual(["reservó"]);
    expect(await summaries("entityType=door")).toEqual(["editó"]);
    expect(await summaries("action=card.permission_grant")).toEqual(["concedió"]);
    const today = todayInMadrid();
    expect(await summaries(`from=${today}&to=${today}`)).toEqual(["concedió", "reservó", "editó"]);
    expect(await summaries(`from=${addDays(today, 1)}`)).toEqual([]);
    expect(await summaries(`to=${addDays(today, -1)}`)).toEqual([]);
    expect(await summaries(`from=${new Date(Date.now() - 60_000).toISOString()}`)).toHaveLength(3);
    // Free text also finds the fields before and after.
    expect((await call(listRoute.loader, `/api/audit?search=${encodeURIComponent("Después")}&entityType=door&actor=${admin.username}`)).body.data.events.length).toBeGreaterThan(0);

    const second = await call(listRoute.loader, `/api/audit?search=${tag}&limit=2&page=2`);
    expect(second.body.data.pagination).toEqual({ page: 2, limit: 2, total: 3, pages: 2 });
    expect((second.body.data.events as EventBody[]).map((event) => event.entityType)).toEqual(["door"]);
  });

  it("refuses values it does not know with a Spanish message", async () => {
    expect((await call(listRoute.loader, "/api/audit?entityType=nave")).body.error.message).toMatch(/^entityType debe ser uno de: door, card/);
    expect((await call(listRoute.loader, "/api/audit?action=borrar.todo")).status).toBe(400);
    expect((await call(listRoute.loader, "/api/audit?from=ayer")).body.error.message).toBe("from debe ser una fecha AAAA-MM-DD o un instante ISO 8601");
    expect((await call(listRoute.loader, "/api/audit?limit=201")).body.error.message).toBe("limit debe ser un número entre 1 y 200");
  });
});

describe("GET /api/audit/export", () => {
  it("downloads the filtered events as CSV, newest first", async () => {
    const tag = unique();
    await seed(tag);
    const response = await callRoute(
      exportRoute.loader,
      jsonRequest(`/api/audit/export?format=csv&search=${tag}&actor=${admin.username}`, { headers: { Authorization: `Bearer ${adminToken}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="auditoria-${todayInMadrid()}.csv"`);
    expect(response.headers.get("Cache-Control")).toContain("no-store");
    const lines = (await response.text()).replace(/^\uFEFF/, "").trim().split("\r\n");
    expect(lines[0]).toBe('"Fecha","Usuario","Rol","IP","Acción","Tipo","ID","Resumen","Antes","Después"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"${admin.username}","Administrador","198.51.100.1","Acceso concedido","Tarjeta","tarjeta-${tag}"`);
    expect(lines[2]).toContain(`"Puerta editada","Puerta","puerta-${tag}","${admin.username} editó la puerta ${tag}","{""name"":""Antes""}","{""name"":""Después""}"`);
  });

  it("refuses another format", async () => {
    expect((await call(exportRoute.loader, "/api/audit/export?format=pdf")).body.error.message).toBe("format debe ser csv");
  });
});

describe("GET /api/audit/verify", () => {
  it("answers {ok, checked, firstBadId} for the whole chain", async () => {
    await seed(unique());
    const { status, body } = await call(verifyRoute.loader, "/api/audit/verify");
    expect(status).toBe(200);
    expect(body.data).toEqual({ ok: true, checked: expect.any(Number), firstBadId: null });
    expect(body.data.checked).toBeGreaterThanOrEqual(3);
  });
});
