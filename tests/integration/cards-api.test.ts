// /api/cards*: admin only (bearer), SPEC §3 card JSON, status codes and the
// Spanish messages of every refusal.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { cards } from "~/db/schema";
import { assignCardToUser, getCardById, registerCard, type NewCard } from "~/models/card.server";
import * as listRoute from "~/routes/api.cards";
import * as cardRoute from "~/routes/api.cards.$id";
import * as approveRoute from "~/routes/api.cards.$id.approve";
import * as permissionsRoute from "~/routes/api.cards.$id.permissions";
import * as permissionRoute from "~/routes/api.cards.$id.permissions.$doorId";
import { setCardPermission } from "~/services/cards.server";
import { getDb } from "~/utils/db.server";
import { createApiCallers, createTestDoor, createTestUser, hexPrefix as prefix } from "../setup/fixtures";
import { callApi, callRoute, type ApiCall, type ApiRoute } from "../setup/route";

const ASSIGNED = "No se puede eliminar una tarjeta asignada a un usuario. Por favor, desasigna la tarjeta primero.";

let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  ({ adminToken, residentToken } = await createApiCallers());
});

async function card(fields: Partial<NewCard> = {}) {
  return registerCard({ cardNumber: `${prefix()}${prefix()}`, status: "active", ...fields });
}

let doorCounter = 0;
async function door(name = "Portal") {
  doorCounter += 1;
  return createTestDoor({ name: `${name} ${doorCounter}` });
}

/** Calls an API route function with the admin's token unless told otherwise. */
const call = (fn: ApiRoute, path: string, options: ApiCall = {}) => callApi(fn, path, { token: adminToken, ...options });

const ROUTES = [
  { name: "GET /api/cards", fn: listRoute.loader, path: "/api/cards", method: "GET", params: {} },
  { name: "GET /api/cards/{id}", fn: cardRoute.loader, path: "/api/cards/x", method: "GET", params: { id: "x" } },
  { name: "PUT /api/cards/{id}", fn: cardRoute.action, path: "/api/cards/x", method: "PUT", params: { id: "x" }, body: { alias: "a" } },
  { name: "DELETE /api/cards/{id}", fn: cardRoute.action, path: "/api/cards/x", method: "DELETE", params: { id: "x" } },
  { name: "PUT /api/cards/{id}/approve", fn: approveRoute.action, path: "/api/cards/x/approve", method: "PUT", params: { id: "x" } },
  {
    name: "POST /api/cards/{id}/permissions",
    fn: permissionsRoute.action,
    path: "/api/cards/x/permissions",
    method: "POST",
    params: { id: "x" },
    body: { doorId: "d", granted: true },
  },
  {
    name: "DELETE /api/cards/{id}/permissions/{doorId}",
    fn: permissionRoute.action,
    path: "/api/cards/x/permissions/d",
    method: "DELETE",
    params: { id: "x", doorId: "d" },
  },
] as const;

describe("authentication", () => {
  for (const route of ROUTES) {
    it(`${route.name}: 401 without a token, 403 with a resident's token`, async () => {
      const body = "body" in route ? route.body : undefined;
      const anonymous = await call(route.fn, route.path, { method: route.method, params: route.params, body, token: null });
      expect(anonymous).toEqual({ status: 401, body: { success: false, error: { message: "No autenticado" } } });
      const resident = await call(route.fn, route.path, { method: route.method, params: route.params, body, token: residentToken });
      expect(resident).toEqual({ status: 403, body: { success: false, error: { message: "Acceso denegado" } } });
    });
  }

  it("answers 405 to a method a route does not have", async () => {
    expect((await call(listRoute.action, "/api/cards", { method: "POST", body: {} })).status).toBe(405);
    expect((await call(cardRoute.action, "/api/cards/x", { method: "PATCH", params: { id: "x" }, body: {} })).status).toBe(405);
    expect((await call(approveRoute.loader, "/api/cards/x/approve", { params: { id: "x" } })).status).toBe(405);
  });
});

describe("GET /api/cards", () => {
  it("answers SPEC §3 cards, holder populated, permissions and usage stats included", async () => {
    const entrance = await door();
    const holder = await createTestUser({ username: "marta-api", firstName: "Marta", lastName: "García" });
    const number = `${prefix()}${prefix()}`;
    const { card: assigned } = await assignCardToUser(holder.id, {
      cardNumber: number.toLowerCase(),
      alias: "Llavero",
      cardType: "secondary",
      expiresAt: new Date("2031-01-02T03:04:05.000Z"),
    });
    await setCardPermission(assigned.id, entrance.id, true);
    await getDb()
      .update(cards)
      .set({ lastUsedAt: new Date("2030-05-06T07:08:09.000Z"), totalAccessAttempts: 4, successfulAccesses: 3 })
      .where(eq(cards.id, assigned.id));

    const { status, body } = await call(listRoute.loader, `/api/cards?cardNumber=${number}`);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data).toEqual([
      {
        _id: assigned.id,
        cardNumber: number,
        alias: "Llavero",
        description: null,
        type: "secondary",
        status: "active",
        isAnonymous: false,
        userId: { _id: holder.id, firstName: "Marta", lastName: "García", username: "marta-api" },
        permissions: [{ doorId: entrance.code, granted: true, schedule: [] }],
        usageStats: { lastUsed: "2030-05-06T07:08:09.000Z", totalAccessAttempts: 4, successfulAccesses: 3 },
        createdAt: assigned.createdAt.toISOString(),
        expiresAt: "2031-01-02T03:04:05.000Z",
      },
    ]);
  });

  it("sorts, filters anonymous cards, narrows to reassignable ones and limits", async () => {
    const p = prefix();
    const used = async (suffix: string, lastUsed: number, fields: Partial<NewCard> = {}) => {
      const created = await registerCard({ cardNumber: `${p}${suffix}`, status: "active", ...fields });
      await getDb().update(cards).set({ lastUsedAt: new Date(lastUsed) }).where(eq(cards.id, created.id));
    };
    await used("01", 1000);
    await used("02", 3000, { isAnonymous: true });
    await used("03", 2000, { status: "inactive" });
    const numbers = async (query: string) => {
      const { status, body } = await call(listRoute.loader, `/api/cards?cardNumber=${p}&${query}`);
      expect(status).toBe(200);
      return (body.data as { cardNumber: string }[]).map((c) => c.cardNumber.slice(-2));
    };
    expect(await numbers("")).toEqual(["02", "03", "01"]);
    expect(await numbers("sortBy=lastUsed&sortOrder=asc")).toEqual(["01", "03", "02"]);
    expect(await numbers("sortBy=cardNumber&sortOrder=asc")).toEqual(["01", "02", "03"]);
    expect(await numbers("anonymousFilter=anonymous")).toEqual(["02"]);
    expect(await numbers("anonymousFilter=registered")).toEqual(["03", "01"]);
    expect(await numbers("reassignable=true")).toEqual(["02", "01"]);
    expect(await numbers("reassignable=false")).toEqual(["02", "03", "01"]);
    expect(await numbers("limit=2")).toEqual(["02", "03"]);
    // Empty parameters are as if absent.
    expect(await numbers("sortBy=&limit=")).toEqual(["02", "03", "01"]);
  });

  it("answers 400 with a Spanish message for a bad query", async () => {
    for (const [query, message] of [
      ["sortBy=color", "sortBy debe ser uno de"],
      ["sortOrder=up", "sortOrder debe ser asc o desc"],
      ["anonymousFilter=some", "anonymousFilter debe ser uno de"],
      ["reassignable=yes", "reassignable debe ser true o false"],
      ["limit=101", "limit debe ser un número entre 1 y 100"],
      ["limit=0", "limit debe ser un número entre 1 y 100"],
      ["limit=abc", "limit debe ser un número entre 1 y 100"],
    ] as const) {
      const { status, body } = await call(listRoute.loader, `/api/cards?${query}`);
      expect(status, query).toBe(400);
      expect(body.error.message, query).toContain(message);
    }
  });

  it("returns at most 100 cards by default", async () => {
    const p = prefix();
    for (let index = 0; index < 101; index += 1) {
      await registerCard({ cardNumber: `${p}${index.toString(16).padStart(2, "0")}` });
    }
    const { body } = await call(listRoute.loader, `/api/cards?cardNumber=${p}`);
    expect(body.data).toHaveLength(100);
  });
});

describe("GET /api/cards/{id}", () => {
  it("answers the card and the doors it has no permission on", async () => {
    const [granted, denied, free] = [await door("Garaje"), await door("Azotea"), await door("Portal")];
    const loose = await card();
    await setCardPermission(loose.id, granted.id, true);
    await setCardPermission(loose.id, denied.id, false);
    const { status, body } = await call(cardRoute.loader, `/api/cards/${loose.id}`, { params: { id: loose.id } });
    expect(status).toBe(200);
    expect(body.data.card).toMatchObject({ _id: loose.id, cardNumber: loose.cardNumber, userId: null });
    expect(body.data.card.permissions).toEqual(
      expect.arrayContaining([
        { doorId: granted.code, granted: true, schedule: [] },
        { doorId: denied.code, granted: false, schedule: [] },
      ]),
    );
    const available = body.data.availableDoors as { _id: string }[];
    expect(available.map((d) => d._id)).toContain(free.id);
    expect(available.map((d) => d._id)).not.toContain(granted.id);
    expect(available.map((d) => d._id)).not.toContain(denied.id);
    expect(available.find((d) => d._id === free.id)).toEqual({
      _id: free.id,
      doorId: free.code,
      name: free.name,
      location: "Planta baja",
      status: "active",
    });
  });

  it("answers 404 for an unknown card", async () => {
    expect(await call(cardRoute.loader, "/api/cards/nope", { params: { id: "nope" } })).toEqual({
      status: 404,
      body: { success: false, error: { message: "Tarjeta no encontrada" } },
    });
  });
});

describe("PUT /api/cards/{id}", () => {
  const put = (id: string, body: unknown) => call(cardRoute.action, `/api/cards/${id}`, { method: "PUT", params: { id }, body });

  it("trims the alias, clears it with an empty one or null, and changes the status", async () => {
    const { id } = await card();
    expect((await put(id, { alias: "  Portal norte " })).body.data).toMatchObject({ _id: id, alias: "Portal norte" });
    expect((await put(id, { alias: "" })).body.data.alias).toBeNull();
    await put(id, { alias: "Otra" });
    expect((await put(id, { alias: null })).body.data.alias).toBeNull();
    const both = await put(id, { alias: "Ambas", status: "inactive" });
    expect(both.status).toBe(200);
    expect(both.body.data).toMatchObject({ alias: "Ambas", status: "inactive" });
    expect(await getCardById(id)).toMatchObject({ alias: "Ambas", status: "inactive" });
  });

  it("answers 400 for an empty body, a status other than active/inactive and invalid JSON", async () => {
    const { id } = await card({ alias: "Igual" });
    expect(await put(id, {})).toEqual({ status: 400, body: { success: false, error: { message: "Indica el alias o el estado" } } });
    const suspended = await put(id, { status: "suspended" });
    expect(suspended.status).toBe(400);
    expect(suspended.body.error.message).toBe("El estado debe ser activa (active) o inactiva (inactive)");
    expect((await put(id, { alias: "x".repeat(101) })).body.error.message).toBe("El alias admite como máximo 100 caracteres");
    const broken = await callRoute(
      cardRoute.action,
      new Request(`http://localhost/api/cards/${id}`, { method: "PUT", body: "{", headers: { Authorization: `Bearer ${adminToken}` } }),
      { id },
    );
    expect(broken.status).toBe(400);
    expect((await getCardById(id))?.alias).toBe("Igual");
  });

  it("answers 404 for an unknown card and 409 for a pending or expired card, changing nothing", async () => {
    expect((await put("nope", { alias: "x" })).status).toBe(404);
    const pending = await card({ status: "pending", alias: "Antes" });
    expect(await put(pending.id, { status: "active", alias: "Después" })).toEqual({
      status: 409,
      body: { success: false, error: { message: "La tarjeta está pendiente de aprobación: apruébala para activarla" } },
    });
    expect(await getCardById(pending.id)).toMatchObject({ status: "pending", alias: "Antes" });
    const expired = await card({ status: "inactive", expiresAt: new Date(Date.now() - 1000) });
    const refused = await put(expired.id, { status: "active" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe("La tarjeta ha expirado: cambia su fecha de expiración antes de activarla");
  });
});

describe("DELETE /api/cards/{id}", () => {
  const remove = (id: string) => call(cardRoute.action, `/api/cards/${id}`, { method: "DELETE", params: { id } });

  it("deletes an unassigned card and answers its number", async () => {
    const { id, cardNumber } = await card();
    expect(await remove(id)).toEqual({ status: 200, body: { success: true, data: { cardNumber } } });
    expect(await getCardById(id)).toBeNull();
  });

  it("answers 409 with the SPEC message for an assigned card, and 404 for an unknown one", async () => {
    const holder = await createTestUser();
    const { card: assigned } = await assignCardToUser(holder.id, { cardNumber: `${prefix()}AA` });
    expect(await remove(assigned.id)).toEqual({ status: 409, body: { success: false, error: { message: ASSIGNED } } });
    expect(await getCardById(assigned.id)).not.toBeNull();
    expect((await remove("nope")).status).toBe(404);
  });
});

describe("PUT /api/cards/{id}/approve", () => {
  const approve = (id: string, body?: unknown) =>
    call(approveRoute.action, `/api/cards/${id}/approve`, { method: "PUT", params: { id }, body });

  it("makes a pending card active and grants the door given by its hardware code (doorId)", async () => {
    const entrance = await door();
    const pending = await card({ status: "pending" });
    const { status, body } = await approve(pending.id, { doorId: entrance.code });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ _id: pending.id, status: "active", permissions: [{ doorId: entrance.code, granted: true }] });
  });

  it("still takes the door's row id (the former doorId) for one release", async () => {
    const entrance = await door();
    const pending = await card({ status: "pending" });
    const { status, body } = await approve(pending.id, { doorId: entrance.id });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ _id: pending.id, status: "active", permissions: [{ doorId: entrance.code, granted: true }] });
  });

  it("approves without a body", async () => {
    const pending = await card({ status: "pending" });
    const { status, body } = await approve(pending.id);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ status: "active", permissions: [] });
  });

  it("answers 404 for an unknown card or door and 409 for a card that is not pending", async () => {
    expect(await approve("nope", {})).toEqual({ status: 404, body: { success: false, error: { message: "Tarjeta no encontrada" } } });
    const pending = await card({ status: "pending" });
    expect(await approve(pending.id, { doorId: "nope" })).toEqual({
      status: 404,
      body: { success: false, error: { message: "Puerta no encontrada" } },
    });
    expect((await getCardById(pending.id))?.status).toBe("pending");
    const active = await card();
    expect(await approve(active.id, {})).toEqual({
      status: 409,
      body: { success: false, error: { message: "La tarjeta no está pendiente de aprobación" } },
    });
    expect((await approve(pending.id, { doorId: 5 })).status).toBe(400);
  });
});

describe("POST /api/cards/{id}/permissions", () => {
  const post = (id: string, body: unknown) =>
    call(permissionsRoute.action, `/api/cards/${id}/permissions`, { method: "POST", params: { id }, body });

  it("grants and then denies the door (doorId: its hardware code)", async () => {
    const entrance = await door();
    const { id } = await card();
    const granted = await post(id, { doorId: entrance.code, granted: true });
    expect(granted.status).toBe(200);
    expect(granted.body.data.permissions).toEqual([{ doorId: entrance.code, granted: true, schedule: [] }]);
    const hours = [{ days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" }];
    const timed = await post(id, { doorId: entrance.code, granted: true, schedule: hours });
    expect(timed.body.data.permissions).toEqual([{ doorId: entrance.code, granted: true, schedule: hours }]);
    expect((await post(id, { doorId: entrance.code, granted: true, schedule: [{ days: [1], from: "09:00", to: "08:00" }] })).status).toBe(400);
    const denied = await post(id, { doorId: entrance.code, granted: false });
    expect(denied.body.data.permissions).toEqual([{ doorId: entrance.code, granted: false, schedule: [] }]);
  });

  it("still takes the door's row id (the former doorId) for one release", async () => {
    const entrance = await door();
    const { id } = await card();
    const granted = await post(id, { doorId: entrance.id, granted: true });
    expect(granted.status).toBe(200);
    expect(granted.body.data.permissions).toEqual([{ doorId: entrance.code, granted: true, schedule: [] }]);
    expect((await getCardById(id))?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: true, schedule: null }]);
  });

  it("answers 400 without a door or granted, 404 for an unknown door or card", async () => {
    const entrance = await door();
    const { id } = await card();
    expect(await post(id, { granted: true })).toEqual({ status: 400, body: { success: false, error: { message: "Selecciona una puerta" } } });
    expect(await post(id, { doorId: entrance.code })).toEqual({
      status: 400,
      body: { success: false, error: { message: "granted debe ser true o false" } },
    });
    expect(await post(id, { doorId: "nope", granted: true })).toEqual({
      status: 404,
      body: { success: false, error: { message: "Puerta no encontrada" } },
    });
    expect((await post("nope", { doorId: entrance.code, granted: true })).status).toBe(404);
    expect((await getCardById(id))?.permissions).toEqual([]);
  });
});

describe("DELETE /api/cards/{id}/permissions/{doorId}", () => {
  const revoke = (id: string, doorId: string) =>
    call(permissionRoute.action, `/api/cards/${id}/permissions/${doorId}`, { method: "DELETE", params: { id, doorId } });

  it("removes the permission on the door named by its hardware code", async () => {
    const entrance = await door();
    const { id } = await card();
    await setCardPermission(id, entrance.id, true);
    const { status, body } = await revoke(id, entrance.code);
    expect(status).toBe(200);
    expect(body.data.permissions).toEqual([]);
    expect((await getCardById(id))?.permissions).toEqual([]);
  });

  it("still takes the door's row id (the former {doorId}) for one release", async () => {
    const entrance = await door();
    const { id } = await card();
    await setCardPermission(id, entrance.code, true);
    const { status, body } = await revoke(id, entrance.id);
    expect(status).toBe(200);
    expect(body.data.permissions).toEqual([]);
    expect((await getCardById(id))?.permissions).toEqual([]);
  });

  it("answers 404 when the card has no such permission or does not exist", async () => {
    const entrance = await door();
    const { id } = await card();
    expect(await revoke(id, entrance.code)).toEqual({
      status: 404,
      body: { success: false, error: { message: "La tarjeta no tiene permiso en esa puerta" } },
    });
    expect(await revoke("nope", entrance.code)).toEqual({ status: 404, body: { success: false, error: { message: "Tarjeta no encontrada" } } });
  });
});
