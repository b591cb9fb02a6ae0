// Issue 40, point 13, in the browser: an app of its own with TRUST_PROXY off
// (the default; the suite's server trusts one proxy), reached "through a
// proxy" (every request carries X-Forwarded-For). Its log says so once, and
// the admin dashboard shows the warning, with JavaScript and without.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { BENCH_ADMIN, freePort, startApp } from "../../scripts/lib/server.mjs";

let app: Awaited<ReturnType<typeof startApp>>;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "untrusted-proxy-"));
  app = await startApp({
    dataDir,
    env: { TRUST_PROXY: "false", ACCESS_SERVICE: "off", PASSWORD_HASH_COST: "10", MQTT_PORT: String(await freePort()), MQTT_TLS_PORT: String(await freePort()) },
  });
});
test.afterAll(async () => {
  await app?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("with TRUST_PROXY off, requests through a proxy are said once in the log and on the dashboard", async ({ page }) => {
  await page.setExtraHTTPHeaders({ "X-Forwarded-For": "198.51.100.7" });
  await page.goto(`${app.url}/login`);
  await page.getByLabel("Usuario").fill(BENCH_ADMIN.username);
  await page.getByLabel("Contraseña").fill(BENCH_ADMIN.password);
  await page.getByRole("button", { name: "Iniciar Sesión" }).click();
  await expect(page).toHaveURL(`${app.url}/admin`);
  await expect(page.getByTestId("untrusted-proxy-warning")).toContainText("Configura TRUST_PROXY");
  const warnings = () => fs.readFileSync(app.logFile, "utf8").split("\n").filter((line) => line.includes("TRUST_PROXY is off")).length;
  expect(warnings()).toBe(1);
});
