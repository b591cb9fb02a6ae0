// /admin/users as Remix calls it: the guard, the list's search and paging,
// the modals' data, and each form's answer (a redirect with SPEC's toast that
// keeps the page's query, or the refusal with its status, Spanish message
// and error toast), whatever the form sends.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { assignCardToUser, getCardById, registerCard } from "~/models/card.server";
import { getUserById, verifyLogin } from "~/models/user.server";
import * as page from "~/routes/admin.users";
import { getOptionalUser } from "~/utils/auth.server";
import { addDays, endOfMadridDay, todayInMadrid } from "~/utils/dates";
import { createTestUser, hexPrefix, sessionCookie, toastOf } from "../setup/fixtures";
import { callRoute, formPost, pageRequest } from "../setup/route";

let admin: Awaited<ReturnType<typeof createTestUser>>;
let adminCookie: string;
let residentCookie: string;

beforeAll(async () => {
  admin = await createTestUser({ role: "admin" });
  adminCookie = await sessionCookie(admin.id);
  residentCookie = await sessionCookie((await createTestUser()).id);
});

async function load(search = "", cookie = adminCookie) {
  return callRoute(page.loader, pageRequest(`/admin/users${search}`, cookie));
}

async function post(fields: Record<string, string>, search = "", cookie = adminCookie) {
  return callRoute(page.action, formPost(`/admin/users${search}`, cookie, fields));
}

/** Whose session the cookie holds now (null once it has ended: the page signs it out). */
async function getUserOfSessionCookie(cookie: string) {
  try {
    return (await getOptionalUser(pageRequest("/", cookie)))?.id ?? null;
  } catch (signedOut) {
    if (signedOut instanceof Response && signedOut.headers.get("Location") === "/login") return null;
    throw signedOut;
  }
}

const fresh = () => randomUUID().slice(0, 8);
const cardNumber = () => `${hexPrefix()}${hexPrefix()}`;

function userFields(fields: Record<string, string> = {}) {
  const username = `page-${fresh()}`;
  return { username, email: `${username}@example.com`, password: "castaños-y-sidra", role: "user", status: "active", ...fields };
}

describe("guard", () => {
  it("sends residents and visitors away from the page and its actions", async () => {
    expect((await load("", residentCookie)).headers.get("Location")).toBe("/");
    expect((await load("", "")).headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fusers");
    const residentPost = await post({ intent: "delete-user", id: admin.id }, "", residentCookie);
    expect(residentPost.headers.get("Location")).toBe("/");
    expect(await getUserById(admin.id)).toBeDefined();
  });
});

describe("loader", () => {
  it("searches, pages by ten, and shows the last page for a page past the end", async () => {
    const tag = fresh();
    for (let i = 0; i < 11; i++) await createTestUser({ username: `${tag}-${String(i).padStart(2, "0")}` });
    const first = await (await load(`?search=${tag}`)).json();
    expect(first.search).toBe(tag);
    expect(first.users).toHaveLength(10);
    expect(first.pagination).toEqual({ page: 1, limit: 10, total: 11, pages: 2 });
    const past = await (await load(`?search=${tag}&page=9`)).json();
    expect(past.pagination.page).toBe(2);
    expect(past.users.map((u: { username: string }) => u.username)).toEqual([`${tag}-10`]);
    const none = await (await load("?search=nadie-se-llama-asi")).json();
    expect(none.users).toEqual([]);
    expect(none.pagination).toEqual({ page: 1, limit: 10, total: 0, pages: 1 });
  });

  it("drops only a bad search (too long): the page and the open modal stay", async () => {
    const tag = fresh();
    for (let i = 0; i < 11; i++) await createTestUser({ username: `${tag}-${String(i).padStart(2, "0")}` });
    const body = await (await load(`?search=${"x".repeat(101)}&page=2&modal=detail&user=${admin.id}`)).json();
    expect(body.search).toBe("");
    expect(body.pagination.page).toBe(2);
    expect(body.pagination.total).toBeGreaterThanOrEqual(11);
    expect(body.modal).toMatchObject({ name: "detail", userId: admin.id });
    expect(body.modal.detail.user._id).toBe(admin.id);
  });

  it("loads the open modal's user with their cards, the assignable cards grouped, and what a delete takes", async () => {
    const marta = await createTestUser({ firstName: "Marta", lastName: "García" });
    const lucia = await createTestUser({ firstName: "Lucía" });
    const own = cardNumber();
    await assignCardToUser(marta.id, { cardNumber: own, alias: "Llavero" });
    const loose = await registerCard({ cardNumber: cardNumber(), status: "active", alias: "Repuesto" });
    const pendingNobody = await registerCard({ cardNumber: cardNumber(), status: "pending", isAnonymous: true });
    const pendingLucia = await registerCard({ cardNumber: cardNumber(), status: "pending", userId: lucia.id });
    const { card: luciaCard } = await assignCardToUser(lucia.id, { cardNumber: cardNumber() });
    const suspended = await registerCard({ cardNumber: cardNumber(), status: "suspended" });

    const detail = await (await load(`?modal=detail&user=${marta.id}`)).json();
    expect(detail.modal.detail.user).toMatchObject({ _id: marta.id, firstName: "Marta", activeCardCount: 1 });
    expect(detail.modal.detail.cards.map((c: { cardNumber: string }) => c.cardNumber)).toEqual([own]);

    const assign = await (await load(`?modal=assign&user=${marta.id}`)).json();
    const groups = assign.modal.cardOptions;
    const labelOf = (group: { cardNumber: string; label: string }[], number: string) => group.find((o) => o.cardNumber === number)?.label;
    expect(labelOf(groups.unassigned, loose.cardNumber)).toBe(`${loose.cardNumber} · Repuesto`);
    expect(labelOf(groups.pending, pendingNobody.cardNumber)).toBe(`${pendingNobody.cardNumber} 🤖 · Usuario desconocido`);
    expect(labelOf(groups.pending, pendingLucia.cardNumber)).toBe(`${pendingLucia.cardNumber} · Lucía`);
    expect(groups.assigned.find((o: { cardNumber: string }) => o.cardNumber === luciaCard.cardNumber)).toMatchObject({
      label: `${luciaCard.cardNumber} · Lucía`,
      holder: { id: lucia.id, name: "Lucía" },
    });
    const everyNumber = [...groups.unassigned, ...groups.pending, ...groups.assigned].map((o: { cardNumber: string }) => o.cardNumber);
    expect(everyNumber).not.toContain(own);
    expect(everyNumber).not.toContain(suspended.cardNumber);

    const deletion = await (await load(`?modal=delete&user=${marta.id}`)).json();
    expect(deletion.modal.deletion).toEqual({ cards: 1, bookings: 0, notifications: 0 });
    const missing = await (await load("?modal=detail&user=nope")).json();
    expect(missing.modal).toMatchObject({ name: "detail", userId: "nope", detail: null });
  });
});

describe("create and edit", () => {
  it("creates a user and comes back to the same list with SPEC's toast", async () => {
    const fields = userFields({ firstName: "Xuan", unitNumber: "3A" });
    const response = await post({ intent: "create-user", ...fields }, "?search=xuan&modal=new");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/admin/users?search=xuan");
    expect(await toastOf(response)).toMatchObject({ type: "success", title: "Usuario creado exitosamente", description: fields.username });
    expect((await verifyLogin(fields.username, fields.password)).ok).toBe(true);
  });

  it("refuses a duplicate username with the clash on its field, never sending the password back", async () => {
    const existing = await createTestUser();
    const response = await post({ intent: "create-user", ...userFields({ username: existing.username.toUpperCase() }) });
    expect(response.status).toBe(409);
    const message = `Ya existe un usuario con el nombre de usuario «${existing.username.toUpperCase()}»`;
    expect(await toastOf(response)).toMatchObject({ type: "error", title: "Error al crear", description: message });
    const body = await response.json();
    expect(body.result.error.username).toEqual([message]);
    expect(JSON.stringify(body)).not.toContain("castaños-y-sidra");
  });

  it("warns 'Campos requeridos' when a required field is empty", async () => {
    const response = await post({ intent: "create-user", username: "", email: "", password: "", role: "" });
    expect(response.status).toBe(400);
    expect(await toastOf(response)).toMatchObject({
      type: "warning",
      title: "Campos requeridos",
      description: "Por favor completa todos los campos obligatorios",
    });
    expect((await response.json()).result.error).toMatchObject({ username: ["El usuario es requerido"], role: ["El rol es requerido"] });
  });

  it("edits with and without a new password", async () => {
    const fields = userFields();
    await post({ intent: "create-user", ...fields });
    const { users } = await (await load(`?search=${fields.username}`)).json();
    const id = users[0]._id;
    const kept = await post({ intent: "update-user", id, ...fields, password: "", department: "Coworking" }, `?modal=edit&user=${id}`);
    expect(kept.headers.get("Location")).toBe("/admin/users");
    expect(await toastOf(kept)).toMatchObject({ title: "Usuario actualizado exitosamente" });
    expect((await verifyLogin(fields.username, fields.password)).ok).toBe(true);
    expect(await getUserById(id)).toMatchObject({ department: "Coworking" });
    const theirBrowser = await sessionCookie(id);
    expect(await getUserOfSessionCookie(theirBrowser)).toBe(id);
    await post({ intent: "update-user", id, ...fields, password: "nueva-frase-larga" });
    expect((await verifyLogin(fields.username, "nueva-frase-larga")).ok).toBe(true);
    // A new password signs the user out everywhere.
    expect(await getUserOfSessionCookie(theirBrowser)).toBeNull();
  });

  it("keeps the admin's own browser signed in when they change their own password, ending their other sessions", async () => {
    const self = await createTestUser({ role: "admin", password: "castaños-y-sidra" });
    const here = await sessionCookie(self.id);
    const elsewhere = await sessionCookie(self.id);
    const changed = await post({ intent: "update-user", id: self.id, username: self.username, email: self.email, role: "admin", status: "active", password: "otra-frase-larga" }, "", here);
    expect(await toastOf(changed)).toMatchObject({ title: "Usuario actualizado exitosamente" });
    expect(await getUserOfSessionCookie(here)).toBe(self.id);
    expect(await getUserOfSessionCookie(elsewhere)).toBeNull();
  });
});

describe("status and delete, whatever the form sends", () => {
  it("inactivates and activates a resident with SPEC's toasts", async () => {
    const resident = await createTestUser();
    const inactivated = await post({ intent: "inactivate-user", id: resident.id }, `?search=x&modal=inactivate&user=${resident.id}`);
    expect(inactivated.headers.get("Location")).toBe("/admin/users?search=x");
    expect(await toastOf(inactivated)).toMatchObject({ title: "Usuario inactivado", description: "El usuario ha sido inactivado exitosamente" });
    expect(await getUserById(resident.id)).toMatchObject({ status: "inactive" });
    const activated = await post({ intent: "activate-user", id: resident.id });
    expect(await toastOf(activated)).toMatchObject({ title: "Usuario activado" });
    expect(await getUserById(resident.id)).toMatchObject({ status: "active" });
  });

  it("refuses to inactivate, suspend or delete an admin, or to touch oneself", async () => {
    const other = await createTestUser({ role: "admin" });
    const cases = [
      [{ intent: "inactivate-user", id: other.id }, 403, "Error al inactivar", "No se puede inactivar a un administrador"],
      [{ intent: "delete-user", id: other.id }, 403, "Error al eliminar", "No se puede eliminar a un administrador"],
      [{ intent: "inactivate-user", id: admin.id }, 403, "Error al inactivar", "No puedes cambiar el estado de tu propia cuenta"],
      [{ intent: "delete-user", id: admin.id }, 403, "Error al eliminar", "No puedes eliminar tu propia cuenta"],
      [
        { intent: "update-user", id: other.id, ...userFields({ username: other.username, email: other.email, role: "admin", status: "suspended" }) },
        409,
        "Error al actualizar",
        "Un administrador no puede estar inactivo ni suspendido",
      ],
    ] as const;
    for (const [fields, status, title, message] of cases) {
      const response = await post(fields);
      expect(response.status, message).toBe(status);
      expect(await toastOf(response)).toMatchObject({ type: "error", title, description: message });
    }
    expect(await getUserById(other.id)).toMatchObject({ role: "admin", status: "active" });
    expect(await getUserById(admin.id)).toMatchObject({ role: "admin", status: "active" });
  });

  it("deletes a resident after the confirmation and releases their cards", async () => {
    const resident = await createTestUser();
    const { card } = await assignCardToUser(resident.id, { cardNumber: cardNumber() });
    const response = await post({ intent: "delete-user", id: resident.id }, `?modal=delete&user=${resident.id}&page=2`);
    expect(response.headers.get("Location")).toBe("/admin/users?page=2");
    expect(await toastOf(response)).toMatchObject({ title: "Usuario eliminado", description: resident.username });
    expect(await getCardById(card.id)).toMatchObject({ userId: null, status: "inactive" });
  });
});

describe("cards", () => {
  it("asks before taking a card from someone else, then reassigns it and says from whom", async () => {
    const pablo = await createTestUser({ firstName: "Pablo", lastName: "Menéndez" });
    const ana = await createTestUser({ firstName: "Ana" });
    const { card } = await assignCardToUser(pablo.id, { cardNumber: cardNumber() });
    const search = `?modal=assign&user=${ana.id}`;
    const asked = await post({ intent: "assign-card", id: ana.id, cardNumber: card.cardNumber, cardType: "primary" }, search);
    expect(asked.status).toBe(409);
    expect(await toastOf(asked)).toMatchObject({ type: "warning", title: "Tarjeta asignada a otro usuario" });
    expect((await asked.json()).reassign).toEqual({ holderId: pablo.id, holderName: "Pablo Menéndez" });
    expect(await getCardById(card.id)).toMatchObject({ userId: pablo.id });

    const day = addDays(todayInMadrid(), 10);
    const done = await post(
      { intent: "assign-card", id: ana.id, cardNumber: card.cardNumber, cardType: "temporary", alias: "Visita", expiresAt: day, reassignFrom: pablo.id },
      search,
    );
    expect(done.headers.get("Location")).toBe(`/admin/users?modal=detail&user=${ana.id}`);
    expect(await toastOf(done)).toMatchObject({ title: "Tarjeta reasignada", description: "Tarjeta reasignada exitosamente desde Pablo Menéndez" });
    expect(await getCardById(card.id)).toMatchObject({ userId: ana.id, alias: "Visita", cardType: "temporary", expiresAt: endOfMadridDay(day) });
  });

  it("assigns an unassigned card, refuses an empty choice, edits and unassigns", async () => {
    const resident = await createTestUser();
    const loose = await registerCard({ cardNumber: cardNumber(), status: "pending" });
    const empty = await post({ intent: "assign-card", id: resident.id, cardNumber: "" });
    expect(empty.status).toBe(400);
    expect((await empty.json()).result.error.cardNumber).toEqual(["Selecciona una tarjeta"]);

    const assigned = await post({ intent: "assign-card", id: resident.id, cardNumber: loose.cardNumber, cardType: "primary" });
    expect(await toastOf(assigned)).toMatchObject({ title: "Tarjeta asignada", description: "Tarjeta asignada exitosamente" });
    expect(await getCardById(loose.id)).toMatchObject({ userId: resident.id, status: "active" });

    const past = await post({ intent: "update-card", id: resident.id, cardId: loose.id, cardType: "primary", expiresAt: addDays(todayInMadrid(), -1) });
    expect(past.status).toBe(400);
    expect(await toastOf(past)).toMatchObject({ title: "Error al actualizar", description: "La fecha de expiración no puede ser anterior a hoy" });
    const edited = await post({ intent: "update-card", id: resident.id, cardId: loose.id, alias: "Bici", cardType: "emergency" }, `?modal=edit-card&user=${resident.id}&card=${loose.id}`);
    expect(edited.headers.get("Location")).toBe(`/admin/users?modal=detail&user=${resident.id}`);
    expect(await getCardById(loose.id)).toMatchObject({ alias: "Bici", cardType: "emergency", expiresAt: null });

    const unassigned = await post({ intent: "unassign-card", id: resident.id, cardId: loose.id });
    expect(await toastOf(unassigned)).toMatchObject({ title: "Tarjeta desasignada", description: loose.cardNumber });
    expect(await getCardById(loose.id)).toMatchObject({ userId: null, status: "inactive" });
    const again = await post({ intent: "unassign-card", id: resident.id, cardId: loose.id });
    expect(await toastOf(again)).toMatchObject({ title: "Error al eliminar", description: "La tarjeta no está asignada a este usuario" });
  });
});
