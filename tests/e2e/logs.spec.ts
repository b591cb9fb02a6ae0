// /admin/logs with and without JavaScript. Every test writes its rows at a
// door of its own (through the model layer) and filters by it, so tests
// running side by side never see each other's rows.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Page } from "@playwright/test";
import { FakeBridge } from "../setup/access";
import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

const { createTestDoor, insertLogs } = await import("../setup/fixtures");
const { rotateBridgeCredential } = await import("~/services/doors.server");
const { raiseDoorAlarm } = await import("~/models/door-alarm.server");

const MINUTE = 60_000;

function hex(bytes = 4) {
  return randomBytes(bytes).toString("hex").toUpperCase();
}

async function door(name: string) {
  const code = `e2e-logs-${randomBytes(4).toString("hex")}`;
  return createTestDoor({ code, name: `${name} ${code.slice(-8)}` });
}

/** Picks a filter; without JavaScript the form needs its "Filtrar" button. */
async function filter(page: Page, label: string, value: string, javaScriptEnabled: boolean) {
  await page.getByLabel(label).selectOption(value);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Filtrar" }).click();
}

function stat(page: Page, label: string) {
  return page.getByRole("region", { name: "Estadísticas de los registros filtrados" }).locator(".stat-tile").filter({ hasText: label }).locator(".stat-value");
}

const rows = (page: Page) => page.getByTestId("log-row");

test("filters by door, result, period and search, with the stats of what is shown", async ({ page, asAdmin, javaScriptEnabled }) => {
  const portal = await door("Portal");
  const card = hex();
  const other = hex();
  const now = Date.now();
  await insertLogs([
    { at: now - 3 * 24 * 60 * MINUTE, cardNumber: card, door: portal, granted: true, username: "lucia.e2e" },
    { at: now - 40 * MINUTE, cardNumber: card, door: portal, granted: true, username: "lucia.e2e" },
    { at: now - 30 * MINUTE, cardNumber: card, door: portal, granted: false, username: "lucia.e2e" },
    { at: now - 20 * MINUTE, cardNumber: other, door: portal, granted: false, reason: "card_pending", isAnonymous: true, offline: true },
  ]);
  await page.goto("/admin/logs");
  await expect(page.getByRole("heading", { name: "Registros de Acceso" })).toBeVisible();
  await filter(page, "Puerta", portal.code, javaScriptEnabled);
  await expect(page).toHaveURL(new RegExp(`doorId=${portal.code}`));
  await expect(rows(page)).toHaveCount(3);
  await expect(stat(page, "Total")).toHaveText("3");
  await expect(stat(page, "Concedidos")).toHaveText("1");
  await expect(stat(page, "Denegados")).toHaveText("2");
  await expect(stat(page, "Tarjetas únicas")).toHaveText("2");
  // The newest row: anonymous card, offline, no user, Spanish reason.
  const newest = rows(page).first();
  await expect(newest).toHaveAttribute("data-card-number", other);
  await expect(newest.getByRole("img", { name: "Anónima" })).toBeVisible();
  await expect(newest).toContainText("Sin conexión");
  await expect(newest).toContainText("Denegado");
  await expect(newest).toContainText("Tarjeta pendiente de aprobación");
  await expect(newest.locator("td").nth(2)).toHaveText("—");

  await filter(page, "Resultado", "denied", javaScriptEnabled);
  await expect(rows(page)).toHaveCount(2);
  await expect(stat(page, "Concedidos")).toHaveText("0");

  await filter(page, "Resultado", "granted", javaScriptEnabled);
  await filter(page, "Periodo", "7d", javaScriptEnabled);
  await expect(page).toHaveURL(/dateRange=7d/);
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).first()).toContainText("lucia.e2e");

  await page.getByLabel("Buscar").fill(other.slice(0, 4).toLowerCase());
  await page.getByRole("button", { name: "Filtrar" }).click();
  await expect(page.getByText("No hay registros que coincidan con los filtros.")).toBeVisible();
  await filter(page, "Resultado", "all", javaScriptEnabled);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toHaveAttribute("data-card-number", other);

  await page.getByRole("link", { name: "Limpiar" }).click();
  await expect(page).toHaveURL(/\/admin\/logs$/);
  await expect(page.getByLabel("Puerta")).toHaveValue("");
});

test("pages through 50 rows at a time with 'Página X de Y'", async ({ page, asAdmin }) => {
  const garaje = await door("Garaje");
  const now = Date.now();
  // One row a minute, each of another card: nothing merges.
  await insertLogs(Array.from({ length: 60 }, (_, i) => ({ at: now - (i + 1) * MINUTE, cardNumber: hex(), door: garaje })));
  await page.goto(`/admin/logs?doorId=${garaje.code}`);
  await expect(rows(page)).toHaveCount(50);
  const pagination = page.getByRole("navigation", { name: "Paginación" });
  await expect(pagination).toContainText("Página 1 de 2");
  await pagination.getByRole("link", { name: "Siguiente" }).click();
  await expect(pagination).toContainText("Página 2 de 2");
  await expect(rows(page)).toHaveCount(10);
  await expect(page).toHaveURL(new RegExp(`doorId=${garaje.code}.*page=2|page=2.*doorId=${garaje.code}`));
  await pagination.getByRole("link", { name: "Anterior" }).click();
  await expect(pagination).toContainText("Página 1 de 2");
  await expect(rows(page)).toHaveCount(50);
});

test("merges a burst of the same card, door and result into one row with its count", async ({ page, asAdmin }) => {
  const gym = await door("Gimnasio");
  const card = hex();
  const now = Date.now();
  await insertLogs([
    { at: now - 4 * MINUTE, cardNumber: card, door: gym, granted: false },
    { at: now - 3 * MINUTE, cardNumber: card, door: gym, granted: false },
    { at: now - 2 * MINUTE, cardNumber: card, door: gym, granted: false },
    { at: now - 1 * MINUTE, cardNumber: card, door: gym, granted: true },
  ]);
  await page.goto(`/admin/logs?doorId=${gym.code}`);
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).nth(0).getByTestId("log-count")).toHaveCount(0);
  await expect(rows(page).nth(1).getByTestId("log-count")).toHaveText("×3 intentos agrupados");
  await expect(stat(page, "Total")).toHaveText("4");
  await expect(page.getByTestId("log-summary")).toContainText("4 registros en esta página. Se muestran en 2 filas");
});

test("downloads the filtered rows as a dated CSV with Spanish headers", async ({ page, asAdmin }) => {
  const lavanderia = await door("Lavandería");
  const card = hex();
  const at = Date.now() - 5 * MINUTE;
  await insertLogs([
    { at, cardNumber: card, door: lavanderia, granted: false, reason: "no_permission", username: "=cmd", ipAddress: "10.0.0.9" },
    { at: at - 10 * MINUTE, cardNumber: card, door: lavanderia, granted: true, username: "=cmd", ipAddress: "10.0.0.9" },
  ]);
  await page.goto(`/admin/logs?doorId=${lavanderia.code}&status=denied`);
  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("link", { name: "Exportar CSV" }).click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toMatch(/^registros-accesos-\d{4}-\d{2}-\d{2}\.csv$/);
  const bytes = fs.readFileSync((await download.path())!);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString("utf8").split("\r\n");
  expect(lines[0]).toBe('"Fecha","Tarjeta","Usuario","Puerta","Resultado","Motivo","Anónima","Sin conexión","IP","Credencial","Titular"');
  const madrid = new Intl.DateTimeFormat("es-ES", {
    timeZone: "Europe/Madrid",
    day: "2-digit",
    month: "2-digit",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  })
    .format(at)
    .replace(", ", " ");
  expect(lines[1]).toBe(`"${madrid}","${card}","'=cmd","${lavanderia.name}","Denegado","Sin permiso para esta puerta","No","No","10.0.0.9","card","'=cmd"`);
  expect(lines.slice(2)).toEqual([""]);
});

test("approving a card from its denied row asks first (door and hours), keeps its rows as resolved, and lets it in on its next swipe", async ({ page, asAdmin }) => {
  const terraza = await door("Terraza");
  const rotated = await rotateBridgeCredential(terraza.id);
  if (!rotated.ok) throw new Error(rotated.message);
  const credential = rotated.credential;
  // A door's bridge: each swipe resolves once the receipt says its row is
  // stored (the app answers before its commit).
  const bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${E2E.mqttPort}`, credential.username, credential.password);
  const card = hex();
  const swipe = () => bridge.swipe(card);
  try {
    expect(await swipe()).toMatchObject({ granted: false, reason: "unknown_card" });
    expect(await swipe()).toMatchObject({ granted: false, reason: "card_pending" });

    await page.goto(`/admin/logs?doorId=${terraza.code}`);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first().getByTestId("log-count")).toHaveText("×2 intentos agrupados");
    // Issue 40: 'Aprobar' opens the cards screen's confirmation, with the row's door chosen and its hours to give.
    await rows(page).first().getByRole("link", { name: `Aprobar tarjeta ${card} en ${terraza.name}` }).click();
    const dialog = page.getByRole("dialog", { name: `Aprobar tarjeta ${card}` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel("Conceder acceso a (opcional)")).toHaveValue(terraza.code);
    await expect(dialog.getByLabel("Horario en esa puerta (opcional)")).toBeVisible();
    await dialog.getByLabel("Horario en esa puerta (opcional)").fill("L-D 00:00-24:00");
    await dialog.getByRole("button", { name: "Aprobar Tarjeta" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Tarjeta aprobada" })).toContainText(
      `${card} con acceso a ${terraza.name}; 2 registros denegados marcados como resueltos.`,
    );
    await expect(dialog).toHaveCount(0);
    // The card's denied rows stay, resolved: out of the default filter and the denied figure.
    await expect(page.getByText("No hay registros que coincidan con los filtros.")).toBeVisible();
    await expect(stat(page, "Denegados")).toHaveText("0");
    await page.goto(`/admin/logs?doorId=${terraza.code}&status=resolved`);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText("Resuelto");
    await expect(rows(page).first().getByTestId("log-count")).toHaveText("×2 intentos agrupados");
    await expect(rows(page).first().getByRole("link", { name: /Aprobar/ })).toHaveCount(0);
    await page.goto(`/admin/logs?doorId=${terraza.code}`);

    expect(await swipe()).toMatchObject({ granted: true, reason: "granted" });
    await page.reload();
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText("Concedido");
  } finally {
    await bridge.end();
  }
});

test("a door alarm is its own kind: 'Alarma', its own filter and figure, never a denial (issue 40)", async ({ page, asAdmin, javaScriptEnabled }) => {
  const garaje = await door("Garaje");
  await insertLogs([{ at: Date.now() - MINUTE, cardNumber: hex(), door: garaje, granted: false }]);
  expect(await raiseDoorAlarm(garaje, "door_offline", new Date())).not.toBeNull();
  await page.goto(`/admin/logs?doorId=${garaje.code}`);
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).first()).toContainText("Alarma");
  await expect(rows(page).first()).toContainText("Alarma: puerta sin conexión");
  await expect(stat(page, "Denegados")).toHaveText("1");
  await expect(stat(page, "Alarmas")).toHaveText("1");
  await filter(page, "Resultado", "alarm", javaScriptEnabled);
  await expect(rows(page)).toHaveCount(1);
  await expect(stat(page, "Denegados")).toHaveText("0");
  await filter(page, "Resultado", "denied", javaScriptEnabled);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText("Denegado");
});
