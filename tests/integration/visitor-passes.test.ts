// Visitor passes (issue 29): a resident invites a visitor through the JSON
// API, the visitor's mail carries the PIN and the QR (real SMTP receiver),
// the pass opens only the chosen doors inside its window through the real
// access service and its embedded broker (doors played by FakeBridge), the
// resident is told once on its first use, and the house lists and cancels
// passes. The refusals: more than 12 hours, beyond 30 days, a door the
// resident cannot open then, the active-pass limit, someone else's pass.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsMessage } from "~/doors/contract";
import { issueApiToken } from "~/models/api-token.server";
import { getAccessLog } from "~/models/access-log.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import { auditEvents } from "~/db/schema";
import { getDb } from "~/utils/db.server";
import { eq } from "drizzle-orm";
import * as passesRoute from "~/routes/api.user-portal.visitor-passes";
import * as passRoute from "~/routes/api.user-portal.visitor-passes.$id";
import * as adminPassesRoute from "~/routes/api.visitor-passes";
import * as adminPassRoute from "~/routes/api.visitor-passes.$id";
import * as logsRoute from "~/routes/api.logs";
import { setCardPermission } from "~/services/cards.server";
import { notifyVisitorArrivals } from "~/services/visitor-passes.server";
import { sha256 } from "~/utils/crypto.server";
import { addDays, formatTime, todayInMadrid } from "~/utils/dates";
import { eventually } from "../../bridge/src/test-support/eventually";
import type { FakeBridge } from "../setup/access";
import { FakeDoorChain } from "../setup/door-chain";
import { createApiCallers, createTestCard, hexPrefix } from "../setup/fixtures";
import { mimePart } from "../setup/mime";
import { callApi } from "../setup/route";

const chain = new FakeDoorChain("vp", { MAX_ACTIVE_VISITOR_PASSES: "3" });
const door = chain.door.bind(chain);

beforeAll(() => chain.start());
afterAll(() => chain.stop());

/** A resident named Carlos Ruiz holding an active card granted on these doors (row ids), with an API token. */
async function resident(doorIds: string[]) {
  const { card, user } = await createTestCard(hexPrefix(4), doorIds, { firstName: "Carlos" });
  return { user: user!, card, token: (await issueApiToken(user!.id)).token };
}

/** Today's span from a minute ago for `hours` (within today in Madrid, as a form sends it). */
function spanFromNow(hours = 2) {
  const now = new Date();
  const start = new Date(now.getTime() - 60_000);
  const end = new Date(Math.min(now.getTime() + hours * 3600_000, new Date(`${todayInMadrid(now)}T00:00:00Z`).getTime() + 47 * 3600_000));
  const date = todayInMadrid(now);
  // Near midnight a span from now would cross into tomorrow: use tomorrow's morning instead.
  if (todayInMadrid(end) !== date || formatTime(end) <= formatTime(start)) return { date: addDays(date, 1), startTime: "09:00", endTime: "11:00", startsNow: false };
  return { date, startTime: formatTime(start), endTime: formatTime(end), startsNow: true };
}

const latestList = (bridge: FakeBridge) => bridge.latest("credentials")?.json as CredentialsMessage | undefined;
const listHasPin = (bridge: FakeBridge, pin: string) => {
  const list = latestList(bridge);
  return Boolean(list?.keys?.some((key) => key.k === "pin" && key.h === sha256(`${list.salt}pin:${pin}`)));
};

const create = (token: string, body: Record<string, unknown>) => callApi(passesRoute.action, "/api/user-portal/visitor-passes", { method: "POST", token, body });

describe("a resident's visitor pass", () => {
  it("is created with its PIN and QR once, mailed to the visitor, and opens only its doors inside its window; the resident is told once", async () => {
    const entrance = await door("Portal V", { entrance: true });
    const gym = await door("Gimnasio V");
    const { user, token } = await resident([entrance.door.id, gym.door.id]);
    const span = spanFromNow();

    const created = await create(token, { visitorName: "Bea Suárez", visitorEmail: "Bea@Example.com", ...span });
    expect(created.status).toBe(201);
    const pass = created.body.data;
    expect(pass).toMatchObject({
      visitorName: "Bea Suárez",
      visitorEmail: "bea@example.com",
      status: "active",
      firstUsedAt: null,
      createdBy: user.id,
      doors: [{ doorId: entrance.door.code, name: "Portal V" }],
    });
    expect(pass.pin).toMatch(/^\d{6}$/);
    expect(pass.qr).toMatch(/^LC1-[A-Z2-7]{32}$/);

    // The visitor's mail: the code line, the QR as an inline PNG.
    const mail = await eventually(() => chain.smtp.messages.find((message) => message.to.includes("bea@example.com")), "the visitor's mail");
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain("Carlos te ha invitado");
    expect(text).toContain(`Tu código de acceso: ${pass.pin} · válido del`);
    expect(text).toContain(pass.qr);
    expect(mail.raw).toContain("Content-Type: image/png");

    // The list never shows the PIN or the token again.
    const listed = await callApi(passesRoute.loader, "/api/user-portal/visitor-passes", { token });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ _id: pass._id, status: "active" });
    expect(JSON.stringify(listed.body.data)).not.toContain(pass.pin);
    expect(JSON.stringify(listed.body.data)).not.toContain(pass.qr);

    if (!span.startsNow) chain.clockOffsetMs = new Date(pass.validFrom).getTime() - Date.now() + 60_000;
    try {
      // The chosen door opens, greeting the visitor; a door the pass does not name does not.
      const opened = await entrance.bridge.typePin(pass.pin);
      expect(opened).toMatchObject({ granted: true, reason: "granted", display: { line1: "Hola, Bea" } });
      expect(await eventually(() => getAccessLog(opened.id), "the pass's row")).toMatchObject({
        credentialKind: "pin",
        holder: "Visita de Bea Suárez: Carlos",
        accessGranted: true,
        // The resident who invited: a search of the log by their username finds their visitors.
        userId: user.id,
        username: user.username,
      });
      expect(await gym.bridge.scanQr(pass.qr)).toMatchObject({ granted: false, reason: "no_permission" });
      const { adminToken } = await createApiCallers();
      const searched = await callApi(logsRoute.loader, `/api/logs?search=${user.username}&credentialKind=pin`, { token: adminToken });
      expect(searched.body.data.logs).toEqual([expect.objectContaining({ _id: opened.id, holder: "Visita de Bea Suárez: Carlos", user: user.username })]);

      // First use: one notification, whatever happens next.
      await eventually(async () => {
        await notifyVisitorArrivals();
        return (await listNotificationsOfUser(user.id)).find((n) => n.message === "Tu visita Bea Suárez ha llegado");
      }, "the arrival notification");
      expect(await entrance.bridge.scanQr(pass.qr)).toMatchObject({ granted: true });
      await eventually(async () => (await callApi(passesRoute.loader, "/api/user-portal/visitor-passes", { token })).body.data[0].status === "used" || null, "the pass marked used");
      await notifyVisitorArrivals();
      expect((await listNotificationsOfUser(user.id)).filter((n) => n.message.startsWith("Tu visita"))).toHaveLength(1);

      // After its window: refused at its own door.
      chain.clockOffsetMs = new Date(pass.validUntil).getTime() - Date.now() + 60_000;
      expect(await entrance.bridge.typePin(pass.pin)).toMatchObject({ granted: false, reason: "outside_key_window" });
    } finally {
      chain.clockOffsetMs = 0;
    }
  });

  it("cancelled ('Anular invitación') it is refused at once and leaves the door's offline list", async () => {
    const entrance = await door("Portal W", { entrance: true });
    const { token } = await resident([entrance.door.id]);
    const span = spanFromNow();
    const { body } = await create(token, { visitorName: "Luis", visitorEmail: "luis@example.com", ...span });
    const pass = body.data;
    await eventually(() => listHasPin(entrance.bridge, pass.pin) || null, "the pass in the offline list");

    // Another resident's DELETE does not find it.
    const other = await resident([entrance.door.id]);
    expect((await callApi(passRoute.action, `/api/user-portal/visitor-passes/${pass._id}`, { method: "DELETE", token: other.token, params: { id: pass._id } })).status).toBe(404);

    const cancelled = await callApi(passRoute.action, `/api/user-portal/visitor-passes/${pass._id}`, { method: "DELETE", token, params: { id: pass._id } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: "cancelled", cancellable: false });
    if (span.startsNow) expect(await entrance.bridge.typePin(pass.pin)).toMatchObject({ granted: false, reason: "invalid_key" });
    await eventually(() => !listHasPin(entrance.bridge, pass.pin) || null, "the pass gone from the offline list", 1000);
    // Both changes are in the audit trail, without the PIN or the token.
    const events = await getDb().select().from(auditEvents).where(eq(auditEvents.entityId, pass._id));
    expect(events.map((event) => event.action).sort()).toEqual(["visitor_pass.cancel", "visitor_pass.create"]);
    const recorded = JSON.stringify(events.map((event) => [event.summary, event.before, event.after]));
    expect(recorded).not.toContain(pass.pin);
    expect(recorded).not.toContain(pass.qr);
    // Twice: it is no longer active.
    const again = await callApi(passRoute.action, `/api/user-portal/visitor-passes/${pass._id}`, { method: "DELETE", token, params: { id: pass._id } });
    expect(again).toMatchObject({ status: 409, body: { success: false, error: { message: "Esta invitación ya no está activa" } } });
  });

  it("refuses a span over 12 hours, a day beyond 30 days, a door the resident cannot open then, and a pass past the limit; nothing is stored", async () => {
    const entrance = await door("Portal X", { entrance: true });
    const office = await door("Oficina X");
    const { card, token } = await resident([entrance.door.id]);
    // The office only on weekday mornings, through a timetable on the card's permission.
    expect((await setCardPermission(card.id, office.door.id, true, [{ days: [1, 2, 3, 4, 5, 6, 7], from: "08:00", to: "12:00" }])).ok).toBe(true);
    const day = addDays(todayInMadrid(), 3);
    const base = { visitorName: "Eva", visitorEmail: "eva@example.com", date: day };

    expect(await create(token, { ...base, startTime: "08:00", endTime: "20:30" })).toMatchObject({ status: 400, body: { error: { message: "Una invitación dura como máximo 12 horas" } } });
    expect(await create(token, { ...base, startTime: "10:00", endTime: "09:00" })).toMatchObject({ status: 400, body: { error: { message: "La hora de fin debe ser posterior a la de inicio" } } });
    expect(await create(token, { ...base, date: addDays(todayInMadrid(), 31), startTime: "10:00", endTime: "11:00" })).toMatchObject({
      status: 400,
      body: { error: { message: "La fecha debe estar dentro de los próximos 30 días" } },
    });
    expect(await create(token, { ...base, startTime: "11:00", endTime: "13:00", doorIds: [office.door.code] })).toMatchObject({
      status: 403,
      body: { error: { message: "No puedes abrir Oficina X en ese horario" } },
    });
    // Inside the office's hours it is given, by its code.
    const office1 = await create(token, { ...base, startTime: "09:00", endTime: "11:30", doorIds: [office.door.code] });
    expect(office1).toMatchObject({ status: 201, body: { data: { doors: [{ doorId: office.door.code }] } } });

    // MAX_ACTIVE_VISITOR_PASSES is 3 here.
    expect((await create(token, { ...base, startTime: "15:00", endTime: "16:00" })).status).toBe(201);
    expect((await create(token, { ...base, startTime: "16:00", endTime: "17:00" })).status).toBe(201);
    expect(await create(token, { ...base, startTime: "17:00", endTime: "18:00" })).toMatchObject({
      status: 409,
      body: { error: { message: "Ya tienes 3 invitaciones activas: anula una para crear otra" } },
    });
    expect((await callApi(passesRoute.loader, "/api/user-portal/visitor-passes", { token })).body.data).toHaveLength(3);

    // A resident without any card can open nothing, so can invite no one.
    const { residentToken } = await createApiCallers();
    expect(await create(residentToken, { ...base, startTime: "10:00", endTime: "11:00" })).toMatchObject({
      status: 403,
      body: { error: { message: "No puedes abrir ninguna entrada del edificio en ese horario" } },
    });
  });

  it("the house lists every pass with filters and cancels any; a resident may not use the admin API", async () => {
    const entrance = await door("Portal Y", { entrance: true });
    const { user, token } = await resident([entrance.door.id]);
    const { adminToken } = await createApiCallers();
    const day = addDays(todayInMadrid(), 5);
    const visitorName = `Visita ${hexPrefix(3)}`;
    const { body } = await create(token, { visitorName, visitorEmail: "v@example.com", date: day, startTime: "10:00", endTime: "12:00" });

    const listed = await callApi(adminPassesRoute.loader, `/api/visitor-passes?userId=${user.id}&status=active`, { token: adminToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject({ total: 1, passes: [{ _id: body.data._id, visitorName, resident: { _id: user.id, name: "Carlos" } }] });
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes?search=${encodeURIComponent(visitorName)}`, { token: adminToken })).body.data.total).toBe(1);
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes?status=nada`, { token: adminToken })).status).toBe(400);
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes`, { token })).status).toBe(403);

    const cancelled = await callApi(adminPassRoute.action, `/api/visitor-passes/${body.data._id}`, { method: "DELETE", token: adminToken, params: { id: body.data._id } });
    expect(cancelled).toMatchObject({ status: 200, body: { data: { status: "cancelled" } } });
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes?userId=${user.id}&status=cancelled`, { token: adminToken })).body.data.total).toBe(1);
    // The same filters read again with other values (each shape of query is prepared once): the answers follow the values.
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes?userId=${user.id}&status=active`, { token: adminToken })).body.data.total).toBe(0);
    const other = await resident([entrance.door.id]);
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes?userId=${other.user.id}&status=cancelled`, { token: adminToken })).body.data.total).toBe(0);
    expect((await callApi(adminPassesRoute.loader, `/api/visitor-passes?search=${encodeURIComponent(`${visitorName}-otra`)}`, { token: adminToken })).body.data.total).toBe(0);
  });
});
