// A building sensor on the embedded broker: its own credential and topic,
// valid readings stored (at most one per sensor per interval, the latest of
// it); nobody else may publish as it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, gte, lte } from "drizzle-orm";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { buildingReadings } from "~/db/schema";
import { provisionBuildingSensor } from "~/services/building-sensors.server";
import { getDb } from "~/utils/db.server";
import { FakeBridge } from "../setup/access";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestCard, createTestDoorWithBridge } from "../setup/fixtures";

let service: AccessServiceHandle;
let url: string;

beforeAll(async () => {
  // One stored reading per sensor per second here (5 s by default), so the test of a burst is short.
  service = await startAccessService({ host: "127.0.0.1", port: 0, credentialsDebounceMs: 50, sensorReadingIntervalMs: 1000 });
  useAccessNotifier(service.notifier);
  url = `mqtt://127.0.0.1:${service.mqttPort}`;
});

afterAll(async () => {
  await service?.stop();
});

const connect = (username: string, password: string) =>
  mqtt.connectAsync(url, { username, password, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 3000 });

const readingsAt = (temperature: number) => getDb().select().from(buildingReadings).where(eq(buildingReadings.temperature, temperature));

describe("building sensors", () => {
  it("a sensor publishes its conditions and the reading is stored", async () => {
    const credential = await provisionBuildingSensor("salon");
    expect(credential.username).toBe("sensor.salon");
    const sensor = await connect(credential.username, credential.password);
    const at = new Date(Date.now() - 5000);
    await sensor.publishAsync(
      "coliving/building/salon/conditions",
      JSON.stringify({ temperature: 21.5, humidity: 48, wifiStatus: "connected", at: at.toISOString() }),
      { qos: 1 },
    );
    const [stored] = await eventually(async () => {
      const rows = await readingsAt(21.5);
      return rows.length ? rows : null;
    });
    expect(stored).toMatchObject({ temperature: 21.5, humidity: 48, wifiStatus: "connected", recordedAt: at });
    await sensor.endAsync();
  });

  it("ignores a reading that does not fit the contract, and stores the next valid one", async () => {
    const credential = await provisionBuildingSensor("cocina");
    const sensor = await connect(credential.username, credential.password);
    const topic = "coliving/building/cocina/conditions";
    await sensor.publishAsync(topic, JSON.stringify({ temperature: 999, humidity: 40, wifiStatus: "connected", at: new Date().toISOString() }), { qos: 1 });
    await sensor.publishAsync(topic, JSON.stringify({ temperature: 19.25, humidity: 55, wifiStatus: "weak", at: new Date().toISOString() }), { qos: 1 });
    await eventually(async () => (await readingsAt(19.25)).length === 1);
    expect(await readingsAt(999)).toEqual([]);
    await sensor.endAsync();
  });

  it("another account may not publish to a sensor's topic: it is disconnected and nothing is stored", async () => {
    const salon = await provisionBuildingSensor("salon-2");
    const other = await provisionBuildingSensor("terraza");
    const door = await createTestDoorWithBridge("sensor-door");
    await createTestCard("5E500001", [door.door.id]);
    const forged = { temperature: 30.75, humidity: 10, wifiStatus: "connected", at: new Date().toISOString() };

    for (const [username, password] of [
      [other.username, other.password],
      ["sensor-door", door.password],
    ] as const) {
      const intruder = await connect(username, password);
      const closed = new Promise<void>((resolve) => intruder.once("close", () => resolve()));
      intruder.publish(`coliving/building/salon-2/conditions`, JSON.stringify(forged), { qos: 1 });
      await closed;
      await intruder.endAsync(true);
    }
    // A sensor subscribes to nothing (not even its own topic).
    const listener = await connect(salon.username, salon.password);
    await expect(listener.subscribeAsync("coliving/building/salon-2/conditions", { qos: 1 })).rejects.toThrow(/Subscribe error/);
    // Published after the forgeries (the service handles messages in order): once it is stored, they would be too.
    await listener.publishAsync("coliving/building/salon-2/conditions", JSON.stringify({ ...forged, temperature: 30.5 }), { qos: 1 });
    await eventually(async () => (await readingsAt(30.5)).length === 1);
    expect(await readingsAt(30.75)).toEqual([]);
    await listener.endAsync();
    // The door still works.
    const bridge = await FakeBridge.connect(url, "sensor-door", door.password);
    expect((await bridge.swipe("5E500001")).granted).toBe(true);
    await bridge.end();
  });

  it("a burst of readings stores at most one per interval, the first at once and the latest last; the doors keep deciding", async () => {
    const credential = await provisionBuildingSensor("rafaga");
    const door = await createTestDoorWithBridge("burst-door");
    await createTestCard("5E500002", [door.door.id]);
    const bridge = await FakeBridge.connect(url, "burst-door", door.password);
    const sensor = await connect(credential.username, credential.password);
    // 12.01, 12.02 … 14.00 °C: values no other test sends.
    const temperatures = Array.from({ length: 200 }, (_, i) => (1201 + i) / 100);
    const started = performance.now();
    const swipes: ReturnType<FakeBridge["swipe"]>[] = [];
    const published = temperatures.map((temperature, i) => {
      if (i % 50 === 25) swipes.push(bridge.swipe("5E500002"));
      return sensor.publishAsync(
        "coliving/building/rafaga/conditions",
        JSON.stringify({ temperature, humidity: 40, wifiStatus: "connected", at: new Date().toISOString() }),
        { qos: 1 },
      );
    });
    await Promise.all(published);
    const burstMs = performance.now() - started;
    expect((await Promise.all(swipes)).map((decision) => decision.granted)).toEqual([true, true, true, true]);

    const latest = temperatures.at(-1)!;
    await eventually(async () => (await readingsAt(latest)).length === 1, "the latest reading to be stored", 5000);
    const stored = await getDb()
      .select()
      .from(buildingReadings)
      .where(and(gte(buildingReadings.temperature, temperatures[0]!), lte(buildingReadings.temperature, latest)));
    expect(stored.map((row) => row.temperature)).toContain(temperatures[0]);
    // One at the start, then at most one per elapsed second of the burst.
    expect(stored.length).toBeLessThanOrEqual(Math.floor(burstMs / 1000) + 2);
    await Promise.all([sensor.endAsync(), bridge.end()]);
  });

  it("a wrong secret, or the old one after a new credential, is refused", async () => {
    const first = await provisionBuildingSensor("pasillo");
    const second = await provisionBuildingSensor("pasillo");
    await expect(connect("sensor.pasillo", first.password)).rejects.toThrow(/Bad username or password/i);
    const sensor = await connect("sensor.pasillo", second.password);
    await sensor.endAsync();
  });

  it("the generated Mosquitto files give each sensor its own account and only its own topic", async () => {
    await provisionBuildingSensor("terraza");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "coliving-sensor-acl-"));
    try {
      execFileSync(
        process.execPath,
        ["scripts/mosquitto-passwords.mjs", "--passwords", path.join(dir, "passwords"), "--acl", path.join(dir, "acl"), "--app-username", "coliving.app"],
        { env: { ...process.env, MQTT_PASSWORD: "app-secret" }, stdio: "pipe" },
      );
      const passwords = fs.readFileSync(path.join(dir, "passwords"), "utf8");
      expect(passwords).toMatch(/^sensor\.terraza:\$7\$101\$/m);
      const acl = fs.readFileSync(path.join(dir, "acl"), "utf8");
      expect(acl).toContain("user sensor.terraza\ntopic write coliving/building/terraza/conditions\n");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

