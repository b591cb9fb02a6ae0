// /api/users*: admin only (bearer or session cookie), SPEC §3 user JSON
// (never a password hash), the pagination, every call's status codes and
// Spanish messages, and the same rules as the screen.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { accessLogs } from "~/db/schema";
import { getUserByApiToken, issueApiToken } from "~/models/api-token.server";
import { getCardById, registerCard } from "~/models/card.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import { getUserById, verifyLogin } from "~/models/user.server";
import * as listRoute from "~/routes/api.users";
import * as userRoute from "~/routes/api.users.$id";
import * as cardsRoute from "~/routes/api.users.$id.cards";
import * as cardRoute from "~/routes/api.users.$id.cards.$cardId";
import * as statusRoute from "~/routes/api.users.$id.status";
import { setCardPermission } from "~/services/cards.server";
import { requireUser } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { addDays, endOfMadridDay, todayInMadrid } from "~/utils/dates";
import { createApiCallers, createTestDoor, createTestUser, hexPrefix, insertLogs, sessionCookie } from "../setup/fixtures";
import { callApi, type ApiCall, type ApiRoute } from "../setup/route";

let admin: Awaited<ReturnType<typeof createTestUser>>;
let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  ({ admin, adminToken, residentToken } = await createApiCallers());
});

/** Calls an API route function with the admin's token unless told otherwise; no answer ever carries a password hash. */
async function call(fn: ApiRoute, path: string, options: ApiCall = {}) {
  const result = await callApi(fn, path, { token: adminToken, ...options });
  expect(JSON.stringify(result.body)).not.toMatch(/passwordHash|password_hash|\$scrypt|scrypt\$/);
  return result;
}

const fresh = () => randomUUID().slice(0, 8);

function newUserBody(fields: Record<string, unknown> = {}) {
  const username = `api-${fresh()}`;
  return { username, email: `${username}@example.com`, password: "hórreo-de-la-abuela", role: "user", ...fields };
}

async function cardNumber() {
  return `${hexPrefix()}${hexPrefix()}`;
}

const ROUTES: Array<{ name: string; fn: (args: never) => unknown; method: string; params: Record<string, string>; body?: unknown }> = [
  { name: "GET /api/users", fn: listRoute.loader, method: "GET", params: {} },
  { name: "POST /api/users", fn: listRoute.action, method: "POST", params: {}, body: newUserBody() },
  { name: "GET /api/users/{id}", fn: userRoute.loader, method: "GET", params: { id: "x" } },
  { name: "PUT /api/users/{id}", fn: userRoute.action, method: "PUT", params: { id: "x" }, body: newUserBody() },
  { name: "DELETE /api/users/{id}", fn: userRoute.action, method: "DELETE", params: { id: "x" } },
  { name: "PUT /api/users/{id}/status", fn: statusRoute.action, method: "PUT", params: { id: "x" }, body: { status: "inactive" } },
  { name: "GET /api/users/{id}/cards", fn: cardsRoute.loader, method: "GET", params: { id: "x" } },
  { name: "POST /api/users/{id}/cards", fn: cardsRoute.action, method: "POST", params: { id: "x" }, body: { cardNumber: "AB01" } },
  { name: "PUT /api/users/{id}/cards/{cardId}", fn: cardRoute.action, method: "PUT", params: { id: "x", cardId: "y" }, body: { alias: "a" } },
  { name: "DELETE /api/users/{id}/cards/{cardId}", fn: cardRoute.action, method: "DELETE", params: { id: "x", cardId: "y" } },
];

describe("guards", () => {
  for (const route of ROUTES) {
    it(`${route.name}: 401 without a token, 403 for a resident's token`, async () => {
      const anonymous = await call(route.fn, "/api/users", { ...route, token: null });
      expect(anonymous).toEqual({ status: 401, body: { success: false, error: { message: "No autenticado" } } });
      const bad = await call(route.fn, "/api/users", { ...route, token: "not-a-token" });
      expect(bad.body.error.message).toBe("Token inválido o expirado");
      const resident = await call(route.fn, "/api/users", { ...route, token: residentToken });
      expect(resident).toEqual({ status: 403, body: { success: false, error: { message: "Acceso denegado" } } });
    });
  }

  it("nothing changes for a resident's calls", async () => {
    const target = await createTestUser();
    await call(statusRoute.action, "/api/users/x/status", { method: "PUT", token: residentToken, params: { id: target.id }, body: { status: "inactive" } });
    await call(userRoute.action, "/api/users/x", { method: "DELETE", token: residentToken, params: { id: target.id } });
    expect(await getUserById(target.id)).toMatchObject({ status: "active" });
  });

  it("accepts an admin's session cookie, and refuses a cross-site mutation made with it", async () => {
    const cookie = await sessionCookie(admin.id);
    const listed = await call(listRoute.loader, "/api/users", { token: null, headers: { Cookie: cookie } });
    expect(listed.status).toBe(200);
    const crossSite = await call(listRoute.action, "/api/users", {
      method: "POST",
      token: null,
      body: newUserBody(),
      headers: { Cookie: cookie, Origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
  });

  it("answers 405 to other methods", async () => {
    expect((await call(statusRoute.loader, "/api/users/x/status", { params: { id: "x" } })).status).toBe(405);
    expect((await call(listRoute.action, "/api/users", { method: "DELETE" })).status).toBe(405);
    expect((await call(cardsRoute.action, "/api/users/x/cards", { method: "PUT", params: { id: "x" } })).status).toBe(405);
  });
});

describe("GET /api/users", () => {
  it("searches username, name, email and department, ten a page by default, with SPEC's pagination", async () => {
    const tag = fresh();
    for (let i = 0; i < 12; i++) {
      await createTestUser({ username: `${tag}-${String(i).padStart(2, "0")}` });
    }
    const firstPage = await call(listRoute.loader, `/api/users?search=${tag}`);
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.data.pagination).toEqual({ page: 1, limit: 10, total: 12, pages: 2 });
    expect(firstPage.body.data.users.map((u: { username: string }) => u.username)).toEqual(
      Array.from({ length: 10 }, (_, i) => `${tag}-${String(i).padStart(2, "0")}`),
    );
    const user = firstPage.body.data.users[0];
    expect(Object.keys(user).sort()).toEqual(
      ["_id", "username", "email", "firstName", "lastName", "department", "phone", "role", "status", "notes", "unitNumber", "activeCardCount", "accessGroups", "createdAt", "updatedAt"].sort(),
    );
    const secondPage = await call(listRoute.loader, `/api/users?search=${tag}&page=2&limit=5`);
    expect(secondPage.body.data.pagination).toEqual({ page: 2, limit: 5, total: 12, pages: 3 });

    await call(listRoute.action, "/api/users", {
      method: "POST",
      body: newUserBody({ firstName: "Covadonga", lastName: `Álvarez${tag}`, department: `Dpto-${tag}`, email: `cova.${tag}@correo.es` }),
    });
    const found = async (search: string) => (await call(listRoute.loader, `/api/users?search=${encodeURIComponent(search)}`)).body.data.pagination.total;
    expect(await found(`covadonga Álvarez${tag}`)).toBe(1);
    expect(await found(`dpto-${tag}`)).toBe(1);
    expect(await found(`cova.${tag}@CORREO`)).toBe(1);
    // LIKE's wildcards are plain characters in a search.
    expect(await found(`${tag}%`)).toBe(0);
    expect(await found(`${tag}_0`)).toBe(0);
  });

  it("counts each user's active cards", async () => {
    const holder = await createTestUser();
    for (const status of ["active", "active", "inactive"] as const) {
      await registerCard({ cardNumber: await cardNumber(), status, userId: holder.id });
    }
    const listed = await call(listRoute.loader, `/api/users?search=${holder.username}`);
    expect(listed.body.data.users[0]).toMatchObject({ username: holder.username, activeCardCount: 2 });
  });

  it("refuses a page below 1 and a limit above 100", async () => {
    expect((await call(listRoute.loader, "/api/users?page=0")).body.error.message).toBe("page debe ser un número entero mayor que 0");
    expect((await call(listRoute.loader, "/api/users?limit=101")).body.error.message).toBe("limit debe ser un número entre 1 y 100");
    expect((await call(listRoute.loader, "/api/users?limit=100")).status).toBe(200);
  });
});

describe("POST /api/users", () => {
  it("creates a user (status active by default) who can sign in with the password", async () => {
    const body = newUserBody({ firstName: "Lucía", phone: "+34 600 000 000", unitNumber: "2B", email: "Mixta.Case@Example.com" });
    const created = await call(listRoute.action, "/api/users", { method: "POST", body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      success: true,
      message: "Usuario creado exitosamente",
      data: { username: body.username, email: "mixta.case@example.com", status: "active", role: "user", unitNumber: "2B", activeCardCount: 0 },
    });
    expect((await verifyLogin(body.username, body.password)).ok).toBe(true);
  });

  it("refuses a username or email that exists in any case, naming the clash", async () => {
    const body = newUserBody();
    await call(listRoute.action, "/api/users", { method: "POST", body });
    const sameName = await call(listRoute.action, "/api/users", {
      method: "POST",
      body: newUserBody({ username: body.username.toUpperCase() }),
    });
    expect(sameName).toEqual({ status: 409, body: { success: false, error: { message: `Ya existe un usuario con el nombre de usuario «${body.username.toUpperCase()}»` } } });
    const sameEmail = await call(listRoute.action, "/api/users", { method: "POST", body: newUserBody({ email: body.email.toUpperCase() }) });
    expect(sameEmail.body.error.message).toBe(`Ya existe un usuario con el email «${body.email}»`);
  });

  it("answers the schema's Spanish messages, and changes nothing", async () => {
    const missing = await call(listRoute.action, "/api/users", { method: "POST", body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("El usuario es requerido, El email es requerido, La contraseña es requerida, El rol es requerido");
    const weak = newUserBody({ password: "1234567890" });
    expect((await call(listRoute.action, "/api/users", { method: "POST", body: weak })).body.error.message).toBe(
      "Esa contraseña es demasiado común: elige otra",
    );
    const short = newUserBody({ password: "corta" });
    expect((await call(listRoute.action, "/api/users", { method: "POST", body: short })).body.error.message).toBe(
      "La contraseña debe tener al menos 10 caracteres",
    );
    expect((await call(listRoute.loader, `/api/users?search=${weak.username}`)).body.data.pagination.total).toBe(0);
  });

  it("keeps admins active", async () => {
    const refused = await call(listRoute.action, "/api/users", { method: "POST", body: newUserBody({ role: "admin", status: "inactive" }) });
    expect(refused).toMatchObject({ status: 409, body: { error: { message: "Un administrador no puede estar inactivo ni suspendido" } } });
  });
});

describe("PUT /api/users/{id}", () => {
  it("replaces the profile; an empty password keeps the current one, a new one replaces it", async () => {
    const body = newUserBody({ firstName: "Marta", notes: "Llega en junio" });
    const { body: created } = await call(listRoute.action, "/api/users", { method: "POST", body });
    const id = created.data._id;
    const kept = await call(userRoute.action, `/api/users/${id}`, {
      method: "PUT",
      params: { id },
      body: { ...body, password: "", firstName: "Marta Isabel", department: "Coworking" },
    });
    expect(kept.body).toMatchObject({ message: "Usuario actualizado exitosamente", data: { firstName: "Marta Isabel", department: "Coworking", notes: "Llega en junio" } });
    expect((await verifyLogin(body.username, body.password)).ok).toBe(true);

    await call(statusRoute.action, "/api/users/x/status", { method: "PUT", params: { id }, body: { status: "suspended" } });
    const withoutNotes = { ...body, notes: undefined, password: "otra-frase-nueva" };
    const changed = await call(userRoute.action, `/api/users/${id}`, { method: "PUT", params: { id }, body: withoutNotes });
    // Left out: the notes are cleared, the status is kept.
    expect(changed.body.data).toMatchObject({ notes: null, status: "suspended" });
    await call(statusRoute.action, "/api/users/x/status", { method: "PUT", params: { id }, body: { status: "active" } });
    expect((await verifyLogin(body.username, "otra-frase-nueva")).ok).toBe(true);
    expect((await verifyLogin(body.username, body.password)).ok).toBe(false);
  });

  it("refuses another user's username, an unknown id, and inactivating an admin or oneself", async () => {
    const other = await createTestUser();
    const { body: created } = await call(listRoute.action, "/api/users", { method: "POST", body: newUserBody() });
    const id = created.data._id;
    const clash = await call(userRoute.action, `/api/users/${id}`, { method: "PUT", params: { id }, body: newUserBody({ username: other.username }) });
    expect(clash.body.error.message).toBe(`Ya existe un usuario con el nombre de usuario «${other.username}»`);
    expect((await call(userRoute.action, "/api/users/nope", { method: "PUT", params: { id: "nope" }, body: newUserBody() })).status).toBe(404);

    const otherAdmin = await createTestUser({ role: "admin" });
    const demoteAndInactivate = await call(userRoute.action, "/api/users/x", {
      method: "PUT",
      params: { id: otherAdmin.id },
      body: { username: otherAdmin.username, email: otherAdmin.email, role: "user", status: "inactive" },
    });
    expect(demoteAndInactivate.body.error.message).toBe("Un administrador no puede estar inactivo ni suspendido");
    const self = await call(userRoute.action, "/api/users/x", {
      method: "PUT",
      params: { id: admin.id },
      body: { username: admin.username, email: admin.email, role: "user", status: "active" },
    });
    expect(self).toMatchObject({ status: 403, body: { error: { message: "No puedes quitarte el rol de administrador" } } });
    expect(await getUserById(otherAdmin.id)).toMatchObject({ role: "admin", status: "active" });
  });
});

describe("PUT /api/users/{id}/status", () => {
  it("inactivates and activates a resident, answering SPEC's success and message; the resident's tokens end", async () => {
    const resident = await createTestUser();
    const { token } = await issueApiToken(resident.id);
    const inactivated = await call(statusRoute.action, "/api/users/x/status", { method: "PUT", params: { id: resident.id }, body: { status: "inactive" } });
    expect(inactivated).toMatchObject({ status: 200, body: { success: true, message: "Usuario inactivado", data: { status: "inactive" } } });
    expect(await getUserByApiToken(token)).toBeNull();
    const activated = await call(statusRoute.action, "/api/users/x/status", { method: "PUT", params: { id: resident.id }, body: { status: "active" } });
    expect(activated.body).toMatchObject({ success: true, message: "Usuario activado", data: { status: "active" } });
    const suspended = await call(statusRoute.action, "/api/users/x/status", { method: "PUT", params: { id: resident.id }, body: { status: "suspended" } });
    expect(suspended.body.message).toBe("Usuario suspendido");
  });

  it("refuses an admin, oneself, a bad status and an unknown user", async () => {
    const otherAdmin = await createTestUser({ role: "admin" });
    const cases = [
      [otherAdmin.id, { status: "inactive" }, 403, "No se puede inactivar a un administrador"],
      [otherAdmin.id, { status: "suspended" }, 403, "No se puede inactivar a un administrador"],
      [admin.id, { status: "inactive" }, 403, "No puedes cambiar el estado de tu propia cuenta"],
      [otherAdmin.id, { status: "gone" }, 400, "El estado debe ser active (Activo), inactive (Inactivo) o suspended (Suspendido)"],
      ["nope", { status: "inactive" }, 404, "Usuario no encontrado"],
    ] as const;
    for (const [id, body, status, message] of cases) {
      const answer = await call(statusRoute.action, "/api/users/x/status", { method: "PUT", params: { id }, body });
      expect(answer).toEqual({ status, body: { success: false, error: { message } } });
    }
    expect(await getUserById(otherAdmin.id)).toMatchObject({ status: "active" });
  });
});

describe("DELETE /api/users/{id}", () => {
  it("deletes a resident: cards unassigned and inactive, token gone, access log keeps the username", async () => {
    const resident = await createTestUser();
    const { token } = await issueApiToken(resident.id);
    const residentCookie = await sessionCookie(resident.id);
    const card = await registerCard({ cardNumber: await cardNumber(), status: "active", userId: resident.id });
    await setCardPermission(card.id, (await createTestDoor()).id, true);
    const [logId] = await insertLogs([{ at: Date.now(), cardNumber: card.cardNumber, cardId: card.id, username: resident.username }]);
    await getDb().update(accessLogs).set({ userId: resident.id }).where(eq(accessLogs.id, logId!));

    const deleted = await call(userRoute.action, "/api/users/x", { method: "DELETE", params: { id: resident.id } });
    expect(deleted).toMatchObject({
      status: 200,
      body: { success: true, message: "Usuario eliminado", data: { _id: resident.id, username: resident.username, releasedCards: [card.cardNumber] } },
    });
    expect(await getUserById(resident.id)).toBeUndefined();
    expect(await getCardById(card.id)).toMatchObject({ userId: null, status: "inactive", holder: null });
    expect(await getUserByApiToken(token)).toBeNull();
    // A browser still signed in as them is signed out at its next request.
    const signedOut = await requireUser(new Request("http://localhost/portal", { headers: { Cookie: residentCookie } })).catch((thrown: Response) => thrown);
    expect((signedOut as Response).headers.get("Location")).toBe("/login");
    const [log] = await getDb().select().from(accessLogs).where(eq(accessLogs.id, logId!));
    expect(log).toMatchObject({ userId: null, username: resident.username });
    expect((await call(userRoute.action, "/api/users/x", { method: "DELETE", params: { id: resident.id } })).status).toBe(404);
  });

  it("refuses to delete an admin or oneself", async () => {
    const otherAdmin = await createTestUser({ role: "admin" });
    const refused = await call(userRoute.action, "/api/users/x", { method: "DELETE", params: { id: otherAdmin.id } });
    expect(refused).toEqual({ status: 403, body: { success: false, error: { message: "No se puede eliminar a un administrador" } } });
    const self = await call(userRoute.action, "/api/users/x", { method: "DELETE", params: { id: admin.id } });
    expect(self.body.error.message).toBe("No puedes eliminar tu propia cuenta");
    expect(await getUserById(otherAdmin.id)).toBeDefined();
  });
});

describe("cards of a user", () => {
  it("assigns a new card (registered active), lists it, edits it and unassigns it", async () => {
    const resident = await createTestUser();
    const number = await cardNumber();
    const day = addDays(todayInMadrid(), 30);
    const assigned = await call(cardsRoute.action, "/api/users/x/cards", {
      method: "POST",
      params: { id: resident.id },
      body: { cardNumber: number.toLowerCase().match(/../g)!.join(":"), alias: "Llavero", description: "Azul", cardType: "secondary", expiresAt: day },
    });
    expect(assigned.status).toBe(201);
    expect(assigned.body).toMatchObject({
      message: "Tarjeta asignada exitosamente",
      data: { reassigned: false, previousUser: null, card: { cardNumber: number, alias: "Llavero", type: "secondary", status: "active", expiresAt: endOfMadridDay(day).toISOString() } },
    });
    const [notification] = await listNotificationsOfUser(resident.id);
    expect(notification).toMatchObject({ type: "card", title: "Tarjeta asignada" });
    expect(notification!.message).toContain(number);

    const listed = await call(cardsRoute.loader, "/api/users/x/cards", { params: { id: resident.id } });
    expect(listed.body.data.cards.map((c: { cardNumber: string }) => c.cardNumber)).toEqual([number]);
    const cardId = listed.body.data.cards[0]._id;

    const edited = await call(cardRoute.action, "/api/users/x/cards/y", {
      method: "PUT",
      params: { id: resident.id, cardId },
      body: { alias: "  Llavero rojo ", cardType: "temporary", expiresAt: null },
    });
    expect(edited.body).toMatchObject({ message: "Tarjeta actualizada", data: { alias: "Llavero rojo", description: null, type: "temporary", expiresAt: null } });

    const unassigned = await call(cardRoute.action, "/api/users/x/cards/y", { method: "DELETE", params: { id: resident.id, cardId } });
    expect(unassigned.body).toMatchObject({ message: "Tarjeta desasignada", data: { cardNumber: number } });
    expect(await getCardById(cardId)).toMatchObject({ userId: null, status: "inactive" });
    expect((await call(cardsRoute.loader, "/api/users/x/cards", { params: { id: resident.id } })).body.data.cards).toEqual([]);
  });

  it("reassigns a card held by someone else (older field names too) and says from whom", async () => {
    const previous = await createTestUser({ firstName: "Pablo" });
    const next = await createTestUser();
    const number = await cardNumber();
    await call(cardsRoute.action, "/api/users/x/cards", { method: "POST", params: { id: previous.id }, body: { cardNumber: number } });
    const day = addDays(todayInMadrid(), 1);
    const reassigned = await call(cardsRoute.action, "/api/users/x/cards", {
      method: "POST",
      params: { id: next.id },
      body: { cardId: number, expirationDate: day },
    });
    expect(reassigned.body).toMatchObject({
      message: "Tarjeta reasignada exitosamente desde Pablo",
      data: { reassigned: true, previousUser: { _id: previous.id, username: previous.username }, card: { userId: { _id: next.id } } },
    });
    expect(reassigned.body.data.card.expiresAt).toBe(endOfMadridDay(day).toISOString());
    expect((await listNotificationsOfUser(previous.id)).map((n) => n.title)).toContain("Tarjeta retirada");
  });

  it("refuses a bad card number, a past expiry, a suspended card, another user's card and an unknown user", async () => {
    const resident = await createTestUser();
    const other = await createTestUser();
    const suspended = await registerCard({ cardNumber: await cardNumber(), status: "suspended" });
    const othersCard = await registerCard({ cardNumber: await cardNumber(), status: "active", userId: other.id });
    const post = (id: string, body: unknown) => call(cardsRoute.action, "/api/users/x/cards", { method: "POST", params: { id }, body });
    expect((await post(resident.id, { cardNumber: "tarjeta" })).body.error.message).toBe("El número de tarjeta no es válido (hexadecimal, p. ej. 04A1B2C3)");
    expect((await post(resident.id, {})).body.error.message).toBe("Selecciona una tarjeta");
    expect((await post(resident.id, { cardNumber: "AB12", expiresAt: addDays(todayInMadrid(), -1) })).body.error.message).toBe(
      "La fecha de expiración no puede ser anterior a hoy",
    );
    expect(await post(resident.id, { cardNumber: suspended.cardNumber })).toMatchObject({ status: 409, body: { error: { message: "La tarjeta está suspendida: no se puede asignar" } } });
    expect((await post("nope", { cardNumber: "AB12" })).status).toBe(404);
    const foreign = await call(cardRoute.action, "/api/users/x/cards/y", { method: "PUT", params: { id: resident.id, cardId: othersCard.id }, body: { alias: "mía" } });
    expect(foreign).toEqual({ status: 404, body: { success: false, error: { message: "La tarjeta no está asignada a este usuario" } } });
    const foreignDelete = await call(cardRoute.action, "/api/users/x/cards/y", { method: "DELETE", params: { id: resident.id, cardId: othersCard.id } });
    expect(foreignDelete.status).toBe(404);
    expect(await getCardById(othersCard.id)).toMatchObject({ userId: other.id, status: "active", alias: null });
    expect((await call(cardsRoute.loader, "/api/users/x/cards", { params: { id: "nope" } })).status).toBe(404);
  });
});
