// /portal with and without JavaScript: every modal opens, submits and
// closes as URL state, with the SPEC's toasts. Each test signs in its own
// resident and books facilities of its own, so tests running side by side
// never meet.
import type { Page } from "@playwright/test";
import { expect, signIn, test } from "./fixtures";

const { createUser } = await import("~/models/user.server");
const { insertNotification } = await import("~/models/notification.server");
const { insertBuildingReading } = await import("~/models/building-reading.server");
const { getDb } = await import("~/utils/db.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");
const { createTestFacility, TINY_PNG } = await import("../setup/fixtures");

const unique = () => Math.random().toString(36).slice(2, 8);

async function signInResident(page: Page, fields: { firstName?: string; unitNumber?: string } = {}) {
  const username = `residente-${unique()}`;
  const resident = await createUser({
    username,
    email: `${username}@example.com`,
    password: "clave-segura-1",
    firstName: fields.firstName ?? "Lucía",
    unitNumber: fields.unitNumber ?? "2B",
  });
  await signIn(page.context(), resident);
  return resident;
}

function toast(page: Page, text: string | RegExp) {
  return page.getByTestId("toast").filter({ hasText: text }).first();
}

/** DD/MM/YYYY of a day `days` from today in the building. */
function shownDay(days: number) {
  return addDays(todayInMadrid(), days).split("-").reverse().join("/");
}

async function openBookingForm(page: Page) {
  await page.getByRole("main").getByRole("link", { name: "Reservar", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Nueva Reserva" });
  await expect(dialog).toBeVisible();
  return dialog;
}

async function fillBooking(page: Page, facilityName: string, days: number, time: string, duration: string) {
  const dialog = await openBookingForm(page);
  await dialog.getByLabel("Tipo de instalación").selectOption({ label: "Gimnasio" });
  await dialog.getByLabel("Instalación", { exact: true }).selectOption({ label: facilityName });
  await dialog.getByLabel("Fecha").fill(addDays(todayInMadrid(), days));
  await dialog.getByLabel("Hora de inicio").fill(time);
  await dialog.getByLabel("Duración").selectOption({ label: duration });
  return dialog;
}

test("shows the welcome with first name, unit and building, the four cards, and the unread count on 'Mi Portal'", async ({ page }) => {
  const resident = await signInResident(page, { firstName: "Inés", unitNumber: "5A" });
  await insertNotification(resident.id, { type: "info", title: "Bienvenida", message: "Ya puedes usar el portal" });
  await page.goto("/portal");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bienvenido, Inés");
  await expect(page.getByTestId("portal-unit")).toHaveText("Unidad 5A · La Casona Coliving");
  for (const title of ["Mis Reservas", "Mis Incidencias", "Notificaciones", "Información del Edificio"]) {
    await expect(page.getByRole("heading", { level: 2, name: new RegExp(`^${title}`) })).toBeVisible();
  }
  await expect(page.getByRole("link", { name: "Mi Portal, 1 notificación sin leer" })).toBeVisible();
  await expect(page.getByTestId("unread-count")).toHaveText("1");
});

test("books a facility, refuses a clash naming the slot, and cancels after confirming", async ({ page, javaScriptEnabled }) => {
  await signInResident(page);
  const facility = await createTestFacility("gym", `Sala de pesas ${unique()}`);
  await page.goto("/portal");

  const dialog = await openBookingForm(page);
  const facilitySelect = dialog.getByLabel("Instalación", { exact: true });
  if (javaScriptEnabled) {
    // The facility list waits for the type, then offers only that type's facilities.
    await expect(facilitySelect).toBeDisabled();
    await dialog.getByLabel("Tipo de instalación").selectOption({ label: "Piscina" });
    await expect(facilitySelect).toBeEnabled();
    await expect(facilitySelect.locator("option", { hasText: facility.name })).toHaveCount(0);
  } else {
    // Without JavaScript one list holds every facility, grouped by type.
    await expect(facilitySelect.locator(`optgroup[label="Gimnasio"] option`, { hasText: facility.name })).toHaveCount(1);
  }
  await page.getByRole("link", { name: "Cerrar" }).click();
  await expect(dialog).toBeHidden();

  const form = await fillBooking(page, facility.name, 10, "10:00", "2 horas");
  await form.getByLabel("Notas (opcional)").fill("Entreno con amigos");
  await form.getByRole("button", { name: "Reservar" }).click();
  await expect(toast(page, "Reserva Creada")).toBeVisible();
  await expect(page).toHaveURL(/\/portal$/);
  const booking = page.getByTestId("booking").filter({ hasText: facility.name });
  await expect(booking).toContainText(`${shownDay(10)}, 10:00–12:00`);
  await expect(booking).toContainText("Confirmada");

  const clash = await fillBooking(page, facility.name, 10, "11:00", "1 hora");
  await clash.getByRole("button", { name: "Reservar" }).click();
  const message = `${facility.name} ya está reservada de ${shownDay(10)}, 10:00–12:00. Elige otro horario.`;
  await expect(toast(page, "No se pudo crear la reserva")).toContainText(message);
  await expect(page.getByRole("dialog", { name: "Nueva Reserva" }).getByRole("alert")).toContainText(message);
  await page.getByRole("link", { name: "Cerrar" }).click();

  await booking.getByRole("link", { name: /^Cancelar la reserva/ }).click();
  const confirm = page.getByRole("dialog", { name: "Cancelar reserva" });
  await expect(confirm).toContainText("¿Seguro que quieres cancelar esta reserva?");
  await confirm.getByRole("button", { name: "Sí, cancelar reserva" }).click();
  await expect(toast(page, "Reserva Cancelada")).toBeVisible();
  await expect(booking).toContainText("Cancelada");
  await expect(booking.getByRole("link", { name: /^Cancelar/ })).toHaveCount(0);
});

test("refuses a booking form with missing fields, in Spanish", async ({ page }) => {
  await signInResident(page);
  await page.goto("/portal?modal=reservar");
  const dialog = page.getByRole("dialog", { name: "Nueva Reserva" });
  await dialog.getByRole("button", { name: "Reservar" }).click();
  await expect(dialog.getByText("El tipo de instalación es requerido")).toBeVisible();
  await expect(dialog.getByText("La fecha es requerida")).toBeVisible();
  await expect(dialog.getByText("La hora de inicio es requerida")).toBeVisible();
});

test("reports an incident with a photo, edits it and cancels it", async ({ page }) => {
  await signInResident(page);
  const title = `Grifo ${unique()}`;
  await page.goto("/portal");
  await page.getByRole("main").getByRole("link", { name: "Reportar", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Reportar Incidencia" });
  await dialog.getByLabel("Título").fill(title);
  await dialog.getByLabel("Categoría").selectOption({ label: "Fontanería" });
  await expect(dialog.getByLabel("Prioridad")).toHaveValue("medium");
  await dialog.getByLabel("Ubicación").fill("Baño");
  await dialog.getByLabel("Descripción").fill("Gotea toda la noche");
  await dialog.getByLabel("Fotos (opcional)").setInputFiles([{ name: "grifo.png", mimeType: "image/png", buffer: TINY_PNG }]);
  await dialog.getByRole("button", { name: "Enviar Reporte" }).click();
  await expect(toast(page, "Incidencia Reportada")).toBeVisible();

  const incident = page.getByTestId("incident").filter({ hasText: title });
  await expect(incident).toContainText("Abierta");
  await expect(incident).toContainText("Fontanería · Baño · Prioridad media");
  const thumbnail = incident.getByRole("img", { name: `Foto 1 de «${title}»` });
  await expect(thumbnail).toBeVisible();
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);

  await incident.getByRole("link", { name: `Editar «${title}»` }).click();
  const edit = page.getByRole("dialog", { name: "Editar Incidencia" });
  await expect(edit.getByLabel("Título")).toHaveValue(title);
  await edit.getByLabel("Título").fill(`${title} (urgente)`);
  await edit.getByLabel("Prioridad").selectOption({ label: "Crítica" });
  await edit.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(toast(page, "Incidencia Actualizada")).toBeVisible();
  const edited = page.getByTestId("incident").filter({ hasText: `${title} (urgente)` });
  await expect(edited).toContainText("Prioridad crítica");

  await edited.getByRole("link", { name: `Cancelar «${title} (urgente)»` }).click();
  const confirm = page.getByRole("dialog", { name: "Cancelar incidencia" });
  await confirm.getByRole("button", { name: "Sí, cancelar incidencia" }).click();
  await expect(toast(page, "Incidencia Cancelada")).toBeVisible();
  await expect(edited).toContainText("Cancelada");
  await expect(edited.getByRole("link", { name: /^Editar/ })).toHaveCount(0);
});

test("refuses a text file named .png, keeping what was typed, and stores nothing", async ({ page }) => {
  const resident = await signInResident(page);
  const title = `Foto falsa ${unique()}`;
  await page.goto("/portal?modal=reportar");
  const dialog = page.getByRole("dialog", { name: "Reportar Incidencia" });
  await dialog.getByLabel("Título").fill(title);
  await dialog.getByLabel("Categoría").selectOption({ label: "Otro" });
  await dialog.getByLabel("Ubicación").fill("Cocina");
  await dialog.getByLabel("Descripción").fill("Adjunto una foto");
  await dialog.getByLabel("Fotos (opcional)").setInputFiles([{ name: "notas.png", mimeType: "image/png", buffer: Buffer.from("esto es texto, no una imagen") }]);
  await dialog.getByRole("button", { name: "Enviar Reporte" }).click();
  await expect(toast(page, "No se pudo enviar el reporte")).toContainText("notas.png: Solo se admiten fotos JPEG, PNG o WebP");
  await expect(dialog.getByText("notas.png: Solo se admiten fotos JPEG, PNG o WebP")).toBeVisible();
  await expect(dialog.getByLabel("Título")).toHaveValue(title);
  const stored = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM incidents WHERE reported_by_id = ?", args: [resident.id] });
  expect(Number(stored.rows[0]!.n)).toBe(0);
});

test("lists notifications newest first with their age, and marks them all read", async ({ page }) => {
  const resident = await signInResident(page);
  await insertNotification(resident.id, { type: "card", title: "Tarjeta asignada", message: "Ya tienes tarjeta" }, new Date(Date.now() - 3 * 3600_000 - 60_000));
  await insertNotification(resident.id, { type: "incident", title: "Incidencia actualizada", message: "Tu incidencia está en progreso" });
  await page.goto("/portal");
  const items = page.getByTestId("notification");
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toContainText("Incidencia actualizada");
  await expect(items.nth(0)).toContainText("Hace unos minutos");
  await expect(items.nth(1)).toContainText("Hace 3 horas");
  await expect(page.getByTestId("notifications-unread")).toHaveText("2 sin leer");
  await page.getByRole("button", { name: "Marcar todas como leídas" }).click();
  await expect(toast(page, "Notificaciones")).toBeVisible();
  await expect(page.getByTestId("notifications-unread")).toHaveCount(0);
  await expect(page.getByTestId("unread-count")).toHaveCount(0);
  await expect(items.nth(0)).toHaveAttribute("data-read", "true");
});

test("shows the building sensor's latest reading with its time and age, not stale", async ({ page }) => {
  await signInResident(page);
  // Both browser projects insert the same values, so whichever is newest reads the same.
  await insertBuildingReading({ temperature: 23.5, humidity: 52, wifiStatus: "Conectado", recordedAt: new Date(Date.now() - 60_000) });
  await page.goto("/portal");
  await expect(page.getByTestId("temperature")).toHaveText("23,5 °C");
  await expect(page.getByTestId("humidity")).toHaveText("52 %");
  await expect(page.getByTestId("wifi")).toHaveText("Conectado");
  await expect(page.getByTestId("building-source")).toContainText("Lectura del sensor del");
  // Issue 40, point 16: its age (a minute or less: the page's clock is floored to the minute), and fresh.
  await expect(page.getByTestId("building-age")).toHaveText(/^hace (menos de un minuto|1 minuto|2 minutos)$/);
  await expect(page.getByTestId("building-stale")).toHaveCount(0);
});

test("edits the profile and changes the password with the current one", async ({ page }) => {
  await signInResident(page, { firstName: "Lucía", unitNumber: "7C" });
  await page.goto("/portal");
  await page.getByRole("link", { name: "Mi Perfil" }).click();
  const profile = page.getByRole("dialog", { name: "Mi Perfil" });
  await expect(profile).toContainText("7C");
  await profile.getByLabel("Nombre", { exact: true }).fill("Lucía María");
  await profile.getByLabel("Teléfono (opcional)").fill("+34 600 123 456");
  await profile.getByRole("button", { name: "Guardar Perfil" }).click();
  await expect(toast(page, "Perfil actualizado")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bienvenido, Lucía María");

  await page.goto("/portal?modal=perfil");
  await page.getByRole("link", { name: "Cambiar contraseña" }).click();
  const password = page.getByRole("dialog", { name: "Cambiar contraseña" });
  await password.getByLabel("Contraseña actual").fill("no-es-la-mia");
  await password.getByLabel("Nueva contraseña", { exact: true }).fill("otra-clave-segura");
  await password.getByLabel("Repite la nueva contraseña").fill("otra-clave-segura");
  await password.getByRole("button", { name: "Cambiar contraseña" }).click();
  await expect(toast(page, "No se pudo cambiar la contraseña")).toContainText("La contraseña actual no es correcta");
  await expect(password.getByText("La contraseña actual no es correcta")).toBeVisible();
  await password.getByLabel("Contraseña actual").fill("clave-segura-1");
  await password.getByLabel("Nueva contraseña", { exact: true }).fill("otra-clave-segura");
  await password.getByLabel("Repite la nueva contraseña").fill("otra-clave-segura");
  await password.getByRole("button", { name: "Cambiar contraseña" }).click();
  await expect(toast(page, "Contraseña actualizada")).toBeVisible();
});

test("modals are dialogs that close by link, and with JavaScript keep the focus inside and close with Escape", async ({ page, javaScriptEnabled }) => {
  await signInResident(page);
  await page.goto("/portal");
  await page.getByRole("main").getByRole("link", { name: "Reportar", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Reportar Incidencia" });
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/modal=reportar/);
  if (javaScriptEnabled) {
    await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    for (let i = 0; i < 12; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    await page.keyboard.press("Escape");
  } else {
    await dialog.getByRole("link", { name: "Cerrar" }).click();
  }
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/portal$/);
});
