// /admin/users with and without JavaScript. Every test makes its own users
// (through the models) under a fresh tag and searches for it, so tests
// running side by side never see each other's rows.
import { randomUUID, randomBytes } from "node:crypto";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const { createUser, getUserById, verifyLogin } = await import("~/models/user.server");
const { assignCardToUser, getCardById, registerCard } = await import("~/models/card.server");
const { addDays, endOfMadridDay, formatDate, todayInMadrid } = await import("~/utils/dates");

type Fields = { firstName?: string; lastName?: string; department?: string; role?: "user" | "admin"; status?: "active" | "inactive" | "suspended" };

const tag = () => `u${randomUUID().slice(0, 8)}`;
const cardNumber = () => randomBytes(5).toString("hex").toUpperCase();

async function person(username: string, fields: Fields = {}) {
  return createUser({ username, email: `${username}@example.com`, password: "castaños-y-sidra", role: "user", ...fields });
}

function row(page: Page, username: string) {
  return page.locator(`tr[data-username="${username}"]`);
}

/** The newest toast with this text (toasts stack, newest on top). */
function toast(page: Page, text: string | RegExp) {
  return page.getByTestId("toast").filter({ hasText: text }).first();
}

/** Types a search; without JavaScript the 'Buscar' button sends it. */
async function search(page: Page, text: string, javaScriptEnabled: boolean) {
  await page.getByRole("searchbox", { name: "Buscar" }).fill(text);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Buscar" }).click();
  await expect(page).toHaveURL(new RegExp(`search=${encodeURIComponent(text).replace(/%20/g, "\\+")}`));
}

async function usernames(page: Page) {
  return page.getByTestId("user-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-username")));
}

async function expectFocusInside(page: Page, dialog: Locator) {
  await expect(dialog).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
}

test.describe("list", () => {
  test("pages ten at a time, with 'Página X de Y', keeping the search", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    for (let i = 0; i < 12; i++) await person(`${t}-${String(i).padStart(2, "0")}`, { firstName: "Vecina" });

    await page.goto("/admin/users");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Gestión de Usuarios");
    await search(page, `${t}-`, javaScriptEnabled);
    await expect.poll(() => usernames(page)).toEqual(Array.from({ length: 10 }, (_, i) => `${t}-${String(i).padStart(2, "0")}`));
    await expect(page.getByText("Página 1 de 2")).toBeVisible();
    for (const header of ["Usuario", "Nombre", "Email", "Rol", "Estado", "Tarjetas", "Acciones"]) {
      await expect(page.getByRole("columnheader", { name: header })).toBeVisible();
    }
    await expect(row(page, `${t}-00`)).toContainText("Usuario");
    await expect(row(page, `${t}-00`)).toContainText("Activo");
    await expect(row(page, `${t}-00`)).toContainText("0 activas");

    await page.getByRole("link", { name: "Siguiente" }).click();
    await expect.poll(() => usernames(page)).toEqual([`${t}-10`, `${t}-11`]);
    await expect(page.getByText("Página 2 de 2")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`search=${t}-.*page=2|page=2.*search=${t}-`));
    await page.getByRole("link", { name: "Anterior" }).click();
    await expect(page.getByText("Página 1 de 2")).toBeVisible();
    await expect.poll(() => usernames(page)).toHaveLength(10);
  });

  test("searches username, name, email and department as the admin types", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    await person(`${t}-00`);
    await person(`otra-${t}`, { firstName: "Covadonga", lastName: `Rivas${t}`, department: `Coworking ${t}` });

    await page.goto("/admin/users");
    await expect(page.getByRole("searchbox", { name: "Buscar" })).toHaveAttribute("placeholder", "Buscar usuario, email, departamento...");
    if (javaScriptEnabled) {
      await expect(page.getByRole("button", { name: "Buscar" })).toHaveCount(0);
      // The list reloads without a full page load: a mark left in the window survives.
      await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    }
    await search(page, `rivas${t}`, javaScriptEnabled);
    await expect.poll(() => usernames(page)).toEqual([`otra-${t}`]);
    await expect(page.getByText("Página 1 de 1")).toBeVisible();
    await search(page, `covadonga rivas${t}`, javaScriptEnabled);
    await expect.poll(() => usernames(page)).toEqual([`otra-${t}`]);
    await search(page, `coworking ${t}`, javaScriptEnabled);
    await expect.poll(() => usernames(page)).toEqual([`otra-${t}`]);
    await search(page, `otra-${t}@example`, javaScriptEnabled);
    await expect.poll(() => usernames(page)).toEqual([`otra-${t}`]);
    await search(page, `${t}-00`, javaScriptEnabled);
    await expect.poll(() => usernames(page)).toEqual([`${t}-00`]);
    await search(page, `nadie-${t}`, javaScriptEnabled);
    await expect(page.getByText("No hay usuarios encontrados.")).toBeVisible();
    if (javaScriptEnabled) expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);

    // A link to a search opens with the field filled in.
    await page.goto(`/admin/users?search=otra-${t}`);
    await expect(page.getByRole("searchbox", { name: "Buscar" })).toHaveValue(`otra-${t}`);
  });

  test("with JavaScript, says 'Cargando usuarios...' while a search loads; without, the search still answers", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    await person(`${t}-carga`);
    await page.goto("/admin/users");
    if (!javaScriptEnabled) {
      // Without JavaScript the browser itself shows the page loading; the result is the same list.
      await search(page, t, javaScriptEnabled);
      await expect.poll(() => usernames(page)).toEqual([`${t}-carga`]);
      return;
    }
    // Hold the list's data request until the loading text has been seen.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/admin\/users\.data/, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole("searchbox", { name: "Buscar" }).fill(t);
    await expect(page.getByTestId("user-count")).toHaveText("Cargando usuarios...");
    release();
    await expect.poll(() => usernames(page)).toEqual([`${t}-carga`]);
    await expect(page.getByTestId("user-count")).toHaveText("1 usuario");
  });

  test("an admin's row has Inactivar and Eliminar disabled, and the server refuses them anyway", async ({ page, asAdmin }) => {
    const t = tag();
    const otherAdmin = await person(`${t}-admin`, { role: "admin" });
    await page.goto(`/admin/users?search=${t}`);
    const adminRow = row(page, otherAdmin.username);
    await expect(adminRow).toContainText("Administrador");
    await expect(adminRow.getByRole("button", { name: `Inactivar ${otherAdmin.username}` })).toBeDisabled();
    await expect(adminRow.getByRole("button", { name: `Eliminar ${otherAdmin.username}` })).toBeDisabled();
    // The signed-in admin's own row too.
    await page.goto(`/admin/users?search=${asAdmin.username}`);
    await expect(row(page, asAdmin.username).getByRole("button", { name: `Eliminar ${asAdmin.username}` })).toBeDisabled();

    // Reached by URL, the confirmations say no instead of asking.
    await page.goto(`/admin/users?search=${t}&modal=inactivate&user=${otherAdmin.id}`);
    const dialog = page.getByRole("dialog", { name: "Inactivar usuario" });
    await expect(dialog.getByRole("alert")).toHaveText("No se puede inactivar a un administrador.");
    await expect(dialog.getByRole("button", { name: "Inactivar" })).toHaveCount(0);
    await page.goto(`/admin/users?search=${t}&modal=delete&user=${otherAdmin.id}`);
    await expect(page.getByRole("dialog", { name: "Eliminar usuario" }).getByRole("alert")).toHaveText("No se puede eliminar a un administrador.");
    expect(await getUserById(otherAdmin.id)).toMatchObject({ status: "active" });
  });
});

test.describe("create and edit", () => {
  test("creates a user, and refuses a username that exists", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    await page.goto(`/admin/users?search=${t}`);
    await page.getByRole("link", { name: "Crear Usuario" }).click();
    let dialog = page.getByRole("dialog", { name: "Crear Usuario" });
    if (javaScriptEnabled) await expectFocusInside(page, dialog);

    // Nothing filled in: SPEC's warning, and each required field says so.
    await dialog.getByRole("button", { name: "Crear Usuario" }).click();
    await expect(toast(page, "Campos requeridos")).toContainText("Por favor completa todos los campos obligatorios");
    dialog = page.getByRole("dialog", { name: "Crear Usuario" });
    await expect(dialog.getByText("El usuario es requerido")).toBeVisible();
    await expect(dialog.getByText("La contraseña es requerida")).toBeVisible();

    await dialog.getByLabel("Usuario", { exact: true }).fill(`${t}-marta`);
    await dialog.getByLabel("Email").fill(`Marta.${t}@Example.com`);
    await dialog.getByLabel("Contraseña").fill("1234567890");
    await dialog.getByLabel("Nombre", { exact: true }).fill("Marta");
    await dialog.getByLabel("Apellidos").fill("García");
    await dialog.getByLabel("Departamento").fill("Coworking");
    await dialog.getByLabel("Teléfono").fill("+34 600 111 222");
    await dialog.getByLabel(/Número de unidad/).fill("2B");
    await dialog.getByRole("button", { name: "Crear Usuario" }).click();
    dialog = page.getByRole("dialog", { name: "Crear Usuario" });
    await expect(dialog.getByText("Esa contraseña es demasiado común: elige otra")).toBeVisible();

    await dialog.getByLabel("Contraseña").fill("hórreo-de-la-abuela");
    await dialog.getByRole("button", { name: "Crear Usuario" }).click();
    await expect(toast(page, "Usuario creado exitosamente")).toContainText(`${t}-marta`);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(row(page, `${t}-marta`)).toContainText("Marta García");
    await expect(row(page, `${t}-marta`)).toContainText(`marta.${t}@example.com`);
    expect((await verifyLogin(`${t}-marta`, "hórreo-de-la-abuela")).ok).toBe(true);

    await page.getByRole("link", { name: "Crear Usuario" }).click();
    dialog = page.getByRole("dialog", { name: "Crear Usuario" });
    await dialog.getByLabel("Usuario", { exact: true }).fill(`${t}-MARTA`);
    await dialog.getByLabel("Email").fill(`otra.${t}@example.com`);
    await dialog.getByLabel("Contraseña").fill("hórreo-de-la-abuela");
    await dialog.getByRole("button", { name: "Crear Usuario" }).click();
    const clash = `Ya existe un usuario con el nombre de usuario «${t}-MARTA»`;
    await expect(toast(page, "Error al crear")).toContainText(clash);
    await expect(page.getByRole("dialog", { name: "Crear Usuario" }).getByText(clash)).toBeVisible();
    // What was typed stays; the server never sends the password back (with JavaScript the browser kept it).
    await expect(page.getByRole("dialog", { name: "Crear Usuario" }).getByLabel("Email")).toHaveValue(`otra.${t}@example.com`);
    if (!javaScriptEnabled) await expect(page.getByRole("dialog", { name: "Crear Usuario" }).getByLabel("Contraseña")).toHaveValue("");
  });

  test("edits a user without and with a new password", async ({ page, asAdmin }) => {
    const t = tag();
    const user = await person(`${t}-lucia`, { firstName: "Lucía" });
    await page.goto(`/admin/users?search=${t}`);
    await row(page, user.username).getByRole("link", { name: `Editar ${user.username}` }).click();
    let dialog = page.getByRole("dialog", { name: "Editar Usuario" });
    await expect(dialog.getByLabel("Usuario", { exact: true })).toHaveValue(user.username);
    await expect(dialog.getByLabel(/Contraseña/)).toHaveValue("");
    await expect(dialog.getByText("Contraseña (déjala vacía para no cambiarla)")).toBeVisible();
    await dialog.getByLabel("Departamento").fill("Taller de cerámica");
    await dialog.getByRole("button", { name: "Actualizar Usuario" }).click();
    await expect(toast(page, "Usuario actualizado exitosamente")).toBeVisible();
    await expect.poll(async () => (await getUserById(user.id))?.department).toBe("Taller de cerámica");
    expect((await verifyLogin(user.username, "castaños-y-sidra")).ok).toBe(true);

    await row(page, user.username).getByRole("link", { name: `Editar ${user.username}` }).click();
    dialog = page.getByRole("dialog", { name: "Editar Usuario" });
    await expect(dialog.getByLabel("Departamento")).toHaveValue("Taller de cerámica");
    await dialog.getByLabel(/Contraseña/).fill("una-frase-nueva-larga");
    await dialog.getByRole("button", { name: "Actualizar Usuario" }).click();
    await expect(toast(page, "Usuario actualizado exitosamente")).toBeVisible();
    await expect.poll(async () => (await verifyLogin(user.username, "una-frase-nueva-larga")).ok).toBe(true);
    expect((await verifyLogin(user.username, "castaños-y-sidra")).ok).toBe(false);
  });
});

test.describe("status and delete", () => {
  test("inactivates, activates and deletes a resident, each after its confirmation", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    const user = await person(`${t}-pablo`, { firstName: "Pablo" });
    await assignCardToUser(user.id, { cardNumber: cardNumber() });
    await page.goto(`/admin/users?search=${t}`);
    await expect(row(page, user.username)).toContainText("1 activa");

    await row(page, user.username).getByRole("link", { name: `Inactivar ${user.username}` }).click();
    let dialog = page.getByRole("dialog", { name: "Inactivar usuario" });
    await expect(dialog).toContainText(`¿Estás seguro de que quieres inactivar a Pablo (@${user.username})?`);
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await dialog.getByRole("link", { name: "Cancelar" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    expect(await getUserById(user.id)).toMatchObject({ status: "active" });

    await row(page, user.username).getByRole("link", { name: `Inactivar ${user.username}` }).click();
    await page.getByRole("dialog", { name: "Inactivar usuario" }).getByRole("button", { name: "Inactivar" }).click();
    await expect(toast(page, "Usuario inactivado")).toContainText("El usuario ha sido inactivado exitosamente");
    await expect(row(page, user.username)).toContainText("Inactivo");
    expect(await getUserById(user.id)).toMatchObject({ status: "inactive" });

    await row(page, user.username).getByRole("link", { name: `Activar ${user.username}` }).click();
    await page.getByRole("dialog", { name: "Activar usuario" }).getByRole("button", { name: "Activar" }).click();
    await expect(toast(page, "Usuario activado")).toBeVisible();
    await expect(row(page, user.username)).toContainText("Activo");
    expect(await getUserById(user.id)).toMatchObject({ status: "active" });

    await row(page, user.username).getByRole("link", { name: `Eliminar ${user.username}` }).click();
    dialog = page.getByRole("dialog", { name: "Eliminar usuario" });
    await expect(dialog.getByTestId("user-deletion")).toContainText("1 tarjeta quedará sin asignar e inactivas");
    await dialog.getByRole("button", { name: "Eliminar" }).click();
    await expect(toast(page, "Usuario eliminado")).toContainText(user.username);
    await expect(row(page, user.username)).toHaveCount(0);
    expect(await getUserById(user.id)).toBeUndefined();
  });
});

test.describe("cards", () => {
  test("assigns, reassigns (warned first), edits and unassigns a card", async ({ page, asAdmin, javaScriptEnabled }) => {
    // Many form round trips in one test: on a busy machine they outlast the default timeout.
    test.slow();
    const t = tag();
    const ana = await person(`${t}-ana`, { firstName: "Ana", lastName: "Fernández" });
    const pablo = await person(`${t}-pablo`, { firstName: "Pablo", lastName: "Menéndez" });
    const pending = await registerCard({ cardNumber: cardNumber(), status: "pending" });
    const { card: pablos } = await assignCardToUser(pablo.id, { cardNumber: cardNumber(), alias: "Llavero de Pablo" });

    await page.goto(`/admin/users?search=${t}`);
    await row(page, ana.username).getByRole("link", { name: `Ver ${ana.username}` }).click();
    let details = page.getByRole("dialog", { name: `Detalles de ${ana.username}` });
    await expect(details).toContainText("Ana Fernández");
    await expect(details).toContainText("No especificado");
    await expect(details).toContainText("No hay tarjetas asignadas a este usuario.");

    // Assign the pending card.
    await details.getByRole("link", { name: "Asignar Tarjeta" }).click();
    let assign = page.getByRole("dialog", { name: "Asignar Tarjeta" });
    await expect(assign).toContainText(`Ana Fernández (@${ana.username})`);
    const submit = assign.getByRole("button", { name: "Asignar Tarjeta" });
    if (javaScriptEnabled) {
      await expect(submit).toBeDisabled();
      await expect(assign.getByLabel("Alias (opcional)")).toHaveCount(0);
    } else {
      await submit.click();
      assign = page.getByRole("dialog", { name: "Asignar Tarjeta" });
      await expect(assign.getByText("Selecciona una tarjeta").last()).toBeVisible();
    }
    await assign.getByLabel("Tarjeta", { exact: true }).selectOption({ label: `${pending.cardNumber} · Usuario desconocido` });
    await assign.getByLabel("Alias (opcional)").fill("Llavero azul");
    await assign.getByLabel("Tipo").selectOption({ label: "Secundaria" });
    const day = addDays(todayInMadrid(), 30);
    await assign.getByLabel("Fecha de expiración (opcional)").fill(day);
    await assign.getByRole("button", { name: "Asignar Tarjeta" }).click();
    await expect(toast(page, "Tarjeta asignada")).toContainText("Tarjeta asignada exitosamente");
    details = page.getByRole("dialog", { name: `Detalles de ${ana.username}` });
    const first = details.locator(`[data-card-number="${pending.cardNumber}"]`);
    await expect(first).toContainText("Llavero azul");
    await expect(first).toContainText("Secundaria");
    await expect(first).toContainText("Activa");
    await expect(first).toContainText(`Expira el ${formatDate(endOfMadridDay(day))}`);
    expect(await getCardById(pending.id)).toMatchObject({ userId: ana.id, status: "active", cardType: "secondary" });

    // Reassign Pablo's card: warned before it is taken from him.
    await details.getByRole("link", { name: "Asignar Tarjeta" }).click();
    assign = page.getByRole("dialog", { name: "Asignar Tarjeta" });
    await assign.getByLabel("Tarjeta", { exact: true }).selectOption({ label: `${pablos.cardNumber} · Pablo Menéndez` });
    if (javaScriptEnabled) {
      await expect(assign.getByTestId("reassign-warning")).toContainText("Esta tarjeta está asignada a Pablo Menéndez");
    } else {
      await assign.getByRole("button", { name: "Asignar Tarjeta" }).click();
      await expect(toast(page, "Tarjeta asignada a otro usuario")).toBeVisible();
      assign = page.getByRole("dialog", { name: "Asignar Tarjeta" });
      await expect(assign.getByTestId("reassign-warning")).toContainText("Esta tarjeta está asignada a Pablo Menéndez");
      expect(await getCardById(pablos.id)).toMatchObject({ userId: pablo.id });
    }
    await assign.getByRole("button", { name: "Asignar Tarjeta" }).click();
    await expect(toast(page, "Tarjeta reasignada")).toContainText("Tarjeta reasignada exitosamente desde Pablo Menéndez");
    details = page.getByRole("dialog", { name: `Detalles de ${ana.username}` });
    await expect(details.locator(`[data-card-number="${pablos.cardNumber}"]`)).toContainText("Sin alias");
    expect(await getCardById(pablos.id)).toMatchObject({ userId: ana.id });

    // Edit the first card: the number is read-only; the expiry can be cleared.
    await details.getByRole("link", { name: `Editar tarjeta ${pending.cardNumber}` }).click();
    const edit = page.getByRole("dialog", { name: `Editar tarjeta ${pending.cardNumber}` });
    await expect(edit.getByLabel("Número de tarjeta")).toHaveValue(pending.cardNumber);
    await expect(edit.getByLabel("Número de tarjeta")).toHaveAttribute("readonly", "");
    await expect(edit.getByLabel("Fecha de expiración (opcional)")).toHaveValue(day);
    await edit.getByLabel("Alias (opcional)").fill("Llavero rojo");
    await edit.getByLabel("Fecha de expiración (opcional)").fill("");
    await edit.getByRole("button", { name: "Actualizar Tarjeta" }).click();
    await expect(toast(page, "Tarjeta actualizada")).toContainText(pending.cardNumber);
    details = page.getByRole("dialog", { name: `Detalles de ${ana.username}` });
    await expect(details.locator(`[data-card-number="${pending.cardNumber}"]`)).toContainText("Llavero rojo");
    await expect(details.locator(`[data-card-number="${pending.cardNumber}"]`)).toContainText("Sin fecha de expiración");

    // Unassign Pablo's former card, after the confirmation.
    await details.getByRole("link", { name: `Eliminar tarjeta ${pablos.cardNumber}` }).click();
    const unassign = page.getByRole("dialog", { name: "Desasignar tarjeta" });
    await expect(unassign).toContainText("Ana Fernández");
    await unassign.getByRole("button", { name: "Desasignar" }).click();
    await expect(toast(page, "Tarjeta desasignada")).toContainText(pablos.cardNumber);
    details = page.getByRole("dialog", { name: `Detalles de ${ana.username}` });
    await expect(details.locator(`[data-card-number="${pablos.cardNumber}"]`)).toHaveCount(0);
    expect(await getCardById(pablos.id)).toMatchObject({ userId: null, status: "inactive" });

    await details.getByRole("link", { name: "Cerrar" }).click();
    await expect(row(page, ana.username)).toContainText("1 activa");
  });
});
