// Issue 25's page-side rules, with and without JavaScript: the per-resident
// quotas said in the booking form and answered in Spanish, the profile form
// that says what to fix in a stored email, the plain IPv4 address in a
// consultation's details, and 'Aprobar' only where it changes something.
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, signIn, test, toast } from "./fixtures";

const { createUser } = await import("~/models/user.server");
const { registerCard } = await import("~/models/card.server");
const { setCardPermission } = await import("~/services/cards.server");
const { createResidentBooking } = await import("~/services/facility-bookings.server");
const { reportResidentIncident } = await import("~/services/resident-incidents.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");
const { createTestConsultation, createTestDoor, createTestFacility, insertLogs } = await import("../setup/fixtures");

const unique = () => randomBytes(4).toString("hex");

async function signInResident(page: Page, email?: string) {
  const username = `residente-${unique()}`;
  const resident = await createUser({ username, email: email ?? `${username}@example.com`, password: "clave-segura-1", firstName: "Nora" });
  await signIn(page.context(), resident);
  return resident;
}

test("the booking form says the limit of active bookings, and one past it is refused in Spanish", async ({ page }) => {
  const resident = await signInResident(page);
  const gym = await createTestFacility("gym", `Gimnasio ${unique()}`);
  for (const days of [2, 3, 4]) {
    const booked = await createResidentBooking(resident, { facilityType: "gym", facilityId: gym.id, date: addDays(todayInMadrid(), days), startTime: "09:00", duration: 1 });
    expect(booked.ok).toBe(true);
  }
  await page.goto("/portal?modal=reservar");
  const dialog = page.getByRole("dialog", { name: "Nueva Reserva" });
  await expect(dialog.getByTestId("booking-limit")).toHaveText("Puedes tener como máximo 3 reservas sin terminar de cada tipo de instalación.");
  await dialog.getByLabel("Tipo de instalación").selectOption({ label: "Gimnasio" });
  await dialog.getByLabel("Instalación", { exact: true }).selectOption({ label: gym.name });
  await dialog.getByLabel("Fecha").fill(addDays(todayInMadrid(), 5));
  await dialog.getByLabel("Hora de inicio").fill("09:00");
  await dialog.getByRole("button", { name: "Reservar" }).click();
  const message = "Ya tienes 3 reservas activas de Gimnasio, el máximo por residente. Cancela una o espera a que termine para reservar otra.";
  await expect(toast(page, "No se pudo crear la reserva")).toContainText(message);
  await expect(page.getByRole("dialog", { name: "Nueva Reserva" }).getByText(message)).toBeVisible();
});

test("a report past the day's limit of incidents is refused in Spanish", async ({ page }) => {
  const resident = await signInResident(page);
  for (let i = 0; i < 5; i++) {
    const reported = await reportResidentIncident(resident, { title: `Aviso ${i}`, category: "other", location: "Salón", description: "Algo falla", priority: "low" });
    expect(reported.ok).toBe(true);
  }
  await page.goto("/portal?modal=reportar");
  const dialog = page.getByRole("dialog", { name: "Reportar Incidencia" });
  await dialog.getByLabel("Título").fill("Uno más");
  await dialog.getByLabel("Categoría").selectOption({ label: "Otro" });
  await dialog.getByLabel("Ubicación").fill("Cocina");
  await dialog.getByLabel("Descripción").fill("Otra cosa");
  await dialog.getByRole("button", { name: "Enviar Reporte" }).click();
  const message = "Ya has reportado 5 incidencias hoy, el máximo por residente. Podrás reportar más mañana; si es urgente, avisa a la administración.";
  await expect(toast(page, "No se pudo enviar el reporte")).toContainText(message);
});

test("the profile form says what to fix in a stored email the rule refuses, and saves once it is fixed", async ({ page }) => {
  const stored = `admin-${unique()}@localhost`;
  await signInResident(page, stored);
  await page.goto("/portal?modal=perfil");
  const dialog = page.getByRole("dialog", { name: "Mi Perfil" });
  await expect(dialog.getByText(`Tu email actual (${stored}) no es válido: escribe una dirección completa, como nombre@dominio.es.`)).toBeVisible();
  const fixed = `gestion-${unique()}@lacasona.example`;
  await dialog.getByLabel("Email").fill(fixed);
  await dialog.getByRole("button", { name: "Guardar Perfil" }).click();
  await expect(toast(page, "Perfil actualizado")).toBeVisible();
  await page.goto("/portal?modal=perfil");
  await expect(page.getByRole("dialog", { name: "Mi Perfil" }).getByText("no es válido")).toHaveCount(0);
});

test("a consultation's details show its IPv4 address in plain form", async ({ page, asAdmin }) => {
  const tag = unique();
  const consultation = await createTestConsultation({ nombre: `Iria ${tag}`, ipAddress: "::ffff:127.0.0.1" });
  await page.goto(`/admin/consultations?modal=detail&consultation=${consultation.id}`);
  const dialog = page.getByRole("dialog", { name: `Consulta de ${consultation.nombre}` });
  await expect(dialog.getByText("127.0.0.1", { exact: true })).toBeVisible();
  await expect(dialog).not.toContainText("::ffff:");
});

test("a denied row offers 'Aprobar' only when approving changes something", async ({ page, asAdmin }) => {
  const door = await createTestDoor({ code: `e2e-rules-${unique()}`, name: `Patio ${unique()}` });
  const active = await registerCard({ cardNumber: randomBytes(4).toString("hex").toUpperCase(), status: "active" });
  const granted = await setCardPermission(active.id, door.id, true);
  expect(granted.ok).toBe(true);
  const pending = await registerCard({ cardNumber: randomBytes(4).toString("hex").toUpperCase(), status: "pending" });
  const now = Date.now();
  await insertLogs([
    { at: now - 60_000, cardNumber: active.cardNumber, cardId: active.id, door, granted: false, reason: "door_maintenance" },
    { at: now - 30_000, cardNumber: pending.cardNumber, cardId: pending.id, door, granted: false, reason: "card_pending" },
  ]);
  await page.goto(`/admin/logs?doorId=${door.id}`);
  const row = (cardNumber: string) => page.locator(`[data-testid="log-row"][data-card-number="${cardNumber}"]`);
  await expect(row(active.cardNumber)).toContainText("Denegado");
  // 'Aprobar' opens the cards screen's confirmation (a link, issue 40), never for a card already active.
  await expect(row(active.cardNumber).getByRole("link", { name: /Aprobar/ })).toHaveCount(0);
  await expect(row(active.cardNumber).getByRole("button", { name: /Aprobar/ })).toHaveCount(0);
  await expect(row(pending.cardNumber).getByRole("link", { name: `Aprobar tarjeta ${pending.cardNumber} en ${door.name}` })).toBeVisible();
});
