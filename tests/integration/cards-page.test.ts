// /admin/cards as Remix calls it: the guard, the list's query, the modals'
// data, and each form's answer (a redirect with a toast that keeps the page's
// query, or the refusal with its status and Spanish message).
import { beforeAll, describe, expect, it } from "vitest";
import { assignCardToUser, getCardById, registerCard } from "~/models/card.server";
import * as page from "~/routes/admin.cards";
import { setCardPermission } from "~/services/cards.server";
import { createTestDoor, createTestUser, hexPrefix as prefix, sessionCookie, toastOf } from "../setup/fixtures";
import { callRoute } from "../setup/route";

const callPage = (fn: Parameters<typeof callRoute>[0], request: Request) => callRoute(fn, request);

let adminCookie: string;
let residentCookie: string;

beforeAll(async () => {
  adminCookie = await sessionCookie((await createTestUser({ role: "admin" })).id);
  residentCookie = await sessionCookie((await createTestUser()).id);
});

async function load(search = "", cookie = adminCookie) {
  return callPage(page.loader, new Request(`http://localhost/admin/cards${search}`, { headers: { Cookie: cookie } }));
}

async function post(fields: Record<string, string>, search = "") {
  return callPage(
    page.action,
    new Request(`http://localhost/admin/cards${search}`, {
      method: "POST",
      headers: { Cookie: adminCookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }),
  );
}

describe("guard", () => {
  it("sends residents away from the page and its actions", async () => {
    expect((await load("", residentCookie)).headers.get("Location")).toBe("/");
    const anonymous = await load("", "");
    expect(anonymous.headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fcards");
  });
});

describe("loader", () => {
  it("lists with the query's filters and falls back to the defaults for values nobody could pick", async () => {
    const p = prefix();
    await registerCard({ cardNumber: `${p}01`, isAnonymous: true });
    await registerCard({ cardNumber: `${p}02` });
    const anonymousOnly = await (await load(`?cardNumber=${p}&anonymousFilter=anonymous&sortBy=cardNumber&sortOrder=asc`)).json();
    expect(anonymousOnly.cards.map((c: { cardNumber: string }) => c.cardNumber)).toEqual([`${p}01`]);
    expect(anonymousOnly.filters).toEqual({ sortBy: "cardNumber", sortOrder: "asc", anonymousFilter: "anonymous", cardNumber: p });
    const odd = await (await load(`?cardNumber=${p}&sortBy=color&sortOrder=sideways`)).json();
    expect(odd.filters).toMatchObject({ sortBy: "lastUsed", sortOrder: "desc" });
    expect(odd.total).toBe(2);
  });

  it("drops only a bad filter value: the other filters, the page and the modal stay", async () => {
    const p = prefix();
    await registerCard({ cardNumber: `${p}01`, isAnonymous: true });
    await registerCard({ cardNumber: `${p}02`, isAnonymous: true });
    await registerCard({ cardNumber: `${p}03` });
    const body = await (await load(`?cardNumber=${p}&anonymousFilter=anonymous&sortBy=color&sortOrder=asc&modal=nope`)).json();
    expect(body.filters).toEqual({ sortBy: "lastUsed", sortOrder: "asc", anonymousFilter: "anonymous", cardNumber: p });
    expect(body.total).toBe(2);
    expect(body.modal.name).toBeNull();
    const sideways = await (await load(`?cardNumber=${p}&anonymousFilter=someone&sortBy=cardNumber&sortOrder=sideways`)).json();
    expect(sideways.filters).toEqual({ sortBy: "cardNumber", sortOrder: "desc", anonymousFilter: "all", cardNumber: p });
    expect(sideways.cards.map((c: { cardNumber: string }) => c.cardNumber)).toEqual([`${p}03`, `${p}02`, `${p}01`]);
  });

  it("loads the open modal's card with every door and those still available", async () => {
    const door = await createTestDoor({ code: `page-${prefix()}`, name: "Garaje", location: "Sótano" });
    const card = await registerCard({ cardNumber: `${prefix()}03` });
    const body = await (await load(`?modal=detail&card=${card.id}`)).json();
    expect(body.modal.name).toBe("detail");
    expect(body.modal.detail.card._id).toBe(card.id);
    expect(body.modal.detail.availableDoors.map((d: { _id: string }) => d._id)).toContain(door.id);
    const missing = await (await load("?modal=detail&card=nope")).json();
    expect(missing.modal).toEqual({ name: "detail", cardId: "nope", detail: null });
  });
});

describe("action", () => {
  it("changes the status and comes back to the same list", async () => {
    const card = await registerCard({ cardNumber: `${prefix()}04`, status: "active" });
    const response = await post({ intent: "set-status", id: card.id, status: "inactive" }, "?sortBy=alias&sortOrder=asc&index");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/admin/cards?sortBy=alias&sortOrder=asc");
    expect(await toastOf(response)).toMatchObject({ type: "success", title: "Estado actualizado" });
    expect((await getCardById(card.id))?.status).toBe("inactive");
  });

  it("refuses a status outside active/inactive, an unknown card and an expired card, with an error toast", async () => {
    const card = await registerCard({ cardNumber: `${prefix()}05`, status: "inactive", expiresAt: new Date(Date.now() - 1000) });
    const cases = [
      [{ status: "suspended", id: card.id }, 400, "El estado debe ser activa (active) o inactiva (inactive)"],
      [{ status: "active", id: "nope" }, 404, "Tarjeta no encontrada"],
      [{ status: "active", id: card.id }, 409, "La tarjeta ha expirado: cambia su fecha de expiración antes de activarla"],
    ] as const;
    for (const [fields, status, message] of cases) {
      const response = await post({ intent: "set-status", ...fields });
      expect(response.status).toBe(status);
      expect(await toastOf(response)).toMatchObject({ type: "error", title: "Error al actualizar", description: message });
      const body = await response.json();
      expect(body.intent).toBe("set-status");
      expect(body.result.error[""]).toEqual([message]);
    }
    expect((await getCardById(card.id))?.status).toBe("inactive");
  });

  it("saves a trimmed alias, says so when nothing changed, and keeps the modal open", async () => {
    const card = await registerCard({ cardNumber: `${prefix()}06` });
    const search = `?modal=detail&card=${card.id}`;
    const saved = await post({ intent: "set-alias", id: card.id, alias: "  Buzón  " }, search);
    expect(saved.headers.get("Location")).toBe(`/admin/cards${search}`);
    expect(await toastOf(saved)).toMatchObject({ type: "success", title: "Alias actualizado", description: "Buzón" });
    const same = await post({ intent: "set-alias", id: card.id, alias: "Buzón" }, search);
    expect(await toastOf(same)).toMatchObject({ type: "info", title: "Sin cambios", description: "El alias no ha cambiado." });
    const cleared = await post({ intent: "set-alias", id: card.id, alias: "" }, search);
    expect(await toastOf(cleared)).toMatchObject({ title: "Alias eliminado" });
    expect((await getCardById(card.id))?.alias).toBeNull();
  });

  it("grants and revokes a door (doorId: its hardware code), and asks for a door when none is chosen", async () => {
    const door = await createTestDoor({ code: `page-${prefix()}`, name: "Azotea", location: "Planta 5" });
    const card = await registerCard({ cardNumber: `${prefix()}07` });
    const missing = await post({ intent: "grant-permission", id: card.id, doorId: "", granted: "true" });
    expect(missing.status).toBe(400);
    expect((await missing.json()).result.error.doorId).toEqual(["Selecciona una puerta"]);
    const granted = await post({ intent: "grant-permission", id: card.id, doorId: door.code, granted: "true" });
    expect(await toastOf(granted)).toMatchObject({ title: "Permiso concedido", description: "Azotea" });
    expect((await getCardById(card.id))?.permissions).toEqual([{ doorId: door.id, doorCode: door.code, granted: true, schedule: null }]);
    const revoked = await post({ intent: "revoke-permission", id: card.id, doorId: door.code });
    expect(await toastOf(revoked)).toMatchObject({ title: "Permiso revocado" });
    expect((await getCardById(card.id))?.permissions).toEqual([]);
    const again = await post({ intent: "revoke-permission", id: card.id, doorId: door.code });
    expect(again.status).toBe(404);
  });

  it("still takes a door's row id in doorId (a page loaded before the release) for one release", async () => {
    const door = await createTestDoor({ code: `page-${prefix()}`, name: "Bodega", location: "Sótano" });
    const card = await registerCard({ cardNumber: `${prefix()}0C`, status: "pending" });
    const granted = await post({ intent: "grant-permission", id: card.id, doorId: door.id, granted: "false" });
    expect(await toastOf(granted)).toMatchObject({ title: "Acceso denegado", description: "Bodega" });
    expect((await getCardById(card.id))?.permissions).toEqual([{ doorId: door.id, doorCode: door.code, granted: false, schedule: null }]);
    const revoked = await post({ intent: "revoke-permission", id: card.id, doorId: door.id });
    expect(await toastOf(revoked)).toMatchObject({ title: "Permiso revocado", description: "Bodega" });
    const approved = await post({ intent: "approve-card", id: card.id, doorId: door.id });
    expect(approved.status).toBe(302);
    expect(await getCardById(card.id)).toMatchObject({ status: "active", permissions: [{ doorId: door.id, granted: true }] });
  });

  it("refuses to delete an assigned card with the SPEC message and deletes an unassigned one, closing the modal", async () => {
    const holder = await createTestUser();
    const { card: assigned } = await assignCardToUser(holder.id, { cardNumber: `${prefix()}08` });
    const refused = await post({ intent: "delete-card", id: assigned.id }, `?modal=delete&card=${assigned.id}`);
    expect(refused.status).toBe(409);
    expect(await toastOf(refused)).toMatchObject({
      title: "Error al eliminar",
      description: "No se puede eliminar una tarjeta asignada a un usuario. Por favor, desasigna la tarjeta primero.",
    });
    const loose = await registerCard({ cardNumber: `${prefix()}09` });
    const deleted = await post({ intent: "delete-card", id: loose.id }, `?sortBy=alias&modal=delete&card=${loose.id}`);
    expect(deleted.headers.get("Location")).toBe("/admin/cards?sortBy=alias");
    expect(await toastOf(deleted)).toMatchObject({ title: "Tarjeta eliminada", description: loose.cardNumber });
    expect(await getCardById(loose.id)).toBeNull();
  });

  it("approves a pending card with a door and opens its detail; a failure says 'Error al aprobar tarjeta: …'", async () => {
    const door = await createTestDoor({ code: `page-${prefix()}`, name: "Portal", location: "Planta baja" });
    const pending = await registerCard({ cardNumber: `${prefix()}0A`, status: "pending" });
    const approved = await post({ intent: "approve-card", id: pending.id, doorId: door.code }, `?modal=approve&card=${pending.id}`);
    expect(approved.headers.get("Location")).toBe(`/admin/cards?modal=detail&card=${pending.id}`);
    expect(await getCardById(pending.id)).toMatchObject({ status: "active", permissions: [{ doorId: door.id, granted: true }] });
    const again = await post({ intent: "approve-card", id: pending.id });
    expect(again.status).toBe(409);
    expect((await again.json()).result.error[""]).toEqual(["Error al aprobar tarjeta: La tarjeta no está pendiente de aprobación"]);
  });

  it("answers 400 to an unknown intent", async () => {
    expect((await post({ intent: "paint-it-red" })).status).toBe(400);
  });
});

describe("detail modal data", () => {
  it("keeps an explicit denial visible as a permission", async () => {
    const door = await createTestDoor({ code: `page-${prefix()}`, name: "Trastero", location: "Sótano" });
    const card = await registerCard({ cardNumber: `${prefix()}0B` });
    await setCardPermission(card.id, door.id, false);
    const body = await (await load(`?modal=detail&card=${card.id}`)).json();
    expect(body.modal.detail.card.permissions).toEqual([{ doorId: door.code, granted: false, schedule: [] }]);
    expect(body.modal.detail.availableDoors.map((d: { _id: string }) => d._id)).not.toContain(door.id);
  });
});
