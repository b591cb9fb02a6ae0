import { expect, test } from "./fixtures";

// A change made through a page shows in /admin/auditoria (with and without
// JavaScript: the projects js and no-js): found by the filters, its details
// with the before/after, the chain verified, the export carrying the filters.
test("an admin's change through a page is in the audit trail, with its details", async ({ page, asAdmin, clientIp }) => {
  const doorId = `e2e-audit-${Math.random().toString(36).slice(2, 10)}`;
  await page.goto("/admin");
  await page.getByRole("link", { name: "Añadir Puerta" }).click();
  const dialog = page.getByRole("dialog", { name: "Añadir Puerta" });
  await dialog.getByLabel("Nombre").fill(`Portal ${doorId}`);
  await dialog.getByLabel("Ubicación").fill("Planta baja");
  await dialog.getByLabel("ID de puerta").fill(doorId);
  await dialog.getByRole("button", { name: "Añadir Puerta" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Puerta creada" })).toBeVisible();

  await page.getByRole("link", { name: "Auditoría" }).click();
  await expect(page.getByRole("heading", { name: "Auditoría", level: 1 })).toBeVisible();
  await page.getByLabel("Buscar").fill(doorId);
  await page.getByRole("button", { name: "Filtrar" }).click();
  const row = page.getByTestId("audit-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`${asAdmin.username} creó la puerta Portal ${doorId} (${doorId})`);
  await expect(row).toContainText("Puerta creada");
  await expect(row).toContainText(clientIp);
  await expect(page.getByRole("link", { name: "Exportar CSV" })).toHaveAttribute("href", `/admin/auditoria/export?search=${doorId}`);

  await row.getByRole("link", { name: /Detalles del evento/ }).click();
  const details = page.getByRole("dialog", { name: /Evento \d+/ });
  await expect(details.getByTestId("audit-diff-row").filter({ hasText: "Nombre" })).toContainText(`Portal ${doorId}`);

  await page.goto("/admin/auditoria");
  await page.getByRole("link", { name: "Verificar integridad" }).click();
  await expect(page.getByTestId("audit-verification")).toContainText("Cadena íntegra");
});
