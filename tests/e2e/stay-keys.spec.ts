// Issue 29 in the browser, with and without JavaScript: the door modal's
// 'Acceso principal' checkbox, and the lookup page showing a confirmed stay's
// key (PIN, window and QR), and the house's 'Cambiar fechas' (the key
// follows). Decisions at the door are tested in
// tests/integration/key-decisions.test.ts and stay-keys.test.ts.
import { randomBytes } from "node:crypto";
import { expect, test, toast } from "./fixtures";

const { createTestDoor, createTestReservation } = await import("../setup/fixtures");
const { getDoorById } = await import("~/models/door.server");
const { getActiveKeyOfReservation } = await import("~/models/door-key.server");
const { changeReservationStatus } = await import("~/services/reservations.server");
const { addDays, madridInstant, todayInMadrid } = await import("~/utils/dates");

const slash = (day: string) => day.split("-").reverse().join("/");

test("an admin marks a door as 'Acceso principal' and unmarks it", async ({ page, asAdmin }) => {
  const door = await createTestDoor({ name: `Portal ${randomBytes(3).toString("hex")}` });
  await page.goto("/admin");
  const card = page.getByTestId("door-card").filter({ hasText: door.name });
  await card.getByRole("link", { name: "Editar" }).click();
  const dialog = page.getByRole("dialog", { name: "Editar Puerta" });
  await expect(dialog.getByLabel("Acceso principal")).not.toBeChecked();
  await dialog.getByLabel("Acceso principal").check();
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(toast(page, "Puerta actualizada")).toBeVisible();
  await expect(card.getByTestId("door-entrance")).toHaveText("Sí");
  expect((await getDoorById(door.id))?.isEntrance).toBe(true);

  await card.getByRole("link", { name: "Editar" }).click();
  await expect(dialog.getByLabel("Acceso principal")).toBeChecked();
  await dialog.getByLabel("Acceso principal").uncheck();
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(toast(page, "Puerta actualizada")).toBeVisible();
  await expect(card.getByTestId("door-entrance")).toHaveCount(0);
  expect((await getDoorById(door.id))?.isEntrance).toBe(false);
});

test("the lookup page shows a confirmed stay's key, and no key while it is pending", async ({ page }) => {
  const email = `ana.${randomBytes(3).toString("hex")}@correo.es`;
  const stay = await createTestReservation({ guestName: "Ana López", guestEmail: email });
  const lookUp = async () => {
    await page.goto("/reserva-consulta");
    await page.getByLabel("Código de reserva").fill(stay.reservationCode);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Buscar Reserva" }).click();
    await expect(page.getByTestId("reservation-status")).toBeVisible();
  };
  await lookUp();
  await expect(page.getByTestId("stay-access")).toHaveCount(0);

  const confirmed = await changeReservationStatus(stay.id, "confirmed");
  expect(confirmed.ok).toBe(true);
  const key = (await getActiveKeyOfReservation(stay.id))!;
  await lookUp();
  const access = page.getByTestId("stay-access");
  await expect(access.getByTestId("access-line")).toHaveText(new RegExp(`^Tu código de acceso: ${key.pin} · válido del \\d\\d/\\d\\d/\\d{4} 15:00 al \\d\\d/\\d\\d/\\d{4} 11:00$`));
  await expect(access.getByTestId("access-qr")).toHaveText(key.qrToken);
  await expect(access.getByRole("img", { name: `Código QR de acceso ${key.qrToken}` })).toBeVisible();
});

test("the house changes a confirmed stay's dates from its details, and its key follows", async ({ page, asAdmin, javaScriptEnabled }) => {
  // Nights of this project's own (715–722, 723–730), beyond the fixtures' stays and clear of
  // the other specs' (rooms.spec.ts keeps 700–714 and 750–764 free), a new entry within two years.
  const base = addDays(todayInMadrid(), javaScriptEnabled ? 715 : 723);
  const stay = await createTestReservation({ guestName: "Lucía Fechas", roomType: "individual", startDate: base, endDate: addDays(base, 2) });
  expect((await changeReservationStatus(stay.id, "confirmed")).ok).toBe(true);
  const key = (await getActiveKeyOfReservation(stay.id))!;

  await page.goto(`/admin/reservations?modal=detail&reservation=${stay.id}`);
  const dialog = page.getByRole("dialog", { name: `Reserva ${stay.reservationCode}` });
  const [startDate, endDate] = [addDays(base, 4), addDays(base, 7)];
  await dialog.getByLabel("Fecha de entrada").fill(startDate);
  await dialog.getByLabel("Fecha de salida").fill(endDate);
  await dialog.getByRole("button", { name: "Cambiar fechas" }).click();
  await expect(toast(page, "Fechas actualizadas")).toContainText(`Reserva ${stay.reservationCode}: del ${slash(startDate)} al ${slash(endDate)}`);
  const reopened = page.getByRole("dialog", { name: `Reserva ${stay.reservationCode}` });
  await expect(reopened.getByTestId("reservation-start")).toHaveText(slash(startDate));
  await expect(reopened.getByTestId("reservation-end")).toHaveText(slash(endDate));
  await expect(reopened.getByLabel("Fecha de entrada")).toHaveValue(startDate);
  expect(await getActiveKeyOfReservation(stay.id)).toMatchObject({ id: key.id, pin: key.pin, validFrom: madridInstant(startDate, "15:00"), validUntil: madridInstant(endDate, "11:00") });
});
