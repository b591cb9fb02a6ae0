// /admin/reservations with and without JavaScript. Each test books its own
// reservations (through the model) for a fresh guest and finds them by their
// code; the guest's mail is read from the e2e server's outbox.
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { dismissDialog, expect, expectFocusInside, outboxMails, test, toast } from "./fixtures";

const { createTestReservation } = await import("../setup/fixtures");
const { getReservationById } = await import("~/models/reservation.server");
const { cancelGuestReservation } = await import("~/services/visitor.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");
const { getDb } = await import("~/utils/db.server");

const today = todayInMadrid();
const slash = (day: string) => day.split("-").reverse().join("/");

async function reservation(fields: Parameters<typeof createTestReservation>[0] = {}) {
  return createTestReservation({ guestName: `Huésped ${randomUUID().slice(0, 6)}`, ...fields });
}

function row(page: Page, code: string) {
  return page.locator(`tr[data-code="${code}"]`);
}

test.describe("list", () => {
  test("shows code, guest, type, dates with days, contact and status; stats and the status filter", async ({ page, asAdmin, javaScriptEnabled }) => {
    const room = await reservation({ reservationType: "habitacion", roomType: "suite", startDate: addDays(today, 20), endDate: addDays(today, 23), contactPreference: "both", guestPhone: "+34 611 22 33 44" });
    const hall = await reservation({ reservationType: "sala", roomType: null, startDate: addDays(today, 30), endDate: addDays(today, 31) });

    await page.goto("/admin/reservations");
    await expect(page.getByRole("heading", { name: "Gestión de Reservas Anónimas", level: 1 })).toBeVisible();
    const stats = page.getByRole("region", { name: "Estadísticas de reservas" });
    for (const label of ["Total Reservas", "Pendientes", "Confirmadas", "Canceladas"]) await expect(stats).toContainText(label);
    const headers = await page.getByRole("columnheader").allTextContents();
    expect(headers).toEqual(["Código", "Huésped", "Tipo", "Fechas", "Contacto", "Estado", "Acciones"]);

    const roomRow = row(page, room.reservationCode);
    await expect(roomRow).toContainText(room.guestName);
    await expect(roomRow.getByRole("link", { name: room.guestEmail })).toHaveAttribute("href", `mailto:${room.guestEmail}`);
    await expect(roomRow).toContainText("Habitación · Suite");
    await expect(roomRow).toContainText(`Entrada: ${slash(addDays(today, 20))}`);
    await expect(roomRow).toContainText(`Salida: ${slash(addDays(today, 23))}`);
    await expect(roomRow).toContainText("3 días");
    await expect(roomRow).toContainText("+34 611 22 33 44");
    await expect(roomRow).toContainText("Prefiere: Ambos");
    await expect(roomRow).toContainText("Pendiente");
    await expect(row(page, hall.reservationCode)).toContainText("Sala");
    await expect(row(page, hall.reservationCode)).toContainText("1 día");

    // A pending one offers confirm and cancel.
    await expect(roomRow.getByRole("button", { name: `Confirmar reserva ${room.reservationCode}` })).toBeVisible();
    await expect(roomRow.getByRole("link", { name: `Cancelar reserva ${room.reservationCode}` })).toBeVisible();

    await getDb().$client.execute({ sql: "UPDATE anonymous_reservations SET status = 'cancelled' WHERE id = ?", args: [hall.id] });
    await page.getByLabel("Estado", { exact: true }).selectOption({ label: "Cancelada" });
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Filtrar" }).click();
    await expect(page).toHaveURL(/status=cancelled/);
    await expect(row(page, hall.reservationCode)).toContainText("Cancelada");
    await expect(row(page, room.reservationCode)).toHaveCount(0);
    await expect(row(page, hall.reservationCode).getByRole("button", { name: /Confirmar/ })).toHaveCount(0);
    await expect(row(page, hall.reservationCode).getByRole("link", { name: /Cancelar/ })).toHaveCount(0);
  });

  test("a stay that is over shows as completed, without actions", async ({ page, asAdmin }) => {
    const past = await reservation({ startDate: addDays(today, -4), endDate: addDays(today, -1) });
    await page.goto("/admin/reservations?status=completed");
    await expect(row(page, past.reservationCode)).toContainText("Completada");
    await expect(row(page, past.reservationCode).getByRole("button")).toHaveCount(0);
    await expect(row(page, past.reservationCode).getByRole("link", { name: /Cancelar/ })).toHaveCount(0);
  });

  test("'Actualizar' shows what changed meanwhile", async ({ page, asAdmin }) => {
    const booked = await reservation();
    await page.goto("/admin/reservations?status=pending");
    await expect(row(page, booked.reservationCode)).toContainText("Pendiente");
    await cancelGuestReservation(booked.reservationCode, booked.guestEmail, { ip: "198.51.100.9" });
    await page.getByRole("link", { name: "Actualizar" }).click();
    await expect(row(page, booked.reservationCode)).toHaveCount(0);
    await expect(page).toHaveURL(/status=pending$/);
  });
});

test.describe("confirm and cancel", () => {
  test("confirms a pending reservation and mails the guest", async ({ page, asAdmin }) => {
    const booked = await reservation();
    await page.goto("/admin/reservations");
    await row(page, booked.reservationCode).getByRole("button", { name: `Confirmar reserva ${booked.reservationCode}` }).click();
    await expect(toast(page, "Estado actualizado correctamente")).toContainText(`Reserva ${booked.reservationCode} confirmada`);
    await expect(row(page, booked.reservationCode)).toContainText("Confirmada");
    await expect(row(page, booked.reservationCode).getByRole("button", { name: /Confirmar/ })).toHaveCount(0);
    await expect(row(page, booked.reservationCode).getByRole("link", { name: /Cancelar/ })).toBeVisible();
    await outboxMails(`Reserva confirmada: ${booked.reservationCode}`);
    expect((await getReservationById(booked.id))?.status).toBe("confirmed");
  });

  test("cancels after the confirmation step and mails the guest; 'Cerrar' keeps it", async ({ page, asAdmin, javaScriptEnabled }) => {
    const booked = await reservation();
    await page.goto("/admin/reservations");
    await row(page, booked.reservationCode).getByRole("link", { name: `Cancelar reserva ${booked.reservationCode}` }).click();
    const dialog = page.getByRole("dialog", { name: "Cancelar reserva" });
    await expect(dialog).toContainText(`¿Seguro que quieres cancelar la reserva ${booked.reservationCode} de ${booked.guestName}?`);
    await dismissDialog(page, dialog, javaScriptEnabled);
    expect((await getReservationById(booked.id))?.status).toBe("pending");

    await row(page, booked.reservationCode).getByRole("link", { name: `Cancelar reserva ${booked.reservationCode}` }).click();
    await page.getByRole("dialog", { name: "Cancelar reserva" }).getByRole("button", { name: "Sí, cancelar reserva" }).click();
    await expect(toast(page, "Estado actualizado correctamente")).toContainText(`Reserva ${booked.reservationCode} cancelada`);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(row(page, booked.reservationCode)).toContainText("Cancelada");
    await outboxMails(`Reserva cancelada: ${booked.reservationCode}`);
  });

  test("a confirmation after the guest cancelled is refused with the server's message", async ({ page, asAdmin }) => {
    const booked = await reservation();
    await page.goto("/admin/reservations");
    await expect(row(page, booked.reservationCode)).toContainText("Pendiente");
    await cancelGuestReservation(booked.reservationCode, booked.guestEmail, { ip: "198.51.100.10" });
    await row(page, booked.reservationCode).getByRole("button", { name: `Confirmar reserva ${booked.reservationCode}` }).click();
    await expect(toast(page, "Error al actualizar el estado")).toContainText("Solo se puede confirmar una reserva pendiente");
    await expect(page.getByRole("alert").filter({ hasText: "Solo se puede confirmar una reserva pendiente" })).toBeVisible();
    await expect(row(page, booked.reservationCode)).toContainText("Cancelada");
    expect((await getReservationById(booked.id))?.status).toBe("cancelled");
  });
});

test.describe("details", () => {
  test("shows guest, reservation, special requests, notes and history; saves the notes; confirms from there", async ({ page, asAdmin, javaScriptEnabled }) => {
    const booked = await reservation({ specialRequests: "Cuna, por favor", contactPreference: "phone", roomType: "individual" });
    await page.goto("/admin/reservations");
    await row(page, booked.reservationCode).getByRole("link", { name: `Ver reserva ${booked.reservationCode}` }).click();
    const dialog = page.getByRole("dialog", { name: `Reserva ${booked.reservationCode}` });
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await expect(dialog).toContainText(booked.guestName);
    await expect(dialog).toContainText(booked.guestEmail);
    await expect(dialog).toContainText("Teléfono");
    await expect(dialog).toContainText("Habitación (Individual)");
    await expect(dialog).toContainText("Cuna, por favor");
    await expect(dialog).toContainText("Creada");
    await expect(dialog).not.toContainText("Confirmada");
    await expect(dialog.getByTestId("reservation-status")).toHaveText("Pendiente");

    await dialog.getByRole("textbox", { name: /^Notas/ }).fill("  Llega de noche  ");
    await dialog.getByRole("button", { name: "Guardar Notas" }).click();
    await expect(toast(page, "Notas actualizadas")).toContainText(booked.reservationCode);
    await expect(page.getByRole("dialog", { name: `Reserva ${booked.reservationCode}` }).getByRole("textbox", { name: /^Notas/ })).toHaveValue("Llega de noche");
    expect((await getReservationById(booked.id))?.adminNotes).toBe("Llega de noche");

    await page.getByRole("dialog", { name: `Reserva ${booked.reservationCode}` }).getByRole("button", { name: `Confirmar reserva ${booked.reservationCode}` }).click();
    await expect(toast(page, "Estado actualizado correctamente")).toBeVisible();
    const reopened = page.getByRole("dialog", { name: `Reserva ${booked.reservationCode}` });
    await expect(reopened.getByTestId("reservation-status")).toHaveText("Confirmada");
    await expect(reopened.locator("dt", { hasText: "Confirmada" })).toBeVisible();
    await expect(reopened.getByRole("link", { name: "Cancelar reserva" })).toBeVisible();

    await reopened.getByRole("link", { name: "Cerrar" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });
});
