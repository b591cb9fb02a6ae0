import mqtt from "mqtt";
import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

const { getDoorById } = await import("~/models/door.server");
const { createTestDoor, createTestDoorWithBridge } = await import("../setup/fixtures");
const { getDb } = await import("~/utils/db.server");

function uniqueDoorId() {
  return `e2e-${Math.random().toString(36).slice(2, 10)}`;
}

/** Connects as the door's bridge, the only client allowed to read its display topic. */
async function connectAsBridge(doorId: string, password: string) {
  return mqtt.connectAsync(`mqtt://127.0.0.1:${E2E.mqttPort}`, { username: doorId, password, protocolVersion: 4, reconnectPeriod: 0 });
}

async function nextDisplay(client: mqtt.MqttClient, topic: string, predicate: (display: { status: string; welcome: string }) => boolean) {
  return new Promise<{ status: string; welcome: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching display on ${topic}`)), 5000);
    client.on("message", (received, payload) => {
      if (received !== topic) return;
      const display = JSON.parse(payload.toString());
      if (predicate(display)) {
        clearTimeout(timer);
        resolve(display);
      }
    });
  });
}

test("an admin adds a door, and empty fields are refused", async ({ page, asAdmin }) => {
  const doorId = uniqueDoorId();
  await page.goto("/admin");
  await page.getByRole("link", { name: "Añadir Puerta" }).click();
  const dialog = page.getByRole("dialog", { name: "Añadir Puerta" });
  await dialog.getByRole("button", { name: "Añadir Puerta" }).click();
  await expect(dialog.getByText("El nombre es requerido")).toBeVisible();
  await expect(dialog.getByText("El ID de puerta es requerido")).toBeVisible();
  await dialog.getByLabel("Nombre").fill(`Portal ${doorId}`);
  await dialog.getByLabel("Ubicación").fill("Planta baja");
  await dialog.getByLabel("ID de puerta").fill(doorId);
  await dialog.getByRole("button", { name: "Añadir Puerta" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Puerta creada" })).toBeVisible();
  await expect(page.getByRole("heading", { name: `Portal ${doorId}` })).toBeVisible();
});

test("an admin edits a door's status and deletes it after confirming", async ({ page, asAdmin }) => {
  const door = await createTestDoor({ code: uniqueDoorId(), name: `Garaje ${Date.now()}`, location: "Sótano" });
  await page.goto("/admin");
  const card = page.getByTestId("door-card").filter({ hasText: door.name });
  await card.getByRole("link", { name: "Editar" }).click();
  const dialog = page.getByRole("dialog", { name: "Editar Puerta" });
  await dialog.getByLabel("Estado").selectOption("maintenance");
  await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Puerta actualizada" })).toBeVisible();
  await expect(card.getByText("Mantenimiento")).toBeVisible();
  expect((await getDoorById(door.id))?.status).toBe("maintenance");

  await card.getByRole("link", { name: "Eliminar" }).click();
  const confirm = page.getByRole("dialog", { name: "Eliminar puerta" });
  await expect(confirm).toContainText("¿Estás seguro de que quieres eliminar esta puerta?");
  await confirm.getByRole("button", { name: "Eliminar" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Puerta eliminada" })).toBeVisible();
  await expect(card).toHaveCount(0);
  expect(await getDoorById(door.id)).toBeUndefined();
});

test("door messages are limited, shown on the LCD preview and published to the door", async ({ page, asAdmin, javaScriptEnabled }) => {
  const { door, password } = await createTestDoorWithBridge(uniqueDoorId(), `Cowork ${Date.now()}`);
  const bridge = await connectAsBridge(door.code, password);
  const topic = `coliving/doors/${door.code}/display`;
  try {
    await bridge.subscribeAsync(topic, { qos: 1 });
    await page.goto("/admin");
    const card = page.getByTestId("door-card").filter({ hasText: door.name });
    await card.getByRole("link", { name: "Mensajes" }).click();
    const dialog = page.getByRole("dialog", { name: `Mensajes de ${door.name}` });
    await dialog.getByLabel("Usar mensajes personalizados").check();
    if (javaScriptEnabled) {
      await dialog.getByLabel("Mensaje de estado (máx. 10)").fill("ABIERTO");
      await expect(dialog.getByText("7/10 caracteres")).toBeVisible();
    } else {
      await dialog.getByLabel("Mensaje de estado (máx. 10)").fill("DEMASIADO LARGO");
      await dialog.getByRole("button", { name: "Guardar Mensajes" }).click();
      await expect(dialog.getByText("El mensaje de estado admite como máximo 10 caracteres")).toBeVisible();
      await dialog.getByLabel("Mensaje de estado (máx. 10)").fill("ABIERTO");
    }
    await dialog.getByLabel("Mensaje de bienvenida (máx. 16)").fill("Hola vecinos");
    const published = nextDisplay(bridge, topic, (display) => display.status === "ABIERTO");
    await dialog.getByRole("button", { name: "Guardar Mensajes" }).click();
    await expect(page.getByTestId("toast").filter({ hasText: "Mensaje actualizado" })).toBeVisible();
    await expect(card.getByRole("img", { name: "Pantalla: Hola vecinos / ABIERTO" })).toBeVisible();
    expect(await published).toMatchObject({ status: "ABIERTO", welcome: "Hola vecinos", doorStatus: "active" });
  } finally {
    await bridge.endAsync();
  }
});

test("a door incident is created from the dashboard", async ({ page, asAdmin }) => {
  const door = await createTestDoor({ code: uniqueDoorId(), name: `Terraza ${Date.now()}`, location: "Azotea" });
  await page.goto("/admin");
  await page.getByTestId("door-card").filter({ hasText: door.name }).getByRole("link", { name: "Reportar incidencia" }).click();
  const dialog = page.getByRole("dialog", { name: `Reportar incidencia: ${door.name}` });
  await dialog.getByRole("button", { name: "Reportar Incidencia" }).click();
  await expect(dialog.getByText("El tipo es requerido")).toBeVisible();
  await dialog.getByLabel("Tipo").selectOption("hardware");
  await dialog.getByLabel("Urgencia").selectOption("high");
  await dialog.getByLabel("Descripción (opcional)").fill("El lector no enciende");
  await dialog.getByRole("button", { name: "Reportar Incidencia" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Incidencia Creada" })).toBeVisible();
  const rows = await getDb().$client.execute({ sql: "SELECT source, type, urgency, reported_by FROM incidents WHERE door_id = ?", args: [door.id] });
  expect(rows.rows[0]).toMatchObject({ source: "door", type: "hardware", urgency: "high", reported_by: asAdmin.username });
});

test("rotating a bridge credential shows the secret once and it works on the broker", async ({ page, asAdmin }) => {
  const door = await createTestDoor({ code: uniqueDoorId(), name: `Lavandería ${Date.now()}`, location: "Planta -1" });
  await page.goto("/admin");
  await page.getByTestId("door-card").filter({ hasText: door.name }).getByRole("link", { name: "Credencial" }).click();
  const answer = page.waitForResponse((response) => response.request().method() === "POST");
  await page.getByRole("button", { name: "Generar nueva contraseña" }).click();
  // The secret is in this response only: no cache may keep it.
  expect((await answer).headers()["cache-control"]).toBe("no-store");
  await expect(page.getByTestId("bridge-username")).toHaveText(door.code);
  const password = (await page.getByTestId("bridge-password").textContent())!.trim();
  expect(password.length).toBeGreaterThanOrEqual(24);
  const bridge = await connectAsBridge(door.code, password);
  expect(bridge.connected).toBe(true);
  await bridge.endAsync();
  await expect(connectAsBridge(door.code, "wrong-password")).rejects.toThrow();
});
