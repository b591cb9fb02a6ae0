// /admin/consultations with and without JavaScript. Each test stores its own
// consultations (through the model) under a fresh tag and searches for it,
// so tests running side by side never see each other's rows.
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, expectFocusInside, test, toast } from "./fixtures";

const { createTestConsultation } = await import("../setup/fixtures");
const { getConsultationById } = await import("~/models/consultation.server");

const tag = () => randomUUID().slice(0, 8);

function row(page: Page, id: string) {
  return page.locator(`tr[data-id="${id}"]`);
}

/** Types the search; without JavaScript 'Buscar' sends it, with it the debounce does. */
async function search(page: Page, text: string, javaScriptEnabled: boolean) {
  await page.getByRole("searchbox", { name: "Buscar" }).fill(text);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Buscar" }).click();
  await expect(page).toHaveURL(new RegExp(`search=${encodeURIComponent(text)}`));
}

test.describe("list", () => {
  test("searches name, email and message (debounced with JavaScript), filters by status, shows the stats", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    const byName = await createTestConsultation({ nombre: `Rocío ${t}` });
    const byEmail = await createTestConsultation({ email: `${t}@example.org` });
    const byMessage = await createTestConsultation({ mensaje: `Busco habitación (${t})` });

    await page.goto("/admin/consultations");
    await expect(page.getByRole("heading", { name: "Gestión de Consultas", level: 1 })).toBeVisible();
    await expect(page.getByRole("searchbox", { name: "Buscar" })).toHaveAttribute("placeholder", "Nombre, email o mensaje...");
    const stats = page.getByRole("region", { name: /Estadísticas de consultas/ });
    for (const label of ["Total", "Pendientes", "Leídas", "Respondidas", "Cerradas"]) await expect(stats).toContainText(label);

    await search(page, t, javaScriptEnabled);
    await expect(page.getByTestId("consultation-row")).toHaveCount(3);
    for (const consultation of [byName, byEmail, byMessage]) await expect(row(page, consultation.id)).toBeVisible();
    await expect(page.getByRole("region", { name: "Estadísticas de las consultas encontradas" })).toContainText("3Total");
    if (javaScriptEnabled) await expect(page.getByRole("searchbox", { name: "Buscar" })).toBeFocused();

    await page.getByLabel(`Estado de la consulta de ${byName.nombre}`).selectOption({ label: "Cerrada" });
    if (!javaScriptEnabled) await row(page, byName.id).getByRole("button", { name: "Cambiar" }).click();
    await expect(toast(page, "Estado actualizado")).toContainText(`Consulta de ${byName.nombre}: Cerrada`);

    await page.getByLabel("Estado", { exact: true }).selectOption({ label: "Cerrada" });
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Buscar" }).click();
    await expect(page).toHaveURL(/status=closed/);
    await expect(page.getByTestId("consultation-row")).toHaveCount(1);
    await expect(row(page, byName.id)).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`search=${t}`));

    await search(page, `${t}-nada`, javaScriptEnabled);
    await expect(page.getByText("No hay consultas que coincidan con la búsqueda.")).toBeVisible();
  });

  test("shows date, name, mailto and tel links, a 50-character preview with 'Ver más', and visit requests with their day and hour", async ({ page, asAdmin }) => {
    const t = tag();
    const long = `Hola, ${t}: quería saber si tenéis habitaciones libres para enero y el precio mensual.`;
    const enquiry = await createTestConsultation({ nombre: `Lucía ${t}`, email: `lucia-${t}@example.com`, telefono: "+34 600 123 456", mensaje: long });
    const visit = await createTestConsultation({
      kind: "visita",
      nombre: `Tomás ${t}`,
      mensaje: "Solicitud de visita\nFecha preferida: 24/12/2026\nHora preferida: 17:00",
      visitDate: "2026-12-24",
      visitTime: "17:00",
    });
    await page.goto(`/admin/consultations?search=${t}`);
    const headers = await page.getByRole("columnheader").allTextContents();
    expect(headers).toEqual(["Fecha", "Nombre", "Email", "Teléfono", "Mensaje", "Estado", "Acciones"]);

    const enquiryRow = row(page, enquiry.id);
    await expect(enquiryRow.getByRole("link", { name: enquiry.email })).toHaveAttribute("href", `mailto:${enquiry.email}`);
    await expect(enquiryRow.getByRole("link", { name: "+34 600 123 456" })).toHaveAttribute("href", "tel:+34600123456");
    await expect(enquiryRow.getByTestId("message-preview")).toHaveText(`${Array.from(long).slice(0, 50).join("")}...`);
    await expect(enquiryRow.getByLabel(`Estado de la consulta de ${enquiry.nombre}`)).toHaveValue("pending");

    await expect(row(page, visit.id)).toContainText("Visita 24/12/2026 · 17:00");

    await enquiryRow.getByRole("link", { name: /Ver más/ }).click();
    const dialog = page.getByRole("dialog", { name: `Mensaje de ${enquiry.nombre}` });
    await expect(dialog.getByTestId("full-message")).toHaveText(long);
    await dialog.getByRole("link", { name: "Cerrar" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    // Reading the message alone leaves it pending.
    expect((await getConsultationById(enquiry.id))?.status).toBe("pending");
  });
});

test.describe("details", () => {
  test("opening a pending consultation marks it read; shows everything with the IP address; notes and status save", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    const consultation = await createTestConsultation({ nombre: `Begoña ${t}`, ipAddress: "203.0.113.45", mensaje: `Pregunta larga (${t})\ncon dos líneas` });
    await page.goto(`/admin/consultations?search=${t}`);
    await row(page, consultation.id).getByRole("button", { name: `Detalles de la consulta de ${consultation.nombre}` }).click();
    const dialog = page.getByRole("dialog", { name: `Consulta de ${consultation.nombre}` });
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await expect(dialog).toContainText(consultation.email);
    await expect(dialog).toContainText(consultation.telefono);
    await expect(dialog).toContainText("203.0.113.45");
    await expect(dialog).toContainText("con dos líneas");
    await expect(dialog.getByRole("combobox", { name: "Estado" })).toHaveValue("read");
    await expect(row(page, consultation.id).getByLabel(`Estado de la consulta de ${consultation.nombre}`)).toHaveValue("read");
    expect((await getConsultationById(consultation.id))?.status).toBe("read");

    const notes = dialog.getByRole("textbox", { name: "Notas" });
    await notes.fill("Interesada en enero");
    if (javaScriptEnabled) {
      await expect(dialog.getByRole("button", { name: "Guardar Notas" })).toHaveCount(0);
      await notes.press("Tab");
    } else {
      await dialog.getByRole("button", { name: "Guardar Notas" }).click();
    }
    await expect(toast(page, "Notas actualizadas")).toContainText(consultation.nombre);
    await expect.poll(async () => (await getConsultationById(consultation.id))?.adminNotes).toBe("Interesada en enero");

    const detail = page.getByRole("dialog", { name: `Consulta de ${consultation.nombre}` });
    await detail.getByRole("combobox", { name: "Estado" }).selectOption({ label: "Respondida" });
    if (!javaScriptEnabled) await detail.getByRole("button", { name: "Cambiar" }).click();
    await expect(toast(page, "Estado actualizado")).toContainText("Respondida");
    await expect.poll(async () => (await getConsultationById(consultation.id))?.status).toBe("replied");
    await expect(page.getByRole("dialog", { name: `Consulta de ${consultation.nombre}` }).getByRole("textbox", { name: "Notas" })).toHaveValue("Interesada en enero");
  });

  test("notes typed just before 'Cerrar': saved on blur with JavaScript (the details stay closed), left unsaved without it", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    const consultation = await createTestConsultation({ nombre: `Nerea ${t}` });
    await page.goto(`/admin/consultations?search=${t}`);
    await row(page, consultation.id).getByRole("button", { name: /^Detalles/ }).click();
    const dialog = page.getByRole("dialog", { name: `Consulta de ${consultation.nombre}` });
    await dialog.getByRole("textbox", { name: "Notas" }).fill("Llamar el lunes");
    await dialog.getByRole("link", { name: "Cerrar" }).click();
    if (javaScriptEnabled) await expect(toast(page, "Notas actualizadas")).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(new RegExp(`/admin/consultations\\?search=${t}$`));
    expect((await getConsultationById(consultation.id))?.adminNotes).toBe(javaScriptEnabled ? "Llamar el lunes" : null);
  });
});

test.describe("delete", () => {
  test("deletes after a confirmation naming the sender", async ({ page, asAdmin, javaScriptEnabled }) => {
    const t = tag();
    const consultation = await createTestConsultation({ nombre: `Xuan ${t}` });
    await page.goto(`/admin/consultations?search=${t}`);
    await row(page, consultation.id).getByRole("link", { name: `Eliminar la consulta de ${consultation.nombre}` }).click();
    const dialog = page.getByRole("dialog", { name: "Eliminar consulta" });
    await expect(dialog).toContainText(`¿Estás seguro de que quieres eliminar la consulta de ${consultation.nombre}?`);
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await dialog.getByRole("button", { name: "Eliminar" }).click();
    await expect(toast(page, "Consulta eliminada")).toContainText(consultation.nombre);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(row(page, consultation.id)).toHaveCount(0);
    expect(await getConsultationById(consultation.id)).toBeUndefined();
  });

  test("pages by 20 only past one page", async ({ page, asAdmin }) => {
    const t = tag();
    for (let i = 0; i < 21; i++) await createTestConsultation({ nombre: `Serie ${t} ${i}` });
    await page.goto(`/admin/consultations?search=${t}`);
    await expect(page.getByTestId("consultation-row")).toHaveCount(20);
    const pagination = page.getByRole("navigation", { name: "Paginación" });
    await pagination.getByRole("link", { name: "Siguiente" }).click();
    await expect(pagination).toContainText("Página 2 de 2");
    await expect(page.getByTestId("consultation-row")).toHaveCount(1);
    await expect(page.getByTestId("consultation-row")).toContainText(`Serie ${t} 0`);
  });
});

test("the privacy page says how long consultations and closed fault reports are kept", async ({ page }) => {
  await page.goto("/privacidad");
  await expect(page.getByTestId("retention")).toContainText("se borran automáticamente a los 12 meses");
  await expect(page.getByTestId("retention")).toContainText("Avisos de averías: se borran automáticamente 12 meses después de cerrarlos");
  // The audit trail keeps usernames and addresses: the page says so, and for how long.
  await expect(page.getByText("Registro de cambios: cada cambio hecho en el panel")).toBeVisible();
  await expect(page.getByTestId("access-retention")).toContainText("Registro de cambios: se borra automáticamente a los 24 meses.");
});
