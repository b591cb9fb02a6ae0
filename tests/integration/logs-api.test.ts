// GET /api/logs and DELETE /api/logs/cleanup (the export is in
// logs-export.test.ts): admin bearer tokens only, SPEC §3 log objects, the
// stats and pages of the filtered rows, and the Spanish 400s.
import { beforeAll, describe, expect, it } from "vitest";
import { issueApiToken } from "~/models/api-token.server";
import * as cleanupRoute from "~/routes/api.logs.cleanup";
import * as logsRoute from "~/routes/api.logs";
import { updateDoor } from "~/services/doors.server";
import { callRoute, jsonRequest } from "../setup/route";
import { createTestDoor, createTestUser, hexPrefix, insertLogs } from "../setup/fixtures";

const MINUTE = 60_000;
let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  const admin = await createTestUser({ username: "api-logs-admin", role: "admin" });
  const resident = await createTestUser({ username: "api-logs-vecino" });
  adminToken = (await issueApiToken(admin.id)).token;
  residentToken = (await issueApiToken(resident.id)).token;
});

const auth = (token: string | null) => (token ? { Authorization: `Bearer ${token}` } : undefined);

/** `token` null: no Authorization header. */
async function list(query: string, token: string | null = adminToken) {
  return callRoute(logsRoute.loader, jsonRequest(`/api/logs${query}`, { headers: auth(token) }));
}

async function cleanup({ query = "", body, token = adminToken, method = "DELETE" }: { query?: string; body?: unknown; token?: string | null; method?: string }) {
  return callRoute(cleanupRoute.action, jsonRequest(`/api/logs/cleanup${query}`, { method, body, headers: auth(token) }));
}

describe("GET /api/logs", () => {
  it("answers 401 without a token and 403 to a resident", async () => {
    const anonymous = await list("", null);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ success: false, error: { message: "No autenticado" } });
    const resident = await list("", residentToken);
    expect(resident.status).toBe(403);
    expect(await resident.json()).toEqual({ success: false, error: { message: "Acceso denegado" } });
  });

  it("gives SPEC §3 log objects, the stats, the total and the pages of the filtered rows", async () => {
    const door = await createTestDoor({ code: `api-logs-${hexPrefix()}`, name: "Portal", location: "Planta baja" });
    const card = `${hexPrefix()}01`;
    const now = Date.now();
    const ids = await insertLogs([
      { at: now - 3 * MINUTE, cardNumber: card, door, granted: true, username: "lucia", ipAddress: "10.1.2.3" },
      { at: now - 2 * MINUTE, cardNumber: card, door, granted: false, reason: "door_maintenance", isAnonymous: true, offline: true },
      { at: now - 1 * MINUTE, cardNumber: `${hexPrefix()}02`, door, granted: false },
    ]);
    // `t` and `_` are cache-busting values the admin screen adds: ignored.
    const response = await list(`?doorId=${door.code}&limit=2&page=1&t=${now}&_=${now}`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ stats: { total: 3, granted: 1, denied: 2, alarms: 0, uniqueCards: 2 }, total: 3, page: 1, pages: 2, limit: 2 });
    expect(body.data.logs).toHaveLength(2);
    expect(body.data.logs[1]).toEqual({
      _id: ids[1],
      timestamp: new Date(now - 2 * MINUTE).toISOString(),
      cardId: card,
      doorId: door.code,
      doorCode: door.code,
      doorName: "Portal",
      ipAddress: "192.0.2.10",
      accessGranted: false,
      result: "denied",
      resolvedAt: null,
      reason: "door_maintenance",
      reasonText: "Puerta en mantenimiento",
      user: null,
      isAnonymous: true,
      offline: true,
      credentialKind: "card",
      holder: null,
    });
    const second = await (await list(`?doorId=${door.code}&limit=2&page=2`)).json();
    expect(second.data.logs.map((log: { _id: string; user: string }) => [log._id, log.user])).toEqual([[ids[0], "lucia"]]);
    const denied = await (await list(`?doorId=${door.code}&status=denied&search=${card.toLowerCase()}`)).json();
    expect(denied.data.logs.map((log: { _id: string }) => log._id)).toEqual([ids[1]]);
    expect(denied.data.stats).toEqual({ total: 1, granted: 0, denied: 1, alarms: 0, uniqueCards: 1 });
  });

  it("filters by the door's hardware code (doorId), its rows logged under an earlier code included; its row id still works for one release", async () => {
    const door = await createTestDoor({ code: `api-logs-${hexPrefix()}`, name: "Azotea", location: "Planta 6" });
    const now = Date.now();
    const [before] = await insertLogs([{ at: now - 2 * MINUTE, cardNumber: `${hexPrefix()}03`, door }]);
    const renamed = `${door.code}-b`;
    await updateDoor(door.id, { doorId: renamed });
    const [after] = await insertLogs([{ at: now - MINUTE, cardNumber: `${hexPrefix()}04`, door: { ...door, code: renamed } }]);
    const byCode = await (await list(`?doorId=${renamed}`)).json();
    expect(byCode.data.logs.map((log: { _id: string; doorId: string; doorCode: string }) => [log._id, log.doorId, log.doorCode])).toEqual([
      [after, renamed, renamed],
      [before, door.code, door.code],
    ]);
    const byRowId = await (await list(`?doorId=${door.id}`)).json();
    expect(byRowId.data.logs.map((log: { _id: string }) => log._id)).toEqual([after, before]);
    expect((await (await list(`?doorId=${door.code}`)).json()).data.total).toBe(0);
  });

  it("defaults to the last 24 hours and 50 a page, and allows up to 200", async () => {
    const door = await createTestDoor({ code: `api-logs-${hexPrefix()}`, name: "Garaje", location: "Sótano" });
    const now = Date.now();
    await insertLogs([
      ...Array.from({ length: 210 }, (_, i) => ({ at: now - (i + 1) * 1000, cardNumber: "AB", door })),
      { at: now - 2 * 24 * 60 * MINUTE, cardNumber: "AB", door },
    ]);
    const defaults = await (await list(`?doorId=${door.code}`)).json();
    expect(defaults.data).toMatchObject({ total: 210, page: 1, pages: 5, limit: 50 });
    expect(defaults.data.logs).toHaveLength(50);
    const max = await (await list(`?doorId=${door.code}&limit=200&dateRange=7d`)).json();
    expect(max.data).toMatchObject({ total: 211, pages: 2 });
    expect(max.data.logs).toHaveLength(200);
  });

  it.each([
    ["?limit=201", "limit debe ser un número entre 1 y 200"],
    ["?limit=0", "limit debe ser un número entre 1 y 200"],
    ["?page=0", "page debe ser un número entero mayor que 0"],
    ["?page=dos", "page debe ser un número entero mayor que 0"],
    ["?status=ok", "status debe ser all, granted, denied, alarm o resolved"],
    ["?dateRange=90d", "dateRange debe ser 24h, 7d, 30d o all"],
    [`?search=${"a".repeat(65)}`, "La búsqueda admite como máximo 64 caracteres"],
  ])("refuses %s with 400 and the Spanish message", async (query, message) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ success: false, error: { message } });
  });

  it("answers 405 to other methods", async () => {
    const response = await callRoute(logsRoute.action, jsonRequest("/api/logs", { method: "POST", body: {}, headers: auth(adminToken) }));
    expect(response.status).toBe(405);
  });
});

describe("DELETE /api/logs/cleanup", () => {
  it("answers 401 without a token and 403 to a resident, deleting nothing", async () => {
    const card = `${hexPrefix()}03`;
    await insertLogs([{ at: Date.now(), cardNumber: card, granted: false }]);
    expect((await cleanup({ body: { cardId: card, accessGranted: false }, token: null })).status).toBe(401);
    const resident = await cleanup({ body: { cardId: card, accessGranted: false }, token: residentToken });
    expect(resident.status).toBe(403);
    expect((await (await list(`?search=${card}`)).json()).data.total).toBe(1);
  });

  it("marks the card's denied rows resolved, deleting none (the card number in any notation), in the body or the query", async () => {
    const card = `${hexPrefix()}04`;
    const other = `${hexPrefix()}05`;
    const now = Date.now();
    await insertLogs([
      { at: now - 3000, cardNumber: card, granted: false },
      { at: now - 2000, cardNumber: card, granted: false },
      { at: now - 1000, cardNumber: card, granted: true },
      { at: now, cardNumber: other, granted: false },
    ]);
    const spaced = card.match(/../g)!.join(":").toLowerCase();
    const response = await cleanup({ body: { cardId: spaced, accessGranted: false } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, data: { cardId: card, deleted: 2 } });
    expect((await (await list(`?search=${card}`)).json()).data.stats).toMatchObject({ total: 1, denied: 0 });
    // Issue 40: append-only. The rows stay, shown as resolved under their own filter.
    const resolved = (await (await list(`?search=${card}&status=resolved`)).json()).data;
    expect(resolved.logs.map((log: { result: string; accessGranted: boolean }) => [log.result, log.accessGranted])).toEqual([
      ["resolved", false],
      ["resolved", false],
    ]);
    const byQuery = await (await cleanup({ query: `?cardId=${other}&accessGranted=false` })).json();
    expect(byQuery.data).toEqual({ cardId: other, deleted: 1 });
  });

  it.each([
    [{ accessGranted: false }, "cardId es requerido"],
    [{ cardId: "AB", accessGranted: true }, "Solo se pueden eliminar registros denegados: accessGranted debe ser false"],
    [{ cardId: "AB" }, "Solo se pueden eliminar registros denegados: accessGranted debe ser false"],
    [{ cardId: "no es hex", accessGranted: false }, "cardId debe ser un número de tarjeta hexadecimal (p. ej. 004E2B4E)"],
  ])("refuses %o with 400 and the Spanish message", async (body, message) => {
    const response = await cleanup({ body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ success: false, error: { message } });
  });

  it("answers 405 to other methods, after the guard", async () => {
    expect((await cleanup({ method: "POST", body: { cardId: "AB", accessGranted: false } })).status).toBe(405);
    expect((await callRoute(cleanupRoute.loader, jsonRequest("/api/logs/cleanup"))).status).toBe(401);
    const adminGet = jsonRequest("/api/logs/cleanup", { headers: { Authorization: `Bearer ${adminToken}` } });
    expect((await callRoute(cleanupRoute.loader, adminGet)).status).toBe(405);
  });
});
