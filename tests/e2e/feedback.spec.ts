// Forms and feedback as people meet them (issue: defects found using every
// page): a refused enquiry shows the server's new question, toasts stack,
// one shared "complete every field" message, the receipt's lookup link, and
// every page's title.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const { addDays, todayInMadrid } = await import("~/utils/dates");
const today = todayInMadrid();

async function question(page: Page) {
  return (await page.getByTestId("captcha-question").first().textContent())!.trim();
}

async function answer(page: Page) {
  const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(await question(page))!;
  await page.getByLabel(/Verificación anti-spam/).fill(String(op === "+" ? Number(a) + Number(b) : Number(a) - Number(b)));
}

async function fillEnquiry(page: Page, message: string) {
  await page.getByLabel("Nombre").fill("Noa");
  await page.getByRole("textbox", { name: "Email" }).fill(`noa-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`);
  await page.getByRole("textbox", { name: "Teléfono" }).fill("600");
  await page.getByLabel("Mensaje").fill(message);
}

test("after a wrong answer the enquiry form shows the server's new question, and answering it sends", async ({ page }) => {
  await page.goto("/consulta");
  await fillEnquiry(page, `Pregunta ${Date.now()}`);
  // The id, not the text: two random questions may read the same.
  const firstId = await page.locator('input[name="captchaId"]').inputValue();
  await page.getByLabel(/Verificación anti-spam/).fill("999");
  await page.getByRole("button", { name: "Enviar Consulta" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Responde a la nueva pregunta" })).toBeVisible();
  await expect(page.locator('input[name="captchaId"]')).not.toHaveValue(firstId);
  // What was typed is still there; only the answer is asked again.
  await expect(page.getByLabel("Nombre")).toHaveValue("Noa");
  await answer(page);
  await page.getByRole("button", { name: "Enviar Consulta" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Consulta Enviada" })).toBeVisible();
});

test("toasts stack newest on top, each closes on its own, in a live region", async ({ page, javaScriptEnabled }) => {
  await page.goto("/consulta");
  await fillEnquiry(page, `Primera ${Date.now()}`);
  await answer(page);
  await page.getByRole("button", { name: "Enviar Consulta" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Consulta Enviada" })).toBeVisible();
  await fillEnquiry(page, `Segunda ${Date.now()}`);
  await page.getByLabel(/Verificación anti-spam/).fill("999");
  await page.getByRole("button", { name: "Enviar Consulta" }).click();
  const toasts = page.getByTestId("toast");
  await expect(toasts.first()).toContainText("Error");
  await expect(page.getByRole("status").filter({ has: toasts.first() })).toHaveAttribute("aria-live", "polite");
  if (javaScriptEnabled) {
    // The earlier one is still shown, below the new one.
    await expect(toasts).toHaveCount(2);
    await expect(toasts.nth(1)).toContainText("Consulta Enviada");
  }
  await toasts.first().click();
  await expect(page.getByTestId("toast").filter({ hasText: "Error" })).toBeHidden();
  if (javaScriptEnabled) await expect(page.getByTestId("toast").filter({ hasText: "Consulta Enviada" })).toBeVisible();
});

test("an empty enquiry says 'Por favor completa todos los campos' once, and marks every field", async ({ page }) => {
  await page.goto("/consulta");
  await page.getByRole("button", { name: "Enviar Consulta" }).click();
  await expect(page.getByText("Por favor completa todos los campos", { exact: true })).toHaveCount(1);
  for (const field of [page.getByLabel("Nombre"), page.getByRole("textbox", { name: "Email" }), page.getByLabel("Mensaje")]) {
    await expect(field).toHaveAttribute("aria-invalid", "true");
  }
});

test("'Consultar mi reserva' in the receipt opens the lookup with the code and this browser's email", async ({ page }) => {
  const email = `lookup-${Date.now()}@example.com`;
  await page.goto("/reservar");
  await page.getByRole("radio", { name: "Sala de reuniones" }).check();
  await page.getByLabel("Fecha de entrada").fill(addDays(today, 4));
  await page.getByLabel("Fecha de salida").fill(addDays(today, 5));
  await page.getByLabel("Nombre completo").fill("Iago");
  await page.getByRole("textbox", { name: "Email" }).fill(email);
  await page.getByRole("textbox", { name: "Teléfono" }).fill("600 123 456");
  await page.getByRole("button", { name: "Reservar" }).click();
  const code = (await page.getByTestId("reservation-code").textContent())!.trim();
  await page.getByRole("link", { name: "Consultar mi reserva" }).click();
  await expect(page.getByLabel("Código de reserva")).toHaveValue(code);
  await expect(page.getByRole("textbox", { name: "Email" })).toHaveValue(email);
  await expect(page).not.toHaveURL(/@/);
  await page.getByRole("button", { name: "Buscar Reserva" }).click();
  await expect(page.getByRole("heading", { name: new RegExp(`Reserva ${code}`) })).toBeVisible();
});

async function expectTitles(page: Page, titles: Array<[string, string]>) {
  for (const [path, title] of titles) {
    await page.goto(path);
    await expect(page, path).toHaveTitle(`${title} · La Casona Coliving`);
  }
}

test("every public page's title is '<page> · <building name>', the 404 and sign-in included", async ({ page }) => {
  await expectTitles(page, [
    ["/", "Inicio"],
    ["/login", "Iniciar Sesión"],
    ["/reservar", "Reservar"],
    ["/consulta", "Consulta"],
    ["/visita", "Programa tu Visita"],
    ["/incidencias", "Comunicar Avería"],
    ["/reserva-consulta", "Consulta de Reserva"],
    ["/privacidad", "Política de Privacidad"],
    ["/no-existe", "Página no encontrada"],
  ]);
});

test("every admin page's title is '<page> · <building name>'", async ({ page, asAdmin }) => {
  await expectTitles(page, [
    ["/admin", "Dashboard"],
    ["/admin/cards", "Gestionar Tarjetas"],
    ["/admin/logs", "Registros de Acceso"],
  ]);
});
