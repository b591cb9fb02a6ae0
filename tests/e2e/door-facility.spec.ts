// The dashboard's door form links a door to a facility ('Instalación'),
// whose bookings then open it; and unlinks it.
import { expect, test } from "./fixtures";

const { getDoorById } = await import("~/models/door.server");
const { createTestDoor } = await import("../setup/fixtures");

test("an admin links a door to a facility and unlinks it", async ({ page, asAdmin }) => {
  const door = await createTestDoor({ code: `e2e-gym-${Math.random().toString(36).slice(2, 8)}`, name: `Gimnasio ${Date.now()}` });
  await page.goto("/admin");
  const card = page.getByTestId("door-card").filter({ hasText: door.name });
  await card.getByRole("link", { name: "Editar" }).click();
  const dialog = page.getByRole("dialog", { name: "Editar Puerta" });
  await expect(dialog.getByLabel("Instalación (opcional)")).toHaveValue("");
  await dialog.getByLabel("Instalación (opcional)").selectOption({ label: "Gimnasio Principal (Gimnasio)" });
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Puerta actualizada" }).first()).toBeVisible();
  await expect(card.getByTestId("door-facility")).toHaveText("Gimnasio Principal");
  expect((await getDoorById(door.id))?.facilityId).toBe("gimnasio-principal");

  await card.getByRole("link", { name: "Editar" }).click();
  await expect(dialog.getByLabel("Instalación (opcional)")).toHaveValue("gimnasio-principal");
  await dialog.getByLabel("Instalación (opcional)").selectOption({ label: "Ninguna" });
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(card.getByTestId("door-facility")).toHaveCount(0);
  expect((await getDoorById(door.id))?.facilityId).toBeNull();
});
