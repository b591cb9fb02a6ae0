// /admin/copias on the running product, with and without JavaScript:
// 'Crear copia ahora' makes an archive that is listed and downloads with
// no-store; `npm run restore` refuses while this server runs on its data
// directory. What the archive holds and how it restores:
// tests/integration/backup-restore.test.ts.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { E2E } from "../setup/e2e-env";
import { expect, test, toast } from "./fixtures";

function restore(archive: string) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/restore.mjs", archive], { env: { ...process.env, ...E2E.serverEnv }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

test("'Crear copia ahora' lists a new archive that downloads with no-store; a restore is refused while the app runs", async ({ page, asAdmin, context }) => {
  test.setTimeout(90_000);
  await page.goto("/admin/copias");
  await expect(page.getByRole("heading", { name: "Copias de seguridad", level: 1 })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Administración" }).getByRole("link", { name: "Copias de seguridad" })).toHaveAttribute("aria-current", "page");

  await page.getByRole("button", { name: "Crear copia ahora" }).click();
  const created = toast(page, "Copia de seguridad creada");
  await expect(created).toBeVisible({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/admin\/copias$/);
  const name = /backup-[0-9TZ-]+-manual\.tar\.gz/.exec((await created.textContent()) ?? "")![0];
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("Manual");

  const downloading = page.waitForEvent("download");
  await row.getByRole("link", { name: /^Descargar/ }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(name);
  const archive = path.join(E2E.root, "backups", name);
  expect(fs.readFileSync((await download.path())!).equals(fs.readFileSync(archive))).toBe(true);
  const response = await context.request.get(`/admin/copias/${name}`);
  expect(response.headers()["cache-control"]).toBe("no-store");
  expect(response.headers()["content-type"]).toBe("application/gzip");

  const refused = await restore(archive);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`The app is running on ${E2E.root}`);
});
