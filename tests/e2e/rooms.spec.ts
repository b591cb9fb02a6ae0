// Rooms as inventory in the browser, with and without JavaScript: /reservar
// says what is free before booking and refuses a full type; the house's
// calendar draws each stay on its days (grid, and cards on a phone); the
// portal shows a facility's free slots before booking. Each project books
// nights of its own; the rules themselves are tested in
// tests/integration/rooms-inventory.test.ts.
import type { Page } from "@playwright/test";
import { expect, test, toast } from "./fixtures";

const { createTestReservation, createTestResident } = await import("../setup/fixtures");
const { changeReservationStatus } = await import("~/services/reservations.server");
const { createResidentBooking } = await import("~/services/facility-bookings.server");
const { getDb } = await import("~/utils/db.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");

const today = todayInMadrid();
const slash = (day: string) => day.split("-").reverse().join("/");
/** Days of this project's own, far from every other spec's bookings. */
const ownDay = (javaScriptEnabled: boolean, offset: number) => addDays(today, (javaScriptEnabled ? 600 : 650) + offset);

// Each test walks several pages (and waits for hydration on each with JavaScript).
test.beforeEach(() => test.setTimeout(90_000));

async function chooseStay(page: Page, { startDate, endDate, roomType }: { startDate: string; endDate: string; roomType: string }) {
  await page.getByLabel("Fecha de entrada").fill(startDate);
  await page.getByLabel("Fecha de salida").fill(endDate);
  await page.getByLabel("Tipo de habitación").selectOption(roomType);
}

async function fillGuest(page: Page, name: string, email: string) {
  await page.getByLabel("Nombre completo").fill(name);
  await page.getByRole("textbox", { name: "Email" }).fill(email);
  await page.getByRole("textbox", { name: "Teléfono" }).fill("600 111 222");
}

/** With JavaScript the message follows the choice; without it, 'Ver disponibilidad' asks. */
async function availabilityMessage(page: Page, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Ver disponibilidad" }).click();
  return page.getByTestId("availability-message");
}

test("books until a type is full: the availability as the guest chooses, then the refusal", async ({ page, javaScriptEnabled }) => {
  const stay = { startDate: ownDay(javaScriptEnabled, 0), endDate: ownDay(javaScriptEnabled, 2), roomType: "suite" };

  await page.goto("/reservar");
  await chooseStay(page, stay);
  await expect(await availabilityMessage(page, javaScriptEnabled)).toHaveText("Quedan 2 habitaciones suites libres para esas fechas");
  await fillGuest(page, "Irene Suárez", "irene@example.com");
  await page.getByRole("button", { name: "Reservar" }).click();
  await expect(page.getByRole("dialog", { name: "¡Reserva creada!" })).toContainText("Habitación (Suite)");

  // The last suite: chosen, then taken by someone else before the guest sends the form.
  await page.goto("/reservar");
  await chooseStay(page, stay);
  if (javaScriptEnabled) await expect(page.getByTestId("availability-message")).toHaveText("Queda 1 habitación suite libre para esas fechas");
  await fillGuest(page, "Pablo Suárez", "pablo@example.com");
  await createTestReservation({ ...stay, roomType: "suite" });
  await page.getByRole("button", { name: "Reservar" }).click();
  await expect(toast(page, "No quedan habitaciones suites libres para esas fechas")).toBeVisible();
  await expect(page.getByTestId("availability-message")).toHaveText("No quedan habitaciones suites libres para esas fechas. Prueba otras fechas u otro tipo.");
  const reserve = page.getByRole("button", { name: /^Reservar/ });
  await expect(reserve).toBeDisabled();
  await expect(reserve).toHaveText("Reservar: no quedan habitaciones suites libres para esas fechas");
  const stored = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM anonymous_reservations WHERE guest_email = 'pablo@example.com' AND start_date = ?", args: [stay.startDate] });
  expect(Number(stored.rows[0]!.n)).toBe(0);

  // Another type is free: the guest sees it and may book again.
  await page.getByLabel("Tipo de habitación").selectOption("doble");
  await expect(await availabilityMessage(page, javaScriptEnabled)).toHaveText("Quedan 4 habitaciones dobles libres para esas fechas");
  await expect(page.getByRole("button", { name: "Reservar", exact: true })).toBeEnabled();
});

test("the calendar draws each stay on its days, opens its details, and shows cards on a phone", async ({ page, asAdmin, javaScriptEnabled }) => {
  const from = ownDay(javaScriptEnabled, 20);
  const stay = await createTestReservation({ guestName: "Olga Calendario", startDate: addDays(from, 2), endDate: addDays(from, 5), roomType: "individual" });
  const confirmed = await changeReservationStatus(stay.id, "confirmed");
  if (!confirmed.ok) throw new Error(confirmed.message);
  const room = confirmed.reservation.room!.name;

  await page.goto(`/admin/ocupacion?from=${from}`);
  await expect(page.getByRole("heading", { name: "Ocupación", level: 1 })).toBeVisible();
  const grid = page.getByTestId("occupancy-grid");
  const row = grid.locator(`tr[data-row="${room}"]`);
  // Two free days, then the stay across its three nights.
  const cell = row.locator("td", { has: page.locator(`[data-code="${stay.reservationCode}"]`) });
  await expect(cell).toHaveAttribute("colspan", "3");
  expect(await row.locator("td").evaluateAll((cells, code) => cells.findIndex((td) => td.querySelector(`[data-code="${code}"]`)), stay.reservationCode)).toBe(2);
  await expect(page.getByRole("link", { name: "Olga Calendario (" + stay.reservationCode + "), confirmada, del " + slash(addDays(from, 2)) + " al " + slash(addDays(from, 5)) }).first()).toBeVisible();

  await cell.getByRole("link").click();
  const dialog = page.getByRole("dialog", { name: `Reserva ${stay.reservationCode}` });
  await expect(dialog).toContainText("Olga Calendario");
  await expect(dialog).toContainText(room);
  await dialog.getByRole("link", { name: "Cerrar" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.getByRole("link", { name: "Los 14 días siguientes" }).click();
  await expect(page).toHaveURL(new RegExp(`from=${addDays(from, 14)}`));

  // On a phone: one card per room, its days as a list.
  await page.setViewportSize({ width: 400, height: 800 });
  await page.goto(`/admin/ocupacion?from=${from}`);
  await expect(grid).toBeHidden();
  const card = page.getByRole("list", { name: "Ocupación por habitación" }).locator(`li[data-row="${room}"]`);
  await expect(card.getByRole("listitem")).toHaveCount(14);
  await expect(card.getByRole("listitem").nth(1)).toContainText("Libre");
  for (const day of [2, 3, 4]) await expect(card.getByRole("listitem").nth(day)).toContainText("Olga Calendario");
  await expect(card.getByRole("listitem").nth(5)).toContainText("Libre");
});

test("the portal's booking form shows the facility's free slots before booking", async ({ page, context, javaScriptEnabled }) => {
  const { signIn } = await import("./fixtures");
  const resident = await createTestResident();
  await signIn(context, resident);
  const day = addDays(today, javaScriptEnabled ? 30 : 31);
  const other = await createTestResident();
  const taken = await createResidentBooking(other, { facilityType: "meeting-room", facilityId: "sala-conferencias", date: day, startTime: "10:00", duration: 2 });
  expect(taken.ok).toBe(true);

  await page.goto("/portal?modal=reservar");
  const dialog = page.getByRole("dialog", { name: "Nueva Reserva" });
  await dialog.getByLabel("Tipo de instalación").selectOption({ label: "Salas de Reuniones" });
  await dialog.getByLabel("Instalación", { exact: true }).selectOption({ label: "Sala de Conferencias (20 personas)" });
  await dialog.getByLabel("Fecha").fill(day);
  if (!javaScriptEnabled) await dialog.getByRole("button", { name: "Ver horarios libres" }).click();
  const slots = page.getByTestId("day-slots");
  await expect(slots).toContainText(`Horarios libres de Sala de Conferencias el ${slash(day)}: 00:00–10:00, 12:00–24:00`);
  await expect(slots).toContainText("Ocupado: 10:00–12:00");
  // What was chosen stays, and the booking goes through.
  await page.getByRole("dialog", { name: "Nueva Reserva" }).getByLabel("Hora de inicio").fill("12:00");
  await page.getByRole("dialog", { name: "Nueva Reserva" }).getByRole("button", { name: "Reservar" }).click();
  await expect(toast(page, "Reserva Creada")).toContainText("Sala de Conferencias");
});
