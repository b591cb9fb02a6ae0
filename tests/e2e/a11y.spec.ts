import { expect, seriousA11yViolations, test } from "./fixtures";

const PUBLIC_PAGES = ["/", "/login", "/reservar", "/consulta", "/reserva-consulta", "/incidencias", "/visita", "/privacidad", "/no-existe"];
const ADMIN_PAGES = ["/admin", "/admin?modal=new", "/admin/users", "/admin/cards", "/admin/logs", "/admin/incidents", "/admin/reservations", "/admin/consultations"];

for (const path of PUBLIC_PAGES) {
  test(`no serious accessibility violations on ${path}`, async ({ page }) => {
    await page.goto(path);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}

test("no serious accessibility violations on /portal", async ({ page, asResident }) => {
  await page.goto("/portal");
  expect(await seriousA11yViolations(page)).toEqual([]);
});

for (const path of ADMIN_PAGES) {
  test(`no serious accessibility violations on ${path}`, async ({ page, asAdmin }) => {
    await page.goto(path);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}
