// Change notifications from a process without the access service (the admin
// panel running elsewhere, ACCESS_SERVICE=off): its notifier publishes them on
// MQTT_URL's changes topic, and the access service, on the same Mosquitto,
// republishes the door's display.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DisplayMessage } from "~/doors/contract";
import { closeAccessNotifier, mqttAccessNotifier, useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { setDoorMessages } from "~/services/doors.server";
import { randomToken } from "~/utils/crypto.server";
import { FakeBridge } from "../setup/access";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestDoorWithBridge } from "../setup/fixtures";
import { startMosquitto } from "../setup/mosquitto";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "coliving-notify-"));
const passwordFile = path.join(dir, "passwords");
const aclFile = path.join(dir, "acl");
const appPassword = randomToken(18);

function exportCredentials() {
  execFileSync(
    process.execPath,
    ["scripts/mosquitto-passwords.mjs", "--passwords", passwordFile, "--acl", aclFile, "--app-username", "coliving.app"],
    { env: { ...process.env, MQTT_PASSWORD: appPassword }, stdio: "pipe" },
  );
}

// The configuration this process reads (getEnv) must name the broker before
// anything reads it, so Mosquitto starts first.
exportCredentials();
const mosquitto = await startMosquitto({ passwordFile, aclFile, dir });
process.env.MQTT_URL = mosquitto.url;
process.env.MQTT_USERNAME = "coliving.app";
process.env.MQTT_PASSWORD = appPassword;

let service: AccessServiceHandle;

beforeAll(async () => {
  service = await startAccessService({ clientId: "coliving-access-notify", credentialsDebounceMs: 50 });
  // From here on this process plays the admin panel without an access service
  // (ACCESS_SERVICE=off with MQTT_URL): boot's choice of notifier for it.
  useAccessNotifier(
    mqttAccessNotifier({ url: mosquitto.url, username: "coliving.app", password: appPassword, protocolVersion: 5, prefix: "coliving" }),
  );
});

afterAll(async () => {
  await closeAccessNotifier();
  await service?.stop();
  await mosquitto.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("reaches the access service through MQTT_URL and the door's display changes", async () => {
  const { door, password } = await createTestDoorWithBridge("nt-a");
  exportCredentials();
  mosquitto.reload();
  const bridge = await eventually(() =>
    FakeBridge.connect(mosquitto.url, "nt-a", password, { protocolVersion: 5 }).catch(() => null),
  );
  await bridge.waitFor((m) => m.topic === bridge.topic("display"));

  await setDoorMessages(door.id, { useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Desde el panel" });
  const changed = await bridge.waitFor(
    (m) => m.topic === bridge.topic("display") && (m.json as DisplayMessage).welcome === "Desde el panel",
  );
  expect(changed.packet.retain).toBe(false); // delivered live; retained for later subscribers
  expect((changed.json as DisplayMessage).status).toBe("ABIERTO");
  await bridge.end();

  // Retained for a bridge that connects later.
  const late = await mqtt.connectAsync(mosquitto.url, { username: "nt-a", password, reconnectPeriod: 0 });
  const retained = new Promise<DisplayMessage>((resolve) =>
    late.on("message", (_topic, payload) => resolve(JSON.parse(payload.toString()) as DisplayMessage)),
  );
  await late.subscribeAsync("coliving/doors/nt-a/display", { qos: 1 });
  expect((await retained).welcome).toBe("Desde el panel");
  await late.endAsync();
});
