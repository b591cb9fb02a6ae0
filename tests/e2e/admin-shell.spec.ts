import { expect, test } from "./fixtures";

const LINKS = ["Dashboard", "Usuarios", "Gestionar Tarjetas", "Grupos de acceso", "Registros", "Incidencias", "Reservas", "Habitaciones", "Ocupación", "Reservas de instalaciones", "Invitaciones", "Consultas", "Copias de seguridad", "Auditoría"];

test("the admin sidebar has the eight links, access groups, the inventory's three, visitor passes and the audit trail, marks the active one and hides the public chrome", async ({ page, asAdmin }) => {
  await page.goto("/admin/cards");
  const nav = page.getByRole("navigation", { name: "Administración" });
  for (const name of LINKS) await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Gestionar Tarjetas" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: "Dashboard" })).not.toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("banner")).toHaveCount(0);
  await expect(page.getByRole("contentinfo")).toHaveCount(0);
  await page.goto("/admin/users?page=2");
  await expect(nav.getByRole("link", { name: "Usuarios" })).toHaveAttribute("aria-current", "page");
});

test("below 768 px the sidebar folds behind a toggle; from 768 px it is always shown", async ({ page, asAdmin }) => {
  await page.setViewportSize({ width: 600, height: 800 });
  await page.goto("/admin");
  const sidebar = page.locator("#admin-sidebar");
  await expect(sidebar).toBeHidden();
  await page.getByText("Menú", { exact: true }).click();
  await expect(sidebar).toBeVisible();
  await page.setViewportSize({ width: 1024, height: 800 });
  await expect(sidebar).toBeVisible();
  await expect(page.getByText("Menú", { exact: true })).toBeHidden();
});
