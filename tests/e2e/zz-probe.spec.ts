import { expect, test } from "./fixtures";
test("probe logs search", async ({ page, asAdmin }) => {
  await page.goto("/admin/logs");
  await page.getByLabel("Buscar").fill("mar");
  await page.getByLabel("Resultado").selectOption("denied");
  await page.waitForTimeout(1500);
  console.log("URL", page.url(), "VALUE", await page.getByLabel("Buscar").inputValue());
  await page.getByLabel("Buscar").pressSequentially("ta", { delay: 10 });
  await page.getByLabel("Periodo").selectOption("7d");
  await page.getByLabel("Buscar").pressSequentially("xy", { delay: 1 });
  await page.waitForTimeout(1500);
  console.log("URL", page.url(), "VALUE", await page.getByLabel("Buscar").inputValue());
});
