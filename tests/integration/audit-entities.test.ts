// Every change of the list in docs/audit.md, made through the JSON API (the
// pages call the same services), leaves exactly one audit event with its
// actor, address and summary; a refused change leaves none; and a change
// whose event cannot be written is not kept (docs/audit.md "One event per
// change").
import { gt, asc, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, type AuditEvent } from "~/db/schema";
import { getLastAuditEvent } from "~/models/audit-event.server";
import { getCardRow, registerCard } from "~/models/card.server";
import { getDoorById } from "~/models/door.server";
import type { User } from "~/models/user.server";
import * as loginRoute from "~/routes/api.auth.login";
import * as cardRoute from "~/routes/api.cards.$id";
import * as approveRoute from "~/routes/api.cards.$id.approve";
import * as permissionsRoute from "~/routes/api.cards.$id.permissions";
import * as permissionRoute from "~/routes/api.cards.$id.permissions.$doorId";
import * as consultationRoute from "~/routes/api.consultations.$id";
import * as consultationStatusRoute from "~/routes/api.consultations.$id.status";
import * as doorsRoute from "~/routes/api.doors";
import * as doorRoute from "~/routes/api.doors.$id";
import * as credentialsRoute from "~/routes/api.doors.$id.credentials";
import * as messagesRoute from "~/routes/api.doors.$id.messages";
import * as incidentsRoute from "~/routes/api.incidents";
import * as incidentRoute from "~/routes/api.incidents.$id";
import * as incidentStatusRoute from "~/routes/api.incidents.$id.status";
import * as cleanupRoute from "~/routes/api.logs.cleanup";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as reservationRoomRoute from "~/routes/api.anonymous-reservations.$id.room";
import * as roomsRoute from "~/routes/api.rooms";
import * as roomRoute from "~/routes/api.rooms.$id";
import * as reservationStatusRoute from "~/routes/api.anonymous-reservations.$id.status";
import * as guestCancelRoute from "~/routes/api.anonymous-reservations.code.$code.cancel";
import * as bookingsRoute from "~/routes/api.user-portal.bookings";
import * as bookingCancelRoute from "~/routes/api.user-portal.bookings.$id.cancel";
import * as residentIncidentsRoute from "~/routes/api.user-portal.incidents";
import * as residentIncidentRoute from "~/routes/api.user-portal.incidents.$id";
import * as residentIncidentCancelRoute from "~/routes/api.user-portal.incidents.$id.cancel";
import * as passwordRoute from "~/routes/api.user-portal.password";
import * as profileRoute from "~/routes/api.user-portal.profile";
import * as usersRoute from "~/routes/api.users";
import * as userRoute from "~/routes/api.users.$id";
import * as userCardsRoute from "~/routes/api.users.$id.cards";
import * as userCardRoute from "~/routes/api.users.$id.cards.$cardId";
import * as userStatusRoute from "~/routes/api.users.$id.status";
import * as logoutRoute from "~/routes/logout";
import * as loginPage from "~/routes/login";
import * as dashboardPage from "~/routes/admin._index";
import * as cardsPage from "~/routes/admin.cards";
import * as consultationsPage from "~/routes/admin.consultations";
import * as usersPage from "~/routes/admin.users";
import { HIDDEN } from "~/services/audit.server";
import { provisionBuildingSensor } from "~/services/building-sensors.server";
import { reportPublicIncident } from "~/services/visitor.server";
import { asRequester } from "../setup/audit";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { PEER_IP_HEADER } from "~/utils/request-context.server";
import {
  bookingRequest,
  createApiCallers,
  createTestConsultation,
  createTestDoor,
  createTestFacility,
  createTestUser,
  hexPrefix,
  insertLogs,
  minutesFromNow,
  sessionCookie,
  unique,
} from "../setup/fixtures";
import { callRoute, formPost, jsonRequest, type ApiRoute } from "../setup/route";
import { issueApiToken } from "~/models/api-token.server";

let admin: User;
let adminToken: string;
let resident: User;
let residentToken: string;

beforeAll(async () => {
  ({ admin, adminToken, resident, residentToken } = await createApiCallers());
});

const IP = "203.0.113.9";

/** An API call from IP with the token given (the admin's unless null or another). */
async function api(fn: ApiRoute, path: string, { method = "GET", body, token = adminToken, params = {} }: { method?: string; body?: unknown; token?: string | null; params?: Record<string, string> } = {}) {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await callRoute(fn as never, jsonRequest(path, { method, body, ip: IP, headers }), params);
  return { status: response.status, body: await response.json() };
}

async function lastEventId() {
  return (await getLastAuditEvent())?.id ?? 0;
}

function eventsAfter(id: number) {
  return getDb().select().from(auditEvents).where(gt(auditEvents.id, id)).orderBy(asc(auditEvents.id));
}

/** Runs `change` and answers the one event it left (failing when it left none or more). */
async function oneEvent<T>(change: () => Promise<T>): Promise<{ result: T; event: AuditEvent }> {
  const since = await lastEventId();
  const result = await change();
  const events = await eventsAfter(since);
  expect(events.map((event) => event.action), JSON.stringify(result)).toHaveLength(1);
  return { result, event: events[0]! };
}

/** Runs a change that must be refused and answers its result: it left no event. */
async function noEvent<T>(change: () => Promise<T>): Promise<T> {
  const since = await lastEventId();
  const result = await change();
  expect(await eventsAfter(since)).toEqual([]);
  return result;
}

const json = (text: string | null) => (text === null ? null : JSON.parse(text));

describe("doors", () => {
  it("create, edit, status, messages, secret rotation and delete: one event each, the secret hidden; a refused one none", async () => {
    const code = `audit-${unique()}`;
    const created = await oneEvent(() => api(doorsRoute.action, "/api/doors", { method: "POST", body: { doorId: code, name: "Gimnasio", location: "Sótano" } }));
    expect(created.result.status).toBe(201);
    const id = created.result.body.data._id as string;
    expect(created.event).toMatchObject({
      action: "door.create",
      entityType: "door",
      entityId: id,
      actorId: admin.id,
      actorUsername: admin.username,
      actorRole: "admin",
      ip: IP,
      summary: `${admin.username} creó la puerta Gimnasio (${code})`,
      before: null,
    });
    expect(json(created.event.after)).toMatchObject({ code, name: "Gimnasio", location: "Sótano" });

    const edited = await oneEvent(() => api(doorRoute.action, `/api/doors/${id}`, { method: "PUT", params: { id }, body: { name: "Gimnasio Norte" } }));
    expect(edited.event).toMatchObject({ action: "door.update", summary: `${admin.username} editó la puerta Gimnasio Norte` });
    expect([json(edited.event.before), json(edited.event.after)]).toEqual([{ name: "Gimnasio" }, { name: "Gimnasio Norte" }]);

    const status = await oneEvent(() => api(doorRoute.action, `/api/doors/${id}`, { method: "PUT", params: { id }, body: { status: "maintenance" } }));
    expect(status.event).toMatchObject({ action: "door.status", summary: `${admin.username} cambió el estado de la puerta Gimnasio Norte a mantenimiento` });

    const messages = await oneEvent(() =>
      api(messagesRoute.action, `/api/doors/${id}/messages`, { method: "PUT", params: { id }, body: { useCustomMessages: true, customStatus: "CERRADO", customMessage: "Vuelve luego" } }),
    );
    expect(messages.event).toMatchObject({ action: "door.messages", summary: `${admin.username} cambió los mensajes de la puerta Gimnasio Norte` });
    expect(json(messages.event.after)).toEqual({ useCustomMessages: true, customStatus: "CERRADO", customMessage: "Vuelve luego" });

    const rotated = await oneEvent(() => api(credentialsRoute.action, `/api/doors/${id}/credentials`, { method: "POST", params: { id } }));
    expect(rotated.result.status).toBe(200);
    const password = rotated.result.body.data.password as string;
    expect(rotated.event).toMatchObject({ action: "door.rotate_secret", summary: `${admin.username} renovó la credencial del puente de la puerta Gimnasio Norte` });
    expect(json(rotated.event.after)).toMatchObject({ bridgeSecretHash: HIDDEN });
    const hash = (await getDoorById(id))!.bridgeSecretHash!;
    const stored = `${rotated.event.before} ${rotated.event.after}`;
    expect(stored).not.toContain(hash);
    expect(stored).not.toContain(password);

    // Refused: another door's code (409), an unknown door (404), values already stored (nothing to record).
    expect((await noEvent(() => api(doorsRoute.action, "/api/doors", { method: "POST", body: { doorId: code, name: "Otra", location: "Otra" } }))).status).toBe(409);
    expect((await noEvent(() => api(doorRoute.action, "/api/doors/nope", { method: "PUT", params: { id: "nope" }, body: { name: "X" } }))).status).toBe(404);
    expect((await noEvent(() => api(doorRoute.action, `/api/doors/${id}`, { method: "PUT", params: { id }, body: { name: "Gimnasio Norte" } }))).status).toBe(200);

    const deleted = await oneEvent(() => api(doorRoute.action, `/api/doors/${id}`, { method: "DELETE", params: { id } }));
    expect(deleted.event).toMatchObject({ action: "door.delete", summary: `${admin.username} eliminó la puerta Gimnasio Norte (${code})`, after: null });
    expect(json(deleted.event.before)).toMatchObject({ code, name: "Gimnasio Norte" });
  });
});

describe("cards", () => {
  it("alias, status, permission granted, denied and removed, approve and delete: one event each; refusals none", async () => {
    const door = await createTestDoor({ name: `Gimnasio ${unique()}` });
    const card = await registerCard({ cardNumber: `${hexPrefix()}0A`, status: "pending" });
    const id = card.id;

    const refusedApproval = await noEvent(() => api(approveRoute.action, `/api/cards/${id}/approve`, { method: "PUT", params: { id }, body: { doorId: "no-such-door" } }));
    expect(refusedApproval.status).toBe(404);

    const approved = await oneEvent(() => api(approveRoute.action, `/api/cards/${id}/approve`, { method: "PUT", params: { id }, body: { doorId: door.code } }));
    expect(approved.event).toMatchObject({ action: "card.approve", entityId: id, summary: `${admin.username} aprobó la tarjeta ${card.cardNumber} con acceso a ${door.name}` });
    expect(json(approved.event.after)).toMatchObject({ status: "active", granted: true, doorId: door.code });

    const alias = await oneEvent(() => api(cardRoute.action, `/api/cards/${id}`, { method: "PUT", params: { id }, body: { alias: "Llavero" } }));
    expect(alias.event).toMatchObject({ action: "card.alias", summary: `${admin.username} cambió el alias de la tarjeta ${card.cardNumber} a «Llavero»` });

    const status = await oneEvent(() => api(cardRoute.action, `/api/cards/${id}`, { method: "PUT", params: { id }, body: { status: "inactive" } }));
    expect(status.event).toMatchObject({ action: "card.status", summary: `${admin.username} cambió el estado de la tarjeta ${card.cardNumber} a inactiva` });

    const other = await createTestDoor({ name: `Piscina ${unique()}` });
    const denied = await oneEvent(() => api(permissionsRoute.action, `/api/cards/${id}/permissions`, { method: "POST", params: { id }, body: { doorId: other.code, granted: false } }));
    expect(denied.event).toMatchObject({ action: "card.permission_deny", summary: `${admin.username} denegó el acceso de la tarjeta ${card.cardNumber} a ${other.name}` });

    const granted = await oneEvent(() => api(permissionsRoute.action, `/api/cards/${id}/permissions`, { method: "POST", params: { id }, body: { doorId: other.code, granted: true } }));
    expect(granted.event).toMatchObject({ action: "card.permission_grant", summary: `${admin.username} concedió el acceso de la tarjeta ${card.cardNumber} a ${other.name}` });
    expect([json(granted.event.before), json(granted.event.after)]).toEqual([
      { door: other.name, doorId: other.code, granted: false },
      { door: other.name, doorId: other.code, granted: true },
    ]);

    const revoked = await oneEvent(() => api(permissionRoute.action, `/api/cards/${id}/permissions/${door.code}`, { method: "DELETE", params: { id, doorId: door.code } }));
    expect(revoked.event).toMatchObject({ action: "card.permission_remove", summary: `${admin.username} revocó el acceso de la tarjeta ${card.cardNumber} a ${door.name}` });
    expect((await noEvent(() => api(permissionRoute.action, `/api/cards/${id}/permissions/${door.code}`, { method: "DELETE", params: { id, doorId: door.code } }))).status).toBe(404);

    const deleted = await oneEvent(() => api(cardRoute.action, `/api/cards/${id}`, { method: "DELETE", params: { id } }));
    expect(deleted.event).toMatchObject({ action: "card.delete", summary: `${admin.username} eliminó la tarjeta ${card.cardNumber}` });
    expect(json(deleted.event.before)).toMatchObject({ cardNumber: card.cardNumber, permissions: [{ doorId: other.code, granted: true }] });
  });

  it("assign, edit, reassign and unassign through a user: one event each; a suspended card is refused with none", async () => {
    const first = await createTestUser();
    const second = await createTestUser();
    const cardNumber = `${hexPrefix()}${hexPrefix()}`;
    const assigned = await oneEvent(() => api(userCardsRoute.action, `/api/users/${first.id}/cards`, { method: "POST", params: { id: first.id }, body: { cardNumber } }));
    expect(assigned.result.status).toBe(201);
    const cardId = assigned.result.body.data.card._id as string;
    expect(assigned.event).toMatchObject({ action: "card.assign", entityId: cardId, summary: `${admin.username} asignó la tarjeta ${cardNumber} a ${first.username}` });

    const edited = await oneEvent(() =>
      api(userCardRoute.action, `/api/users/${first.id}/cards/${cardId}`, { method: "PUT", params: { id: first.id, cardId }, body: { alias: "Azul", cardType: "temporary" } }),
    );
    expect(edited.event).toMatchObject({ action: "card.update", entityId: cardId });
    expect(json(edited.event.after)).toMatchObject({ alias: "Azul", cardType: "temporary" });

    const reassigned = await oneEvent(() => api(userCardsRoute.action, `/api/users/${second.id}/cards`, { method: "POST", params: { id: second.id }, body: { cardNumber } }));
    expect(reassigned.event).toMatchObject({ action: "card.reassign", summary: `${admin.username} reasignó la tarjeta ${cardNumber} de ${first.username} a ${second.username}` });

    const unassigned = await oneEvent(() => api(userCardRoute.action, `/api/users/${second.id}/cards/${cardId}`, { method: "DELETE", params: { id: second.id, cardId } }));
    expect(unassigned.event).toMatchObject({ action: "card.unassign", summary: `${admin.username} desasignó la tarjeta ${cardNumber} de ${second.username}` });

    const suspended = await registerCard({ cardNumber: `${hexPrefix()}${hexPrefix()}`, status: "suspended" });
    const refused = await noEvent(() => api(userCardsRoute.action, `/api/users/${first.id}/cards`, { method: "POST", params: { id: first.id }, body: { cardNumber: suspended.cardNumber } }));
    expect(refused.status).toBe(409);
    expect((await getCardRow(suspended.id))!.userId).toBeNull();
  });
});

describe("users", () => {
  it("create, edit, status, role, password reset and delete: one event each, no password in any; a clash none", async () => {
    const username = `audit-${unique()}`;
    const password = "clave-del-alta-1";
    const created = await oneEvent(() => api(usersRoute.action, "/api/users", { method: "POST", body: { username, email: `${username}@example.com`, password, role: "user" } }));
    expect(created.result.status).toBe(201);
    const id = created.result.body.data._id as string;
    expect(created.event).toMatchObject({ action: "user.create", entityId: id, summary: `${admin.username} creó el usuario ${username} (usuario)` });

    const body = (fields: Record<string, unknown>) => ({ username, email: `${username}@example.com`, role: "user", status: "active", ...fields });
    const edited = await oneEvent(() => api(userRoute.action, `/api/users/${id}`, { method: "PUT", params: { id }, body: body({ firstName: "Lola" }) }));
    expect(edited.event).toMatchObject({ action: "user.update", summary: `${admin.username} editó el usuario ${username}` });

    const status = await oneEvent(() => api(userStatusRoute.action, `/api/users/${id}/status`, { method: "PUT", params: { id }, body: { status: "inactive" } }));
    expect(status.event).toMatchObject({ action: "user.status", summary: `${admin.username} cambió el estado del usuario ${username} a inactivo` });

    const role = await oneEvent(() => api(userRoute.action, `/api/users/${id}`, { method: "PUT", params: { id }, body: body({ firstName: "Lola", role: "admin" }) }));
    expect(role.event).toMatchObject({ action: "user.update" });
    expect(json(role.event.after)).toMatchObject({ role: "admin", status: "active" });

    const backToResident = await oneEvent(() => api(userRoute.action, `/api/users/${id}`, { method: "PUT", params: { id }, body: body({ firstName: "Lola", role: "user" }) }));
    expect(backToResident.event).toMatchObject({ action: "user.role", summary: `${admin.username} cambió el rol del usuario ${username} a usuario` });

    const newPassword = "otra-clave-nueva-2";
    const reset = await oneEvent(() => api(userRoute.action, `/api/users/${id}`, { method: "PUT", params: { id }, body: body({ firstName: "Lola", password: newPassword }) }));
    expect(reset.event).toMatchObject({ action: "user.password_reset", summary: `${admin.username} restableció la contraseña del usuario ${username}` });
    expect(json(reset.event.after)).toEqual({ password: HIDDEN });

    const clash = await noEvent(() => api(usersRoute.action, "/api/users", { method: "POST", body: { username, email: `otro-${username}@example.com`, password, role: "user" } }));
    expect(clash.status).toBe(409);

    const deleted = await oneEvent(() => api(userRoute.action, `/api/users/${id}`, { method: "DELETE", params: { id } }));
    expect(deleted.event).toMatchObject({ action: "user.delete", summary: `${admin.username} eliminó el usuario ${username}` });

    const everything = (await eventsAfter(created.event.id - 1)).map((event) => `${event.before} ${event.after}`).join(" ");
    for (const secret of [password, newPassword, "$scrypt", "passwordHash\":\"$"]) expect(everything).not.toContain(secret);
  });
});

describe("guests' reservations", () => {
  it("a guest's request and cancellation name the reservation code as the actor; the admin's confirmation is the admin's; a refused one leaves none", async () => {
    const today = todayInMadrid();
    const requested = await oneEvent(() =>
      api(reservationsRoute.action, "/api/anonymous-reservations", {
        method: "POST",
        token: null,
        body: {
          guestName: "Lucía Fernández",
          guestEmail: `lucia-${unique()}@example.com`,
          guestPhone: "+34 600 111 222",
          reservationType: "habitacion",
          roomType: "doble",
          startDate: addDays(today, 20),
          endDate: addDays(today, 23),
          contactPreference: "email",
        },
      }),
    );
    expect(requested.result.status).toBe(201);
    const { _id: id, reservationCode: code, guestEmail } = requested.result.body.data;
    expect(requested.event).toMatchObject({ action: "reservation.create", entityId: id, actorId: null, actorUsername: code, actorRole: "huesped", ip: IP });

    const confirmed = await oneEvent(() => api(reservationStatusRoute.action, `/api/anonymous-reservations/${id}/status`, { method: "PUT", params: { id }, body: { status: "confirmed" } }));
    expect(confirmed.event).toMatchObject({ action: "reservation.confirm", actorUsername: admin.username, summary: `${admin.username} confirmó la reserva ${code} de Lucía Fernández` });

    const cancelled = await oneEvent(() => api(guestCancelRoute.action, `/api/anonymous-reservations/code/${code}/cancel`, { method: "PUT", token: null, params: { code }, body: { guestEmail } }));
    expect(cancelled.event).toMatchObject({ action: "reservation.cancel", actorUsername: code, actorRole: "huesped", summary: `${code} canceló su reserva ${code}` });
    expect([json(cancelled.event.before), json(cancelled.event.after)]).toEqual([{ status: "confirmed" }, { status: "cancelled" }]);

    const refused = await noEvent(() => api(reservationStatusRoute.action, `/api/anonymous-reservations/${id}/status`, { method: "PUT", params: { id }, body: { status: "confirmed" } }));
    expect(refused.status).toBe(409);
  });
});

describe("rooms", () => {
  it("create, edit, a stay given a room and moved to another, a refused and a done delete: one event each", async () => {
    const names = [`A${unique().slice(0, 6)}`, `B${unique().slice(0, 6)}`];
    const ids: string[] = [];
    for (const name of names) {
      const created = await oneEvent(() => api(roomsRoute.action, "/api/rooms", { method: "POST", body: { name, floor: 4, roomType: "suite" } }));
      expect(created.result.status).toBe(201);
      ids.push(created.result.body.data._id);
      expect(created.event).toMatchObject({ action: "room.create", entityType: "room", summary: `${admin.username} creó la habitación ${name}` });
    }
    const [first, second] = ids as [string, string];
    const edited = await oneEvent(() => api(roomRoute.action, `/api/rooms/${first}`, { method: "PUT", params: { id: first }, body: { notes: "Vistas al patio" } }));
    expect([json(edited.event.before), json(edited.event.after)]).toEqual([{ notes: null }, { notes: "Vistas al patio" }]);

    const today = todayInMadrid();
    const requested = await api(reservationsRoute.action, "/api/anonymous-reservations", {
      method: "POST",
      token: null,
      body: { guestName: "Ana Suite", guestEmail: `ana-${unique()}@example.com`, guestPhone: "+34 600 111 222", reservationType: "habitacion", roomType: "suite", startDate: addDays(today, 40), endDate: addDays(today, 42), contactPreference: "email" },
    });
    const stayId = requested.body.data._id as string;
    const confirmed = await oneEvent(() => api(reservationStatusRoute.action, `/api/anonymous-reservations/${stayId}/status`, { method: "PUT", params: { id: stayId }, body: { status: "confirmed", roomId: first } }));
    expect(confirmed.event).toMatchObject({ action: "reservation.confirm" });
    expect(json(confirmed.event.after)).toMatchObject({ status: "confirmed", roomId: first });
    const moved = await oneEvent(() => api(reservationRoomRoute.action, `/api/anonymous-reservations/${stayId}/room`, { method: "PUT", params: { id: stayId }, body: { roomId: second } }));
    expect(moved.event).toMatchObject({ action: "reservation.room", entityId: stayId });
    expect([json(moved.event.before), json(moved.event.after)]).toEqual([{ roomId: first }, { roomId: second }]);

    expect((await noEvent(() => api(roomRoute.action, `/api/rooms/${second}`, { method: "DELETE", params: { id: second } }))).status).toBe(409);
    const deleted = await oneEvent(() => api(roomRoute.action, `/api/rooms/${first}`, { method: "DELETE", params: { id: first } }));
    expect(deleted.event).toMatchObject({ action: "room.delete", summary: `${admin.username} eliminó la habitación ${names[0]}` });
  });
});

describe("consultations", () => {
  it("status, notes and delete: one event each; an unknown one none", async () => {
    const consultation = await createTestConsultation();
    const id = consultation.id;
    const status = await oneEvent(() => api(consultationStatusRoute.action, `/api/consultations/${id}/status`, { method: "PUT", params: { id }, body: { status: "replied" } }));
    expect(status.event).toMatchObject({ action: "consultation.status", summary: `${admin.username} cambió el estado de la consulta de ${consultation.nombre} a respondida` });
    const notes = await oneEvent(() => api(consultationStatusRoute.action, `/api/consultations/${id}/status`, { method: "PUT", params: { id }, body: { adminNotes: "Llamar el lunes" } }));
    expect(notes.event).toMatchObject({ action: "consultation.notes" });
    expect(json(notes.event.after)).toEqual({ adminNotes: "Llamar el lunes" });
    expect((await noEvent(() => api(consultationRoute.action, "/api/consultations/nope", { method: "DELETE", params: { id: "nope" } }))).status).toBe(404);
    const deleted = await oneEvent(() => api(consultationRoute.action, `/api/consultations/${id}`, { method: "DELETE", params: { id } }));
    expect(deleted.event).toMatchObject({ action: "consultation.delete", summary: `${admin.username} eliminó la consulta de ${consultation.nombre}` });
  });
});

describe("incidents", () => {
  it("create, edit, status and delete: one event each; an unknown door none", async () => {
    const door = await createTestDoor({ name: `Portal ${unique()}` });
    expect((await noEvent(() => api(incidentsRoute.action, "/api/incidents", { method: "POST", body: { type: "hardware", doorId: "no-such-door" } }))).status).toBe(404);
    const created = await oneEvent(() => api(incidentsRoute.action, "/api/incidents", { method: "POST", body: { type: "hardware", doorId: door.code, title: "Lector roto" } }));
    expect(created.result.status).toBe(201);
    const id = created.result.body.data._id as string;
    expect(created.event).toMatchObject({ action: "incident.create", entityId: id, summary: `${admin.username} creó la incidencia «Lector roto» en ${door.name}` });
    const edited = await oneEvent(() => api(incidentRoute.action, `/api/incidents/${id}`, { method: "PUT", params: { id }, body: { title: "Lector roto del portal", type: "hardware", status: "open", urgency: "high" } }));
    expect(edited.event).toMatchObject({ action: "incident.update" });
    expect(json(edited.event.after)).toEqual({ title: "Lector roto del portal", urgency: "high" });
    const status = await oneEvent(() => api(incidentStatusRoute.action, `/api/incidents/${id}/status`, { method: "PUT", params: { id }, body: { status: "in-progress" } }));
    expect(status.event).toMatchObject({ action: "incident.status", summary: `${admin.username} cambió el estado de la incidencia «Lector roto del portal» a en progreso` });
    const deleted = await oneEvent(() => api(incidentRoute.action, `/api/incidents/${id}`, { method: "DELETE", params: { id } }));
    expect(deleted.event).toMatchObject({ action: "incident.delete", summary: `${admin.username} eliminó la incidencia «Lector roto del portal»` });
  });
});

describe("access log cleanup", () => {
  it("keeps what it marked resolved (issue 40: nothing is deleted): how many rows, of which card and doors; nothing to mark leaves no event", async () => {
    const first = await createTestDoor({ name: `Garaje ${unique()}` });
    const second = await createTestDoor({ name: `Trastero ${unique()}` });
    const cardNumber = `${hexPrefix()}${hexPrefix()}`;
    const now = Date.now();
    await insertLogs([
      { at: now - 3000, cardNumber, door: first, granted: false, reason: "unknown_card" },
      { at: now - 2000, cardNumber, door: first, granted: false, reason: "unknown_card" },
      { at: now - 1000, cardNumber, door: second, granted: false, reason: "unknown_card" },
      { at: now - 500, cardNumber, door: second, granted: true, reason: "granted" },
    ]);
    const cleaned = await oneEvent(() => api(cleanupRoute.action, `/api/logs/cleanup?cardId=${cardNumber}&accessGranted=false`, { method: "DELETE" }));
    expect(cleaned.result.body.data).toMatchObject({ deleted: 3 });
    expect(cleaned.event).toMatchObject({
      action: "access_log.cleanup",
      entityType: "access_log",
      entityId: cardNumber,
      summary: `${admin.username} marcó como resueltos 3 registros denegados de la tarjeta ${cardNumber} (${[first, second].sort((a, b) => a.code.localeCompare(b.code)).map((door) => door.name).join(", ")})`,
    });
    expect(json(cleaned.event.before)).toMatchObject({
      card: cardNumber,
      denied: 3,
      doors: expect.arrayContaining([expect.objectContaining({ doorId: first.code, rows: 2 }), expect.objectContaining({ doorId: second.code, rows: 1 })]),
    });
    expect(json(cleaned.event.after)).toMatchObject({ card: cardNumber, denied: 0, resolved: 3 });
    await noEvent(() => api(cleanupRoute.action, `/api/logs/cleanup?cardId=${cardNumber}&accessGranted=false`, { method: "DELETE" }));
  });
});

describe("sessions", () => {
  it("a sign-in, a refused one and a sign-out: one event each, with the address", async () => {
    const password = "clave-de-entrada-9";
    const user = await createTestUser({ password });
    const ok = await oneEvent(() => api(loginRoute.action, "/api/auth/login", { method: "POST", token: null, body: { username: user.username, password } }));
    expect(ok.result.status).toBe(200);
    expect(ok.event).toMatchObject({ action: "session.sign_in", actorId: user.id, actorUsername: user.username, actorRole: "user", ip: IP, summary: `${user.username} inició sesión en la API` });
    expect(`${ok.event.before} ${ok.event.after}`).not.toContain(ok.result.body.data.token);

    const refused = await oneEvent(() => api(loginRoute.action, "/api/auth/login", { method: "POST", token: null, body: { username: user.username, password: "no-es-esta" } }));
    expect(refused.result.status).toBe(401);
    expect(refused.event).toMatchObject({ action: "session.sign_in_refused", actorId: null, actorUsername: user.username, actorRole: "anonimo", ip: IP });

    const cookie = await sessionCookie(user.id);
    const out = await oneEvent(async () => {
      const request = formPost("/logout", cookie, {});
      request.headers.set(PEER_IP_HEADER, IP);
      return callRoute(logoutRoute.action, request);
    });
    expect(out.result.status).toBe(302);
    expect(out.event).toMatchObject({ action: "session.sign_out", actorId: user.id, ip: IP, summary: `${user.username} cerró sesión` });
  });

  it("a lockout is recorded once, when it starts", async () => {
    const user = await createTestUser();
    const ip = `198.51.100.${Math.floor(Math.random() * 200) + 20}`;
    const attempt = () =>
      callRoute(loginRoute.action as never, jsonRequest("/api/auth/login", { method: "POST", ip, body: { username: user.username, password: "mal" } })).then((response) => response.status);
    for (let i = 0; i < 10; i += 1) expect(await attempt()).toBe(401);
    const locked = await oneEvent(attempt);
    expect(locked.result).toBe(429);
    expect(locked.event).toMatchObject({ action: "session.lockout", actorUsername: user.username, actorRole: "anonimo", ip });
    expect(await noEvent(attempt)).toBe(429);
  });
});

describe("residents' own changes", () => {
  it("bookings, incidents, profile and password: one event each, the resident as the actor", async () => {
    const asResident = { token: residentToken };
    const facility = await createTestFacility();
    const booked = await oneEvent(() =>
      api(bookingsRoute.action, "/api/user-portal/bookings", { ...asResident, method: "POST", body: bookingRequest(facility.id, "meeting-room", minutesFromNow(120)) }),
    );
    expect(booked.result.status).toBe(201);
    const bookingId = booked.result.body.data._id as string;
    expect(booked.event).toMatchObject({ action: "booking.create", entityId: bookingId, actorId: resident.id, actorRole: "user" });
    const cancelled = await oneEvent(() => api(bookingCancelRoute.action, `/api/user-portal/bookings/${bookingId}/cancel`, { ...asResident, method: "PUT", params: { id: bookingId } }));
    expect(cancelled.event).toMatchObject({ action: "booking.cancel", actorId: resident.id });
    expect((await noEvent(() => api(bookingCancelRoute.action, `/api/user-portal/bookings/${bookingId}/cancel`, { ...asResident, method: "PUT", params: { id: bookingId } }))).status).toBe(409);

    const reported = await oneEvent(() =>
      api(residentIncidentsRoute.action, "/api/user-portal/incidents", {
        ...asResident,
        method: "POST",
        body: { title: "Grifo que gotea", category: "plumbing", location: "Baño", description: "Gotea toda la noche", priority: "high" },
      }),
    );
    expect(reported.result.status).toBe(201);
    const incidentId = reported.result.body.data._id as string;
    expect(reported.event).toMatchObject({ action: "incident.create", actorId: resident.id, summary: `${resident.username} informó de la incidencia «Grifo que gotea»` });
    const edited = await oneEvent(() => api(residentIncidentRoute.action, `/api/user-portal/incidents/${incidentId}`, { ...asResident, method: "PUT", params: { id: incidentId }, body: { location: "Cocina" } }));
    expect([json(edited.event.before), json(edited.event.after)]).toEqual([{ location: "Baño" }, { location: "Cocina" }]);
    const withdrawn = await oneEvent(() => api(residentIncidentCancelRoute.action, `/api/user-portal/incidents/${incidentId}/cancel`, { ...asResident, method: "PUT", params: { id: incidentId } }));
    expect(withdrawn.event).toMatchObject({ action: "incident.cancel", actorId: resident.id });

    const profile = await oneEvent(() =>
      api(profileRoute.action, "/api/user-portal/profile", { ...asResident, method: "PUT", body: { firstName: "Marta", lastName: "Ruiz", email: resident.email, phone: "600 123 456" } }),
    );
    expect(profile.event).toMatchObject({ action: "user.profile", entityId: resident.id, summary: `${resident.username} actualizó su perfil` });
    expect(json(profile.event.after)).toEqual({ lastName: "Ruiz", phone: "600 123 456" });

    const owner = await createTestUser({ password: "clave-vieja-123" });
    const ownerToken = (await issueApiToken(owner.id)).token;
    const refused = await noEvent(() => api(passwordRoute.action, "/api/user-portal/password", { token: ownerToken, method: "PUT", body: { currentPassword: "otra", newPassword: "clave-nueva-456" } }));
    expect(refused.status).toBe(400);
    const changed = await oneEvent(() =>
      api(passwordRoute.action, "/api/user-portal/password", { token: ownerToken, method: "PUT", body: { currentPassword: "clave-vieja-123", newPassword: "clave-nueva-456" } }),
    );
    expect(changed.event).toMatchObject({ action: "user.password", actorId: owner.id, summary: `${owner.username} cambió su contraseña` });
    expect(`${changed.event.before} ${changed.event.after}`).not.toMatch(/clave-(vieja|nueva)/);
  });
});

describe("visitors", () => {
  it("a public fault report: one event as visitante, without the sender's address (privacy)", async () => {
    const nombre = `Vecina ${unique()}`;
    const { event, result } = await oneEvent(() =>
      asRequester(null, IP, () => reportPublicIncident({ nombre, departamento: "2", tipo: "fontaneria", ubicacion: "Baño", descripcion: "Gotea", urgencia: "media" }, { ip: IP })),
    );
    expect(result).toEqual({ ok: true, stored: true });
    expect(event).toMatchObject({ action: "incident.create", actorUsername: "visitante", actorRole: "anonimo", ip: null });
    expect(`${event.summary} ${event.after}`).not.toContain(nombre);
  });
});

describe("building sensors", () => {
  it("a credential issued by the provisioning script: one event as sistema, the secret hidden", async () => {
    const sensorId = `audit${unique().replace(/[^a-z0-9]/g, "")}`;
    const { event, result } = await oneEvent(() => provisionBuildingSensor(sensorId));
    expect(event).toMatchObject({ action: "sensor.credential", entityType: "sensor", entityId: sensorId, actorRole: "sistema", ip: null });
    expect(json(event.after)).toEqual({ sensorSecretHash: HIDDEN });
    expect(`${event.after}`).not.toContain(result.password);
  });
});

describe("a change whose event cannot be written", () => {
  it("is not kept: the API answers an error and the door does not exist", async () => {
    const code = `sin-evento-${unique()}`;
    await getDb().run(sql.raw("CREATE TRIGGER audit_entities_refuse BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_entities_refuse'); END"));
    try {
      await expect(api(doorsRoute.action, "/api/doors", { method: "POST", body: { doorId: code, name: "Sin evento", location: "X" } })).rejects.toThrow();
    } finally {
      await getDb().run(sql.raw("DROP TRIGGER audit_entities_refuse"));
    }
    const rows = await getDb().all<{ n: number }>(sql`SELECT count(*) AS n FROM doors WHERE door_id = ${code}`);
    expect(Number(rows[0]!.n)).toBe(0);
  });
});

describe("the pages (the same services, from a signed-in browser)", () => {
  /** A page's form POST from IP as the admin's browser. */
  async function post(fn: ApiRoute, path: string, cookie: string, fields: Record<string, string>) {
    const request = formPost(path, cookie, fields);
    request.headers.set(PEER_IP_HEADER, IP);
    return callRoute(fn as never, request);
  }

  it("a door's messages, a card's alias, a user created, a consultation's status: one event each, the admin and address noted", async () => {
    const cookie = await sessionCookie(admin.id);
    const door = await createTestDoor({ name: `Recepción ${unique()}` });
    const messages = await oneEvent(() =>
      post(dashboardPage.action, `/admin?modal=messages&door=${door.id}`, cookie, { intent: "set-messages", id: door.id, useCustomMessages: "on", customStatus: "ABIERTO", customMessage: "Bienvenido" }),
    );
    expect(messages.event).toMatchObject({ action: "door.messages", entityId: door.id, actorId: admin.id, ip: IP });

    const card = await registerCard({ cardNumber: `${hexPrefix()}0D` });
    const alias = await oneEvent(() => post(cardsPage.action, `/admin/cards?modal=detail&card=${card.id}`, cookie, { intent: "set-alias", id: card.id, alias: "Portero" }));
    expect(alias.event).toMatchObject({ action: "card.alias", entityId: card.id, actorId: admin.id, summary: `${admin.username} cambió el alias de la tarjeta ${card.cardNumber} a «Portero»` });

    const username = `page-${unique()}`;
    const created = await oneEvent(() =>
      post(usersPage.action, "/admin/users", cookie, { intent: "create-user", username, email: `${username}@example.com`, password: "castaños-y-sidra", role: "user", status: "active" }),
    );
    expect(created.event).toMatchObject({ action: "user.create", actorId: admin.id, summary: `${admin.username} creó el usuario ${username} (usuario)` });
    const refused = await noEvent(() =>
      post(usersPage.action, "/admin/users", cookie, { intent: "create-user", username, email: `otro-${username}@example.com`, password: "castaños-y-sidra", role: "user", status: "active" }),
    );
    expect(refused.status).toBe(409);

    const consultation = await createTestConsultation();
    const status = await oneEvent(() => post(consultationsPage.action, "/admin/consultations", cookie, { intent: "set-status", id: consultation.id, status: "closed" }));
    expect(status.event).toMatchObject({ action: "consultation.status", entityId: consultation.id, actorId: admin.id });
  });

  it("signing in through the login page opens the session with its event", async () => {
    const password = "clave-de-la-pagina-1";
    const user = await createTestUser({ password });
    const request = jsonRequest("/login", {
      method: "POST",
      ip: IP,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "http://localhost" },
      rawBody: new URLSearchParams({ username: user.username, password }).toString(),
    });
    const signedIn = await oneEvent(() => callRoute(loginPage.action as never, request));
    expect(signedIn.result.status).toBe(302);
    expect(signedIn.event).toMatchObject({ action: "session.sign_in", actorId: user.id, ip: IP, summary: `${user.username} inició sesión` });
  });
});
