import { expect, test } from "./fixtures";

const { createTestDoor, unique } = await import("../setup/fixtures");
const { getAccessGroup, listAccessGroups } = await import("~/models/access-group.server");

test("an admin creates a group with a door on a timetable, a bad timetable is refused and kept, then edits and deletes it", async ({ page, asAdmin }) => {
  test.slow(); // a dozen form round trips, each a full page without JavaScript
  const gym = await createTestDoor({ name: `Gimnasio ${unique()}` });
  const name = `Gimnasio residentes ${unique()}`;
  await page.goto("/admin");
  await page.getByRole("link", { name: "Grupos de acceso" }).click();
  await expect(page.getByRole("heading", { name: "Grupos de acceso" })).toBeVisible();
  await expect(page.getByTestId("group-Residentes")).toBeVisible();

  await page.getByRole("link", { name: "Nuevo grupo" }).click();
  let dialog = page.getByRole("dialog", { name: "Nuevo grupo de acceso" });
  await dialog.getByLabel("Nombre").fill(name);
  await dialog.getByRole("checkbox", { name: gym.name }).check();
  await dialog.getByLabel(`Horario de ${gym.name}`).fill("L-V 23:00-06:00");
  await dialog.getByRole("button", { name: "Crear grupo" }).click();
  await expect(dialog.getByRole("alert").filter({ hasText: "Escribe el horario como" })).toBeVisible();
  await expect(dialog.getByLabel(`Horario de ${gym.name}`)).toHaveValue("L-V 23:00-06:00");
  await expect(dialog.getByRole("checkbox", { name: gym.name })).toBeChecked();
  expect((await listAccessGroups()).some((group) => group.name === name)).toBe(false);

  await dialog.getByLabel(`Horario de ${gym.name}`).fill("L-D 06:00-23:00");
  await dialog.getByRole("button", { name: "Crear grupo" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Grupo creado" })).toBeVisible();
  const row = page.getByTestId(`group-${name}`);
  await expect(row).toContainText(`${gym.name}: L-D 06:00-23:00`);
  const created = (await listAccessGroups()).find((group) => group.name === name)!;
  expect(created.doors).toEqual([{ doorId: gym.id, doorCode: gym.code, doorName: gym.name, schedule: [{ days: [1, 2, 3, 4, 5, 6, 7], from: "06:00", to: "23:00" }] }]);

  await row.getByRole("link", { name: `Editar ${name}` }).click();
  dialog = page.getByRole("dialog", { name: "Editar grupo de acceso" });
  await expect(dialog.getByLabel(`Horario de ${gym.name}`)).toHaveValue("L-D 06:00-23:00");
  await dialog.getByLabel(`Horario de ${gym.name}`).fill("");
  await dialog.getByRole("button", { name: "Guardar" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Grupo actualizado" })).toBeVisible();
  await expect(row).toContainText(`${gym.name}: Siempre`);

  await row.getByRole("link", { name: `Eliminar ${name}` }).click();
  dialog = page.getByRole("dialog", { name: "Eliminar grupo de acceso" });
  await dialog.getByRole("button", { name: "Eliminar" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Grupo eliminado" })).toBeVisible();
  await expect(row).toHaveCount(0);
  expect(await getAccessGroup(created.id)).toBeNull();
});
