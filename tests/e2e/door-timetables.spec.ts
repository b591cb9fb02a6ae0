import { expect, test } from "./fixtures";

const { createTestDoor, unique } = await import("../setup/fixtures");
const { getDoorById } = await import("~/models/door.server");
const { listHolidays } = await import("~/models/holiday.server");

test("an admin puts a door on an unlock timetable with first-person-in; a bad timetable is refused and kept", async ({ page, asAdmin }) => {
  test.slow(); // a dozen form round trips, each a full page without JavaScript
  const door = await createTestDoor({ name: `Cowork horario ${unique()}` });
  await page.goto("/admin");
  const card = page.getByTestId("door-card").filter({ hasText: door.name });
  await card.getByRole("link", { name: "Editar" }).click();
  const dialog = page.getByRole("dialog", { name: "Editar Puerta" });
  await dialog.getByLabel("Horario de apertura (opcional)").fill("L-V 18:00-09:00");
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(dialog.getByText("Escribe el horario como")).toBeVisible();
  await expect(dialog.getByLabel("Horario de apertura (opcional)")).toHaveValue("L-V 18:00-09:00");
  expect((await getDoorById(door.id))?.unlockSchedule).toEqual([]);

  await dialog.getByLabel("Horario de apertura (opcional)").fill("L-V 09:00-18:00");
  await dialog.getByRole("checkbox", { name: "Abrir solo tras la primera tarjeta del día" }).check();
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Puerta actualizada" })).toBeVisible();
  await expect(card.getByTestId("door-unlock-schedule")).toHaveText("L-V 09:00-18:00 · tras la primera tarjeta");
  const saved = await getDoorById(door.id);
  expect(saved).toMatchObject({ unlockSchedule: [{ days: [1, 2, 3, 4, 5], from: "09:00", to: "18:00" }], firstPersonIn: true, unlockOnHolidays: false });
});

test("an admin adds a holiday to the building's calendar, a day taken twice is refused, and deletes it", async ({ page, asAdmin }) => {
  const seed = Number.parseInt(unique().replace(/\D/g, "").slice(-6) || "1", 10);
  const day = `20${40 + (seed % 50)}-0${1 + (seed % 9)}-1${seed % 10}`;
  const [year, month, date] = day.split("-");
  const name = `Fiesta ${unique()}`;
  await page.goto("/admin/grupos");
  const section = page.getByRole("region", { name: "Festivos" });
  // A fresh install knows this year's holidays.
  await expect(section.getByTestId(`holiday-${new Date().getFullYear()}-12-25`)).toContainText("Natividad del Señor");

  await section.getByLabel("Fecha").fill(day);
  await section.getByLabel("Nombre del festivo").fill(name);
  await section.getByRole("button", { name: "Añadir festivo" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Festivo añadido" })).toBeVisible();
  const row = section.getByTestId(`holiday-${day}`);
  await expect(row).toContainText(`${date}/${month}/${year}`);
  await expect(row).toContainText(name);

  await section.getByLabel("Fecha").fill(day);
  await section.getByLabel("Nombre del festivo").fill("Otra vez");
  await section.getByRole("button", { name: "Añadir festivo" }).click();
  await expect(section.getByText("Ya hay un festivo ese día").first()).toBeVisible();
  expect((await listHolidays()).filter((holiday) => holiday.day === day).map((holiday) => holiday.name)).toEqual([name]);

  await row.getByRole("button", { name: `Eliminar festivo ${date}/${month}/${year}` }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Festivo eliminado" })).toBeVisible();
  await expect(row).toHaveCount(0);
  expect((await listHolidays()).some((holiday) => holiday.day === day)).toBe(false);
});
