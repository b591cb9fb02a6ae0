// Issue 40, point 5, in the browser with and without JavaScript: a booking
// holds its room only once the guest follows the first mail's link (the
// receipt says so), and past the cap of open pending bookings per email the
// form is refused with the 409's message. The rules themselves are tested in
// tests/integration/pending-holds.test.ts.
import type { Page } from "@playwright/test";
import { expect, mimePart, outboxMails, test, toast } from "./fixtures";

const { createTestReservation, unique } = await import("../setup/fixtures");
const { getReservationByCode } = await import("~/models/reservation.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");

const today = todayInMadrid();
/** Days of this spec's own, per project. */
const ownDay = (javaScriptEnabled: boolean, offset: number) => addDays(today, (javaScriptEnabled ? 20 : 40) + offset);

async function fillBooking(page: Page, { startDate, endDate, email }: { startDate: string; endDate: string; email: string }) {
  await page.goto("/reservar");
  await page.getByLabel("Fecha de entrada").fill(startDate);
  await page.getByLabel("Fecha de salida").fill(endDate);
  await page.getByLabel("Tipo de habitación").selectOption("individual");
  await page.getByLabel("Nombre completo").fill("Lucía Pendiente");
  await page.getByRole("textbox", { name: "Email" }).fill(email);
  await page.getByRole("textbox", { name: "Teléfono" }).fill("600 222 333");
}

test("a booking holds its room once the guest confirms their email from the first mail", async ({ page, javaScriptEnabled }) => {
  const email = `lucia-${unique()}@example.com`;
  await fillBooking(page, { startDate: ownDay(javaScriptEnabled, 0), endDate: ownDay(javaScriptEnabled, 2), email });
  await page.getByRole("button", { name: "Reservar" }).click();
  const dialog = page.getByRole("dialog", { name: "¡Reserva creada!" });
  await expect(dialog.getByTestId("receipt-hold")).toContainText("Confirma tu email con el enlace que te hemos enviado antes del");
  const code = (await dialog.getByTestId("reservation-code").textContent())!.trim();
  expect(await getReservationByCode(code)).toMatchObject({ status: "pending", heldSince: null });

  const [mail] = await outboxMails(`Confirma tu email: reserva ${code}`);
  const link = /https?:\/\/\S*\/reserva-confirmar\?\S+/.exec(mimePart(mail!, "text/plain") ?? "")![0];
  await page.goto(link);
  await page.getByRole("button", { name: "Confirmar mi email" }).click();
  await expect(toast(page, "Email confirmado")).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/reserva-consulta\\?codigo=${code}`));
  expect((await getReservationByCode(code))!.heldSince).toBeInstanceOf(Date);
});

test("past the open pending bookings of one email the form is refused with the reason", async ({ page, javaScriptEnabled }) => {
  const email = `marta-${unique()}@example.com`;
  for (let i = 0; i < 2; i++) await createTestReservation({ guestEmail: email, roomType: "individual" });
  await fillBooking(page, { startDate: ownDay(javaScriptEnabled, 4), endDate: ownDay(javaScriptEnabled, 6), email });
  await page.getByRole("button", { name: "Reservar" }).click();
  const message = "Ya tienes 2 reservas pendientes con este email, el máximo. Cancela una o espera a que la confirmemos para hacer otra.";
  await expect(toast(page, message)).toBeVisible();
  await expect(page.locator(".field-error", { hasText: message })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Email" })).toHaveValue(email);
});
