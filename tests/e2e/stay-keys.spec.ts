// Issue 29 in the browser, with and without JavaScript: the door modal's
// 'Acceso principal' checkbox, and the lookup page showing a confirmed stay's
// key (PIN, window and QR). Decisions at the door are tested in
// tests/integration/key-decisions.test.ts.
import { randomBytes } from "node:crypto";
import { expect, test, toast } from "./fixtures";

const { createTestDoor, createTestReservation } = await import("../setup/fixtures");
const { getDoorById } = await import("~/models/door.server");
const { getActiveKeyOfReservation } = await import("~/models/door-key.server");
const { changeReservationStatus } = await import("~/services/reservations.server");

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
