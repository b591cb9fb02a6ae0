// /admin/logs as Remix calls it: the guard, the filters from the query, the
// stats, a page of 50 rows merged into lines, and approving a card from a
// denied row (a redirect with a toast, or the refusal with its status).
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getCardById, registerCard } from "~/models/card.server";
import { listGroupIdsOfUsers } from "~/models/access-group.server";
import { createAccessGroup } from "~/services/access-groups.server";
import { setCardPermission } from "~/services/cards.server";
import * as page from "~/routes/admin.logs";
import { createTestDoor, createTestUser, hexPrefix, insertLogs, sessionCookie, toastOf } from "../setup/fixtures";
import { callRoute as callPage } from "../setup/route";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
let adminCookie: string;
let residentCookie: string;

beforeAll(async () => {
  const admin = await createTestUser({ username: "logs-admin", role: "admin" });
  const resident = await createTestUser({ username: "logs-vecino" });
  adminCookie = await sessionCookie(admin.id);
  residentCookie = await sessionCookie(resident.id);
});

async function load(search = "", cookie = adminCookie) {
  return callPage(page.loader, new Request(`http://localhost/admin/logs${search}`, { headers: { Cookie: cookie } }));
}

async function post(fields: Record<string, string>, search = "") {
  return callPage(
    page.action,
    new Request(`http://localhost/admin/logs${search}`, {
      method: "POST",
      headers: { Cookie: adminCookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }),
  );
}

async function door(name: string) {
  return createTestDoor({ name });
}

describe("guard", () => {
  it("sends residents and visitors away from the page and its action", async () => {
    expect((await load("", residentCookie)).headers.get("Location")).toBe("/");
    expect((await load("?status=denied", "")).headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Flogs%3Fstatus%3Ddenied");
    const action = await callPage(
      page.action,
      new Request("http://localhost/admin/logs", { method: "POST", headers: { Cookie: residentCookie, Origin: "http://localhost" }, body: new URLSearchParams({ intent: "approve-card" }) }),
    );
    expect(action.headers.get("Location")).toBe("/");
  });
});

describe("loader", () => {
  it("applies the filters, gives the stats of the filtered rows and falls back to the defaults for values nobody could pick", async () => {
    const garaje = await door("Garaje");
    const card = `${hexPrefix()}01`;
    const now = Date.now();
    await insertLogs([
      { at: now - 30 * MINUTE, cardNumber: card, door: garaje, granted: false, username: "zoe" },
      { at: now - 20 * MINUTE, cardNumber: card, door: garaje, granted: true, username: "zoe" },
      { at: now - 3 * 24 * 60 * MINUTE, cardNumber: card, door: garaje, granted: true, username: "zoe" },
      { at: now - 10 * MINUTE, cardNumber: `${hexPrefix()}02`, door: garaje, granted: true },
    ]);
    const day = await (await load(`?doorId=${garaje.code}`)).json();
    expect(day.filters).toEqual({ status: "all", doorId: garaje.code, dateRange: "24h", search: "", credentialKind: "all" });
    expect(day.stats).toEqual({ total: 3, granted: 2, denied: 1, alarms: 0, uniqueCards: 2 });
    expect(day.doors.map((d: { id: string }) => d.id)).toContain(garaje.id);
    const week = await (await load(`?doorId=${garaje.code}&dateRange=7d&status=granted&search=${card.slice(0, 4).toLowerCase()}`)).json();
    expect(week.stats).toEqual({ total: 2, granted: 2, denied: 0, alarms: 0, uniqueCards: 1 });
    expect(week.lines.map((line: { username: string }) => line.username)).toEqual(["zoe", "zoe"]);
    expect(week.exportQuery).toBe(`status=granted&doorId=${garaje.code}&dateRange=7d&search=${card.slice(0, 4).toLowerCase()}`);
    const odd = await (await load(`?doorId=${garaje.code}&status=maybe&dateRange=1y`)).json();
    expect(odd.filters).toEqual({ status: "all", doorId: garaje.code, dateRange: "24h", search: "", credentialKind: "all" });
  });

  it("counts its ranges from the start of the minute: the same data all minute long, a new swipe at once", async () => {
    const porton = await door("Portón del minuto");
    const card = `${hexPrefix()}0A`;
    const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(minute + 10_000);
      // Within the last 24 hours now; 24 hours and 10 seconds old at minute + 50 s.
      await insertLogs([{ at: minute - DAY + 40_000, cardNumber: card, door: porton, granted: true }]);
      const first = await (await load(`?doorId=${porton.code}`)).json();
      expect(first.stats).toEqual({ total: 1, granted: 1, denied: 0, alarms: 0, uniqueCards: 1 });
      vi.setSystemTime(minute + 50_000);
      expect(await (await load(`?doorId=${porton.code}`)).json()).toEqual(first);
      await insertLogs([{ at: minute + 50_000, cardNumber: card, door: porton, granted: false }]);
      expect((await (await load(`?doorId=${porton.code}`)).json()).stats).toEqual({ total: 2, granted: 1, denied: 1, alarms: 0, uniqueCards: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("drops only a bad filter value: the other filters and the page stay", async () => {
    const patio = await door("Patio");
    const card = `${hexPrefix()}05`;
    const now = Date.now();
    await insertLogs([
      { at: now - 3 * 24 * 60 * MINUTE, cardNumber: card, door: patio, granted: false },
      { at: now - 2 * 24 * 60 * MINUTE, cardNumber: card, door: patio, granted: true },
      { at: now - 10 * MINUTE, cardNumber: `${hexPrefix()}06`, door: patio, granted: true },
    ]);
    const badStatus = await (await load(`?doorId=${patio.code}&status=maybe&dateRange=7d&search=${card}`)).json();
    expect(badStatus.filters).toEqual({ status: "all", doorId: patio.code, dateRange: "7d", search: card, credentialKind: "all" });
    expect(badStatus.stats).toEqual({ total: 2, granted: 1, denied: 1, alarms: 0, uniqueCards: 1 });
    const badRange = await (await load(`?doorId=${patio.code}&status=denied&dateRange=1y&search=${"x".repeat(65)}`)).json();
    expect(badRange.filters).toEqual({ status: "denied", doorId: patio.code, dateRange: "24h", search: "", credentialKind: "all" });
    expect(badRange.stats.total).toBe(0);
    expect(badRange.exportQuery).toBe(`status=denied&doorId=${patio.code}`);
  });

  it("filters by the door's hardware code (doorId) and, for one release, by its row id too", async () => {
    const sauna = await door("Sauna");
    const now = Date.now();
    await insertLogs([
      { at: now - 2 * MINUTE, cardNumber: `${hexPrefix()}07`, door: sauna, granted: true },
      { at: now - MINUTE, cardNumber: `${hexPrefix()}08`, door: sauna, granted: false },
    ]);
    const byCode = await (await load(`?doorId=${sauna.code}`)).json();
    expect(byCode.stats).toEqual({ total: 2, granted: 1, denied: 1, alarms: 0, uniqueCards: 2 });
    expect(byCode.doors.find((d: { id: string }) => d.id === sauna.id)).toMatchObject({ doorId: sauna.code });
    const byRowId = await (await load(`?doorId=${sauna.id}`)).json();
    expect(byRowId.filters.doorId).toBe(sauna.id);
    expect(byRowId.stats).toEqual(byCode.stats);
  });

  it("shows 50 rows a page, 'Página X de Y', and keeps a page past the end on the last one", async () => {
    const portal = await door("Portal");
    const now = Date.now();
    // 120 rows of different cards, one a minute: nothing merges.
    await insertLogs(Array.from({ length: 120 }, (_, i) => ({ at: now - (i + 1) * MINUTE, cardNumber: `${hexPrefix()}${i}`, door: portal })));
    const first = await (await load(`?doorId=${portal.code}`)).json();
    expect([first.page, first.pages, first.rowCount, first.lines.length]).toEqual([1, 3, 50, 50]);
    const third = await (await load(`?doorId=${portal.code}&page=3`)).json();
    expect([third.page, third.rowCount]).toEqual([3, 20]);
    expect(new Date(third.lines[19].timestamp).getTime()).toBe(now - 120 * MINUTE);
    const beyond = await (await load(`?doorId=${portal.code}&page=99`)).json();
    expect(beyond.page).toBe(3);
  });

  it("merges a burst of the same card, door and result within the page's rows, with its count", async () => {
    const gym = await door("Gimnasio");
    const card = `${hexPrefix()}03`;
    const other = `${hexPrefix()}04`;
    const now = Date.now();
    await insertLogs([
      { at: now - 9 * MINUTE, cardNumber: card, door: gym, granted: false },
      { at: now - 8 * MINUTE, cardNumber: card, door: gym, granted: false },
      { at: now - 7 * MINUTE, cardNumber: other, door: gym, granted: true, isAnonymous: true, offline: true },
      { at: now - 6 * MINUTE, cardNumber: card, door: gym, granted: false },
      { at: now - 5 * MINUTE, cardNumber: card, door: gym, granted: true },
    ]);
    const body = await (await load(`?doorId=${gym.code}`)).json();
    expect(body.rowCount).toBe(5);
    expect(body.lines.map((line: { cardNumber: string; count: number; accessGranted: boolean }) => [line.cardNumber, line.accessGranted, line.count])).toEqual([
      [card, true, 1],
      [card, false, 3],
      [other, true, 1],
    ]);
    expect(body.lines[1]).toMatchObject({
      timestamp: new Date(now - 6 * MINUTE).toISOString(),
      firstTimestamp: new Date(now - 9 * MINUTE).toISOString(),
      reasonText: "Sin permiso para esta puerta",
      doorName: "Gimnasio",
      username: null,
      canApprove: false, // the row's card is not registered (no card id)
    });
    expect(body.lines[2]).toMatchObject({ isAnonymous: true, offline: true, canApprove: false });
  });
});

describe("approving a card from a denied row", () => {
  it("opens the confirmation with the row's door; approving activates the pending card, grants the door, resolves its denied rows and comes back to the same list", async () => {
    const terraza = await door("Terraza");
    const card = await registerCard({ cardNumber: `${hexPrefix()}05`, status: "pending" });
    const now = Date.now();
    const [denied] = await insertLogs([
      { at: now - 3 * MINUTE, cardNumber: card.cardNumber, cardId: card.id, door: terraza, granted: false, reason: "card_pending" },
      { at: now - 2 * MINUTE, cardNumber: card.cardNumber, cardId: card.id, door: terraza, granted: false, reason: "card_pending" },
      { at: now - 1 * MINUTE, cardNumber: card.cardNumber, cardId: card.id, door: terraza, granted: true },
    ]);
    const before = await (await load(`?doorId=${terraza.code}`)).json();
    expect(before.lines.find((line: { accessGranted: boolean }) => !line.accessGranted)).toMatchObject({ canApprove: true, count: 2 });

    // Issue 40: 'Aprobar' opens the cards screen's confirmation, its door chosen; nothing changes until it is sent.
    const confirming = await (await load(`?doorId=${terraza.code}&status=denied&approve=${denied!}`)).json();
    expect(confirming.approval).toMatchObject({ logId: denied, doorId: terraza.code, detail: { card: { _id: card.id, status: "pending" } } });
    expect(await getCardById(card.id)).toMatchObject({ status: "pending", permissions: [] });

    const response = await post({ intent: "approve-card", logId: denied!, doorId: terraza.code }, `?doorId=${terraza.code}&status=denied&approve=${denied!}&index`);
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/admin/logs?doorId=${terraza.code}&status=denied`);
    expect(await toastOf(response)).toMatchObject({
      type: "success",
      title: "Tarjeta aprobada",
      description: `${card.cardNumber} con acceso a Terraza; 2 registros denegados marcados como resueltos.`,
    });
    expect(await getCardById(card.id)).toMatchObject({ status: "active", permissions: [{ doorId: terraza.id, granted: true }] });
    const after = await (await load(`?doorId=${terraza.code}`)).json();
    expect(after.stats).toEqual({ total: 1, granted: 1, denied: 0, alarms: 0, uniqueCards: 1 });
    // Every row stays: the two denials are shown as resolved under their own filter.
    const resolved = await (await load(`?doorId=${terraza.code}&status=resolved`)).json();
    expect(resolved.lines).toMatchObject([{ outcome: "resolved", count: 2, canApprove: false }]);
  });

  it("offers 'Aprobar' only where approving changes something: not for a card already granted at that door", async () => {
    const patio = await door("Patio");
    const hall = await door("Vestíbulo");
    const granted = await registerCard({ cardNumber: `${hexPrefix()}0A`, status: "active" });
    const ok = await setCardPermission(granted.id, patio.id, true);
    expect(ok.ok).toBe(true);
    const inactiveGranted = await registerCard({ cardNumber: `${hexPrefix()}0B`, status: "inactive" });
    await setCardPermission(inactiveGranted.id, patio.id, true);
    const pending = await registerCard({ cardNumber: `${hexPrefix()}0C`, status: "pending" });
    const now = Date.now();
    const [outOfHours, otherDoor, noDoor, inactive, pendingRow] = await insertLogs([
      // Active and granted at the patio, denied for another reason: nothing to approve.
      { at: now - 5 * MINUTE, cardNumber: granted.cardNumber, cardId: granted.id, door: patio, granted: false, reason: "door_maintenance" },
      // The same card at a door it is not granted: approving grants it.
      { at: now - 4 * MINUTE, cardNumber: granted.cardNumber, cardId: granted.id, door: hall, granted: false },
      // No door to grant and nothing pending.
      { at: now - 3 * MINUTE, cardNumber: granted.cardNumber, cardId: granted.id, door: null, granted: false, reason: "unknown_door" },
      // Granted already; inactive, which approving does not change.
      { at: now - 2 * MINUTE, cardNumber: inactiveGranted.cardNumber, cardId: inactiveGranted.id, door: patio, granted: false, reason: "card_inactive" },
      // Pending: approving activates it.
      { at: now - 1 * MINUTE, cardNumber: pending.cardNumber, cardId: pending.id, door: patio, granted: false, reason: "card_pending" },
    ]);
    const body = await (await load("?status=denied&dateRange=24h")).json();
    const offered = (id: string) => body.lines.find((line: { id: string }) => line.id === id)?.canApprove;
    expect(offered(outOfHours!)).toBe(false);
    expect(offered(otherDoor!)).toBe(true);
    expect(offered(noDoor!)).toBe(false);
    expect(offered(inactive!)).toBe(false);
    expect(offered(pendingRow!)).toBe(true);
  });

  it("grants the door with the hours the confirmation names, or adds the holder to a group; never for a card already active and assigned (issue 40)", async () => {
    const azotea = await door("Azotea");
    const resident = await createTestUser();
    const hours = await registerCard({ cardNumber: `${hexPrefix()}0D`, status: "pending" });
    const holders = await registerCard({ cardNumber: `${hexPrefix()}0E`, status: "pending", userId: resident.id });
    const assigned = await registerCard({ cardNumber: `${hexPrefix()}0F`, status: "active", userId: resident.id });
    const group = await createAccessGroup({ name: `Residentes ${hexPrefix()}`, doors: [{ doorId: azotea.code, schedule: [] }] });
    if (!group.ok) throw new Error(group.message);
    const now = Date.now();
    const [byHours, byGroup, ofAssigned] = await insertLogs([
      { at: now - 3 * MINUTE, cardNumber: hours.cardNumber, cardId: hours.id, door: azotea, granted: false, reason: "card_pending" },
      { at: now - 2 * MINUTE, cardNumber: holders.cardNumber, cardId: holders.id, door: azotea, granted: false, reason: "card_pending" },
      { at: now - 1 * MINUTE, cardNumber: assigned.cardNumber, cardId: assigned.id, door: azotea, granted: false, reason: "outside_schedule" },
    ]);
    const body = await (await load(`?doorId=${azotea.code}`)).json();
    const offered = (id: string) => body.lines.find((line: { id: string }) => line.id === id)?.canApprove;
    expect([offered(byHours!), offered(byGroup!), offered(ofAssigned!)]).toEqual([true, true, false]);

    // The door with its hours: a timetable on the permission, not "always".
    expect((await post({ intent: "approve-card", logId: byHours!, doorId: azotea.code, schedule: "L-V 08:00-20:00" })).status).toBe(302);
    expect(await getCardById(hours.id)).toMatchObject({
      status: "active",
      permissions: [{ doorId: azotea.id, granted: true, schedule: [{ days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" }] }],
    });
    // The group: no door permission of its own; its holder joins the group.
    expect((await post({ intent: "approve-card", logId: byGroup!, groupId: group.group._id })).status).toBe(302);
    expect(await getCardById(holders.id)).toMatchObject({ status: "active", permissions: [] });
    expect(await listGroupIdsOfUsers([resident.id])).toEqual(new Map([[resident.id, [group.group._id]]]));
    // Active and assigned: the confirmation says so and a crafted post is refused.
    expect((await (await load(`?approve=${ofAssigned!}`)).json()).approval).toMatchObject({ detail: null, message: "La tarjeta ya está activa y asignada: cambia sus permisos desde Gestionar Tarjetas" });
    const refused = await post({ intent: "approve-card", logId: ofAssigned!, doorId: azotea.code });
    expect(refused.status).toBe(409);
    expect(await getCardById(assigned.id)).toMatchObject({ permissions: [] });
  });

  it("says when an approved card stays inactive (approving only activates pending cards)", async () => {
    const trastero = await door("Trastero");
    const inactive = await registerCard({ cardNumber: `${hexPrefix()}08`, status: "inactive" });
    const [denied] = await insertLogs([
      { at: Date.now(), cardNumber: inactive.cardNumber, cardId: inactive.id, door: trastero, granted: false, reason: "card_inactive" },
    ]);
    const response = await post({ intent: "approve-card", logId: denied!, doorId: trastero.code });
    expect(await toastOf(response)).toMatchObject({
      title: "Tarjeta aprobada",
      description: `${inactive.cardNumber} con acceso a Trastero; 1 registro denegado marcado como resuelto. La tarjeta sigue inactiva.`,
    });
    expect(await getCardById(inactive.id)).toMatchObject({ status: "inactive", permissions: [{ doorId: trastero.id, granted: true }] });
  });

  it("says 'Error al aprobar tarjeta: …' with the reason and its status when it cannot approve", async () => {
    const sotano = await door("Sótano");
    const active = await registerCard({ cardNumber: `${hexPrefix()}06`, status: "active" });
    const [granted, unregistered, withoutDoor] = await insertLogs([
      { at: Date.now(), cardNumber: active.cardNumber, cardId: active.id, door: sotano, granted: true },
      { at: Date.now(), cardNumber: `${hexPrefix()}07`, door: sotano, granted: false },
      { at: Date.now(), cardNumber: active.cardNumber, cardId: active.id, door: null, granted: false, reason: "unknown_door" },
    ]);
    const cases = [
      [{ logId: "nope" }, 404, "Registro no encontrado"],
      [{ logId: granted! }, 409, "Ese acceso no fue denegado"],
      [{ logId: unregistered! }, 404, "El registro no corresponde a ninguna tarjeta registrada"],
      [{ logId: withoutDoor! }, 409, "La tarjeta no está pendiente de aprobación"],
    ] as const;
    for (const [fields, status, reason] of cases) {
      const response = await post({ intent: "approve-card", ...fields });
      expect(response.status, reason).toBe(status);
      const message = `Error al aprobar tarjeta: ${reason}`;
      expect(await toastOf(response)).toMatchObject({ type: "error", title: "Error", description: message });
      const body = await response.json();
      expect(body).toMatchObject({ intent: "approve-card" });
      expect(body.result.error[""]).toEqual([message]);
    }
    // Nothing was cleaned up.
    const rows = await (await load(`?doorId=${sotano.code}`)).json();
    expect(rows.stats.total).toBe(2);
  });

  it("answers 400 to an unknown intent", async () => {
    expect((await post({ intent: "paint-it-red" })).status).toBe(400);
  });
});
