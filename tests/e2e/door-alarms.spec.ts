// The dashboard's door alarms: a door's bridge reports its contact open
// without a grant (a forced door) and then closed. With JavaScript the badge
// and list change in place (server-sent events); without, a reload shows them.
import mqtt from "mqtt";
import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

const { createTestDoorWithBridge } = await import("../setup/fixtures");

test("the dashboard lists a forced door's alarm and drops it when the door closes", async ({ page, asAdmin }, testInfo) => {
  void asAdmin;
  const live = testInfo.project.name === "js";
  const code = `e2e-alarm-${Math.random().toString(36).slice(2, 10)}`;
  const { door, password } = await createTestDoorWithBridge(code, `Almacén ${code}`);
  const bridge = await mqtt.connectAsync(`mqtt://127.0.0.1:${E2E.mqttPort}`, { username: code, password, protocolVersion: 4, reconnectPeriod: 0 });
  const topic = `coliving/doors/${code}/contact`;
  const report = (state: "open" | "closed") =>
    bridge.publishAsync(topic, JSON.stringify({ state, released: false, at: new Date().toISOString() }), { qos: 1, retain: true });
  try {
    await page.goto("/admin");
    const panel = page.getByRole("region", { name: /Alarmas de puertas/ });
    const alarm = panel.getByRole("listitem").filter({ hasText: door.name });
    await expect(panel).toBeVisible();
    await expect(alarm).toHaveCount(0);

    /** With JavaScript the page changes by itself; without, each look is a reload. */
    const shows = async (count: number) => {
      if (live) await expect(alarm).toHaveCount(count, { timeout: 5000 });
      else
        await expect
          .poll(async () => {
            await page.reload();
            return alarm.count();
          })
          .toBe(count);
    };

    await report("open");
    await shows(1);
    await expect(alarm).toContainText("Puerta forzada");
    await expect(panel.getByTestId("alarm-badge")).not.toHaveText("0");

    await report("closed");
    await shows(0);
  } finally {
    await bridge.publishAsync(topic, "", { qos: 1, retain: true }).catch(() => {});
    await bridge.endAsync();
  }
});
