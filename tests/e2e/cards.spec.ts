// /admin/cards with and without JavaScript. Every test makes its own cards
// (through the models) under a fresh hex prefix and searches for it, so tests
// running side by side never see each other's rows.
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, expectFocusInside, test, toast } from "./fixtures";

const { assignCardToUser, getCardById, registerCard } = await import("~/models/card.server");
const { createTestDoor } = await import("../setup/fixtures");
const { createUser } = await import("~/models/user.server");
const { getDb } = await import("~/utils/db.server");

const DAY = 24 * 3600_000;
const ASSIGNED = "No se puede eliminar una tarjeta asignada a un usuario. Por favor, desasigna la tarjeta primero.";

function prefix() {
  return randomBytes(3).toString("hex").toUpperCase();
}

type CardFields = Parameters<typeof registerCard>[0];

async function card(cardNumber: string, fields: Partial<CardFields> = {}) {
  return registerCard({ cardNumber, status: "active", ...fields });
}

async function setUsage(cardId: string, lastUsed: number | null, attempts = 0, successes = 0) {
  await getDb().$client.execute({
    sql: "UPDATE cards SET last_used_at = ?, total_access_attempts = ?, successful_accesses = ? WHERE id = ?",
    args: [lastUsed, attempts, successes, cardId],
  });
}

async function door(name: string) {
  return createTestDoor({ code: `e2e-${prefix()}`, name });
}

async function holder(firstName: string, lastName: string) {
  const username = `titular-${prefix().toLowerCase()}`;
  return createUser({ username, email: `${username}@example.com`, password: "secreto-123", firstName, lastName });
}

function row(page: Page, cardNumber: string) {
  return page.locator(`tr[data-card-number="${cardNumber}"]`);
}

/** The table's card numbers, top to bottom, once they are these (navigations may still be running). */
async function expectRows(page: Page, cardNumbers: string[]) {
  await expect
    .poll(() => page.getByTestId("card-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-card-number"))))
    .toEqual(cardNumbers);
}

async function openDetail(page: Page, cardNumber: string) {
  await row(page, cardNumber).getByRole("link", { name: `Ver tarjeta ${cardNumber}` }).click();
  const dialog = page.getByRole("dialog", { name: `Tarjeta ${cardNumber}` });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Picks a status in the row's select; without JavaScript the row's 'Cambiar' button sends it. */
async function changeStatus(page: Page, cardNumber: string, label: "Activa" | "Inactiva", javaScriptEnabled: boolean) {
  const select = row(page, cardNumber).getByLabel(`Estado de la tarjeta ${cardNumber}`);
  await select.selectOption({ label });
  if (!javaScriptEnabled) await row(page, cardNumber).getByRole("button", { name: "Cambiar" }).click();
  return select;
}

test.describe("list", () => {
  test("sorts by the column headers (last use, newest first, by default) and keeps the search", async ({ page, asAdmin }) => {
    const p = prefix();
    const now = Date.now();
    const a = await card(`${p}01`, { alias: "bravo" });
    const b = await card(`${p}02`, { alias: "alfa" });
    const c = await card(`${p}03`, { alias: "charlie" });
    await setUsage(a.id, now - 3 * DAY, 9, 1);
    await setUsage(b.id, now - DAY, 2, 2);
    await setUsage(c.id, null);

    await page.goto(`/admin/cards?cardNumber=${p}`);
    await expectRows(page, [`${p}02`, `${p}01`, `${p}03`]);
    await expect(page.getByRole("columnheader", { name: /Último uso/ })).toHaveAttribute("aria-sort", "descending");

    await page.getByRole("link", { name: /^Alias/ }).click();
    await expect(page).toHaveURL(/sortBy=alias&sortOrder=desc/);
    await expectRows(page, [`${p}03`, `${p}01`, `${p}02`]);
    await page.getByRole("link", { name: /^Alias/ }).click();
    await expect(page).toHaveURL(/sortBy=alias&sortOrder=asc/);
    await expectRows(page, [`${p}02`, `${p}01`, `${p}03`]);
    await expect(page.getByRole("columnheader", { name: /Alias/ })).toHaveAttribute("aria-sort", "ascending");
    await expect(page).toHaveURL(new RegExp(`cardNumber=${p}`));

    await page.getByRole("link", { name: /^Intentos/ }).click();
    await expectRows(page, [`${p}01`, `${p}02`, `${p}03`]);
  });

  test("filters anonymous cards and searches by card number", async ({ page, asAdmin }) => {
    const p = prefix();
    await card(`${p}A1`, { isAnonymous: true, alias: "Móvil" });
    await card(`${p}B2`);
    await card(`${p}C3`);

    // The filter form keeps the sort chosen with the headers.
    await page.goto("/admin/cards?sortBy=cardNumber&sortOrder=asc");
    await page.getByLabel("Buscar por número").fill(p.toLowerCase());
    await page.getByLabel("Tarjetas anónimas").selectOption({ label: "Solo anónimas" });
    await page.getByRole("button", { name: "Filtrar" }).click();
    await expect(page).toHaveURL(/anonymousFilter=anonymous/);
    await expectRows(page, [`${p}A1`]);
    await expect(row(page, `${p}A1`).getByRole("img", { name: "Anónima" })).toHaveText("🤖");

    await page.getByLabel("Tarjetas anónimas").selectOption({ label: "No anónimas" });
    await page.getByRole("button", { name: "Filtrar" }).click();
    await expectRows(page, [`${p}B2`, `${p}C3`]);
    await expect(page).toHaveURL(/sortBy=cardNumber&sortOrder=asc/);
    await expect(page.getByRole("img", { name: "Anónima" })).toHaveCount(0);

    // Bytes with separators, as printed by some readers.
    await page.getByLabel("Tarjetas anónimas").selectOption({ label: "Todas" });
    await page.getByLabel("Buscar por número").fill(`${p}c3`.match(/../g)!.join(":"));
    await page.getByRole("button", { name: "Filtrar" }).click();
    await expectRows(page, [`${p}C3`]);

    await page.getByLabel("Buscar por número").fill("ZZZZ");
    await page.getByRole("button", { name: "Filtrar" }).click();
    await expect(page.getByText("No hay tarjetas que coincidan con los filtros.")).toBeVisible();

    await page.getByLabel("Tarjetas anónimas").selectOption({ label: "Solo anónimas" });
    await page.getByRole("button", { name: "Filtrar" }).click();
    await expect(page).toHaveURL(/anonymousFilter=anonymous/);
    await page.getByRole("link", { name: "Limpiar" }).click();
    await expect(page).toHaveURL(/\/admin\/cards$/);
    await expect(page.getByLabel("Buscar por número")).toHaveValue("");
    await expect(page.getByLabel("Tarjetas anónimas")).toHaveValue("all");
  });

  test("shows the canonical number, 'Sin alias', 'Sin asignar', the holder and the expiry badges", async ({ page, asAdmin }) => {
    const p = prefix();
    const now = Date.now();
    const marta = await holder("Marta", "García");
    await assignCardToUser(marta.id, { cardNumber: `${p.toLowerCase()}01`, expiresAt: new Date(now + 2.5 * DAY) });
    await card(`${p}02`, { expiresAt: new Date(now - DAY), status: "inactive" });
    await card(`${p}03`, { expiresAt: new Date("2099-12-24T12:00:00Z") });
    await card(`${p}04`);

    await page.goto(`/admin/cards?cardNumber=${p}&sortBy=cardNumber&sortOrder=asc`);
    await expect(row(page, `${p}01`)).toContainText(`${p}01`);
    await expect(row(page, `${p}01`)).toContainText(`Marta García (@${marta.username})`);
    await expect(row(page, `${p}01`)).toContainText("Expira en 3 días");
    await expect(row(page, `${p}02`)).toContainText("Expirada");
    await expect(row(page, `${p}03`)).toContainText("Expira el 24/12/2099");
    await expect(row(page, `${p}04`)).toContainText("Sin fecha de expiración");
    await expect(row(page, `${p}04`)).toContainText("Sin alias");
    await expect(row(page, `${p}04`)).toContainText("Sin asignar");
  });
});

test.describe("status", () => {
  test("switches a card off and on from its row", async ({ page, asAdmin, javaScriptEnabled }) => {
    const number = `${prefix()}${prefix()}`;
    const { id } = await card(number);
    await page.goto(`/admin/cards?cardNumber=${number}`);
    if (javaScriptEnabled) await expect(row(page, number).getByRole("button", { name: "Cambiar" })).toHaveCount(0);

    await changeStatus(page, number, "Inactiva", javaScriptEnabled);
    await expect(toast(page, "Estado actualizado")).toContainText(`Tarjeta ${number}: Inactiva`);
    await expect(row(page, number).getByLabel(`Estado de la tarjeta ${number}`)).toHaveValue("inactive");
    await expect(page).toHaveURL(new RegExp(`cardNumber=${number}`));
    await expect.poll(async () => (await getCardById(id))?.status).toBe("inactive");

    await changeStatus(page, number, "Activa", javaScriptEnabled);
    await expect(toast(page, "Estado actualizado")).toContainText(`Tarjeta ${number}: Activa`);
    await expect.poll(async () => (await getCardById(id))?.status).toBe("active");
  });

  test("a refused change shows the server's message and the select goes back", async ({ page, asAdmin, javaScriptEnabled }) => {
    const number = `${prefix()}${prefix()}`;
    const { id } = await card(number, { status: "inactive", expiresAt: new Date(Date.now() - DAY) });
    const message = "La tarjeta ha expirado: cambia su fecha de expiración antes de activarla";
    await page.goto(`/admin/cards?cardNumber=${number}`);

    const select = await changeStatus(page, number, "Activa", javaScriptEnabled);
    await expect(toast(page, "Error al actualizar")).toContainText(message);
    if (!javaScriptEnabled) await expect(page.getByRole("alert")).toContainText(message);
    await expect(row(page, number).getByLabel(`Estado de la tarjeta ${number}`)).toHaveValue("inactive");
    expect(await select.inputValue()).toBe("inactive");
    expect((await getCardById(id))?.status).toBe("inactive");
  });

  test("a card deleted meanwhile is refused with 'Tarjeta no encontrada'", async ({ page, asAdmin, javaScriptEnabled }) => {
    const number = `${prefix()}${prefix()}`;
    const { id } = await card(number);
    await page.goto(`/admin/cards?cardNumber=${number}`);
    await getDb().$client.execute({ sql: "DELETE FROM cards WHERE id = ?", args: [id] });
    await changeStatus(page, number, "Inactiva", javaScriptEnabled);
    await expect(toast(page, "Error al actualizar")).toContainText("Tarjeta no encontrada");
  });

  test("a pending card shows 'Pendiente' and is approved instead, optionally granting a door", async ({ page, asAdmin }) => {
    const number = `${prefix()}${prefix()}`;
    const entrance = await door(`Portal ${number}`);
    const { id } = await card(number, { status: "pending" });
    await page.goto(`/admin/cards?cardNumber=${number}`);
    await expect(row(page, number)).toContainText("Pendiente");
    await expect(row(page, number).getByLabel(`Estado de la tarjeta ${number}`)).toHaveCount(0);

    await row(page, number).getByRole("link", { name: `Aprobar tarjeta ${number}` }).click();
    const dialog = page.getByRole("dialog", { name: `Aprobar tarjeta ${number}` });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Conceder acceso a (opcional)").selectOption({ label: `Portal ${number} (Planta baja)` });
    await dialog.getByRole("button", { name: "Aprobar Tarjeta" }).click();

    await expect(toast(page, "Tarjeta aprobada")).toBeVisible();
    const detail = page.getByRole("dialog", { name: `Tarjeta ${number}` });
    await expect(detail).toContainText("Activa");
    await expect(detail.getByRole("listitem").filter({ hasText: `Portal ${number}` })).toContainText("Permitido");
    expect(await getCardById(id)).toMatchObject({ status: "active", permissions: [{ doorId: entrance.id, granted: true }] });
    await expect(row(page, number).getByLabel(`Estado de la tarjeta ${number}`)).toHaveValue("active");
  });
});

test.describe("card detail", () => {
  test("shows the holder and usage, and grants and revokes a door", async ({ page, asAdmin, javaScriptEnabled }) => {
    const number = `${prefix()}${prefix()}`;
    const garage = await door(`Garaje ${number}`);
    const lucia = await holder("Lucía", "Suárez");
    const { card: assigned } = await assignCardToUser(lucia.id, { cardNumber: number, alias: "Llavero" });
    await setUsage(assigned.id, Date.now() - DAY, 12, 10);

    await page.goto(`/admin/cards?cardNumber=${number}`);
    const dialog = await openDetail(page, number);
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await expect(dialog.getByTestId("card-holder")).toHaveText(`Lucía Suárez (@${lucia.username})`);
    await expect(dialog.getByTestId("card-attempts")).toHaveText("12");
    await expect(dialog.getByTestId("card-successes")).toHaveText("10");
    await expect(dialog).toContainText("Sin fecha de expiración");
    await expect(dialog).toContainText("Esta tarjeta no tiene permisos en ninguna puerta.");

    await dialog.getByRole("button", { name: "Guardar Permiso" }).click();
    await expect(dialog.getByText("Selecciona una puerta").last()).toBeVisible();
    expect((await getCardById(assigned.id))?.permissions).toEqual([]);

    await dialog.getByRole("combobox", { name: "Puerta" }).selectOption({ label: `Garaje ${number} (Planta baja)` });
    await dialog.getByRole("button", { name: "Guardar Permiso" }).click();
    await expect(toast(page, "Permiso concedido")).toContainText(`Garaje ${number}`);
    const permission = dialog.getByRole("listitem").filter({ hasText: `Garaje ${number}` });
    await expect(permission).toContainText("Permitido");
    expect((await getCardById(assigned.id))?.permissions).toEqual([{ doorId: garage.id, doorCode: garage.code, granted: true, schedule: null }]);
    // A door with a permission is no longer offered.
    await expect(dialog.getByRole("combobox", { name: "Puerta" }).locator("option", { hasText: `Garaje ${number}` })).toHaveCount(0);

    await permission.getByRole("button", { name: `Revocar permiso en Garaje ${number} (Planta baja)` }).click();
    await expect(toast(page, "Permiso revocado")).toBeVisible();
    await expect(dialog).toContainText("Esta tarjeta no tiene permisos en ninguna puerta.");
    expect((await getCardById(assigned.id))?.permissions).toEqual([]);

    await dialog.getByRole("combobox", { name: "Puerta" }).selectOption({ label: `Garaje ${number} (Planta baja)` });
    await dialog.getByRole("combobox", { name: "Acceso" }).selectOption({ label: "Denegar" });
    await dialog.getByRole("button", { name: "Guardar Permiso" }).click();
    await expect(toast(page, "Acceso denegado")).toBeVisible();
    await expect(dialog.getByRole("listitem").filter({ hasText: `Garaje ${number}` })).toContainText("Denegado");
    expect((await getCardById(assigned.id))?.permissions).toEqual([{ doorId: garage.id, doorCode: garage.code, granted: false, schedule: null }]);

    await dialog.getByRole("link", { name: "Cerrar" }).click();
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(new RegExp(`/admin/cards\\?cardNumber=${number}$`));
  });

  test("edits the alias: trimmed, unchanged says so, empty clears it", async ({ page, asAdmin }) => {
    const number = `${prefix()}${prefix()}`;
    const { id } = await card(number);
    await page.goto(`/admin/cards?cardNumber=${number}`);
    const dialog = await openDetail(page, number);
    await expect(dialog).toContainText("Sin alias");

    await dialog.getByRole("textbox", { name: "Alias" }).fill("   Puerta del jardín  ");
    await dialog.getByRole("button", { name: "Guardar Alias" }).click();
    await expect(toast(page, "Alias actualizado")).toContainText("Puerta del jardín");
    await expect(dialog.getByRole("textbox", { name: "Alias" })).toHaveValue("Puerta del jardín");
    await expect(row(page, number)).toContainText("Puerta del jardín");
    expect((await getCardById(id))?.alias).toBe("Puerta del jardín");

    await dialog.getByRole("button", { name: "Guardar Alias" }).click();
    await expect(toast(page, "Sin cambios")).toContainText("El alias no ha cambiado.");

    await dialog.getByRole("textbox", { name: "Alias" }).fill("");
    await dialog.getByRole("button", { name: "Guardar Alias" }).click();
    await expect(toast(page, "Alias eliminado")).toBeVisible();
    await expect(row(page, number)).toContainText("Sin alias");
    expect((await getCardById(id))?.alias).toBeNull();
  });
});

test.describe("delete", () => {
  test("an assigned card is not deleted: the SPEC message instead of the confirmation", async ({ page, asAdmin }) => {
    const number = `${prefix()}${prefix()}`;
    const owner = await holder("Pablo", "Menéndez");
    const { card: assigned } = await assignCardToUser(owner.id, { cardNumber: number });
    await page.goto(`/admin/cards?cardNumber=${number}`);
    const detail = await openDetail(page, number);
    await detail.getByRole("link", { name: "Eliminar" }).click();

    const dialog = page.getByRole("dialog", { name: "Eliminar tarjeta" });
    await expect(dialog.getByRole("alert")).toHaveText(ASSIGNED);
    await expect(dialog.getByRole("button", { name: "Eliminar" })).toHaveCount(0);
    await expect(dialog).not.toContainText("¿Estás seguro de que quieres eliminar esta tarjeta?");
    expect(await getCardById(assigned.id)).not.toBeNull();
  });

  test("a card assigned while the confirmation was open is refused by the server", async ({ page, asAdmin }) => {
    const number = `${prefix()}${prefix()}`;
    const { id } = await card(number);
    await page.goto(`/admin/cards?cardNumber=${number}&modal=delete&card=${id}`);
    const dialog = page.getByRole("dialog", { name: "Eliminar tarjeta" });
    await expect(dialog).toContainText("¿Estás seguro de que quieres eliminar esta tarjeta?");
    const owner = await holder("Ana", "Fernández");
    await assignCardToUser(owner.id, { cardNumber: number });

    await dialog.getByRole("button", { name: "Eliminar" }).click();
    await expect(toast(page, "Error al eliminar")).toContainText(ASSIGNED);
    await expect(page.getByRole("dialog", { name: "Eliminar tarjeta" }).getByRole("alert")).toContainText(ASSIGNED);
    expect(await getCardById(id)).not.toBeNull();
  });

  test("an unassigned card is deleted after the confirmation", async ({ page, asAdmin, javaScriptEnabled }) => {
    const number = `${prefix()}${prefix()}`;
    const { id } = await card(number, { alias: "Sobrante" });
    await page.goto(`/admin/cards?cardNumber=${number}`);
    const detail = await openDetail(page, number);
    await detail.getByRole("link", { name: "Eliminar" }).click();

    const dialog = page.getByRole("dialog", { name: "Eliminar tarjeta" });
    await expect(dialog).toContainText("¿Estás seguro de que quieres eliminar esta tarjeta?");
    await expect(dialog).toContainText(number);
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await dialog.getByRole("button", { name: "Eliminar" }).click();

    await expect(toast(page, "Tarjeta eliminada")).toContainText(number);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(row(page, number)).toHaveCount(0);
    expect(await getCardById(id)).toBeNull();
  });
});
