// The whole door chain with real parts: card bytes on a mock serial reader →
// the bridge → MQTT (embedded aedes) → the app's access service and libSQL →
// the bridge → relay and LCD bytes on mock serial ports.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BridgeConfigInput } from "../../bridge/src/config";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import type { Logger } from "../../bridge/src/logger";
import { LCUS1_OPEN } from "../../bridge/src/locks/lcus1";
import { TestBroker } from "../../bridge/src/test-support/broker";
import { eventually } from "../../bridge/src/test-support/eventually";
import { countOccurrences, MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { countAccessLogs, getAccessLog } from "~/models/access-log.server";
import { registerCard } from "~/models/card.server";
import { provisionBuildingSensor } from "~/services/building-sensors.server";
import { removeCardPermission, setCardPermission } from "~/services/cards.server";
import { provisionDoor, setDoorMessages } from "~/services/doors.server";
import { quietLogger, rdm6300Frame, RestartableAccessService } from "../setup/door-chain";

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
let doorCount = 0;

const access = new RestartableAccessService();

async function newDoor() {
  doorCount += 1;
  const { door, credential } = await provisionDoor(`chain-${doorCount}`, { name: `Puerta ${doorCount}`, location: "Pruebas" });
  const paths = { reader: `/dev/chain-reader-${doorCount}`, relay: `/dev/chain-relay-${doorCount}`, lcd: `/dev/chain-lcd-${doorCount}` };
  ports.create(paths.reader, paths.relay, paths.lcd);
  return { door, credential, paths, dataDir: await mkdtemp(path.join(tmpdir(), "chain-")) };
}

type TestDoor = Awaited<ReturnType<typeof newDoor>>;

async function startDoorBridge(door: TestDoor, overrides: Partial<BridgeConfigInput> = {}, logger: Logger = quietLogger) {
  const bridge = await startBridge(
    {
      doorId: door.door.code,
      mqtt: { url: `mqtt://127.0.0.1:${access.port}`, password: door.credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
      reader: { driver: "rdm6300", port: door.paths.reader },
      display: { driver: "serlcd", port: door.paths.lcd },
      lock: { driver: "lcus1", port: door.paths.relay },
      dataDir: door.dataDir,
      decisionTimeoutMs: 1000,
      displayHoldMs: 200,
      ...overrides,
    },
    { serialPortFactory: ports.factory, logger, version: "0.0.0-test" },
  );
  bridges.add(bridge);
  return bridge;
}

async function stopBridge(bridge: BridgeHandle) {
  bridges.delete(bridge);
  await bridge.stop();
}

async function activeCard(door: TestDoor, cardNumber: string) {
  const card = await registerCard({ cardNumber, status: "active" });
  await setCardPermission(card.id, door.door.id, true);
  return card;
}

const opens = (door: TestDoor) => countOccurrences(ports.written(door.paths.relay), LCUS1_OPEN);

beforeAll(() => access.start());
afterEach(async () => {
  await Promise.all([...bridges].map(stopBridge));
  if (!access.running) await access.start();
});
afterAll(() => access.stop());

describe("bridge and access service", () => {
  it("opens the lock for a permitted card and shows the decision; a denied card opens nothing", async () => {
    const door = await newDoor();
    await activeCard(door, "004E2B4E");
    const bridge = await startDoorBridge(door);
    await eventually(() => bridge.status().connected, "bridge to connect");
    const logsBefore = await countAccessLogs();

    ports.emit(door.paths.reader, rdm6300Frame("004E2B4E"));
    await eventually(() => opens(door) === 1, "the relay to open");
    await eventually(() => ports.text(door.paths.lcd).includes("Bienvenido/a"), "the greeting on the LCD");

    ports.emit(door.paths.reader, rdm6300Frame("0012D687"));
    await eventually(() => ports.text(door.paths.lcd).includes("Acceso denegado"), "the denial on the LCD");
    expect(opens(door)).toBe(1);
    // The app answers before its commit: both rows follow their decisions.
    await eventually(async () => (await countAccessLogs()) >= logsBefore + 2, "both swipes in the access log", 3000);
  });

  it("shows new door messages on the LCD within a second", async () => {
    const door = await newDoor();
    const bridge = await startDoorBridge(door);
    await eventually(() => bridge.status().connected, "bridge to connect");
    await setDoorMessages(door.door.id, { useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Hola casa" });
    await eventually(() => ports.text(door.paths.lcd).includes("Hola casa") && ports.text(door.paths.lcd).includes("ABIERTO"), "the new messages", 1000);
  });

  it("decides from the offline list while the broker is down, keeps the queue across a restart, and logs each event once", async () => {
    const door = await newDoor();
    await activeCard(door, "A1B2C3D4");
    let bridge = await startDoorBridge(door);
    await eventually(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) > 0, "the offline list");
    const logsBefore = await countAccessLogs();

    await access.stop();
    await eventually(() => !bridge.status().connected, "the bridge to notice");
    ports.emit(door.paths.reader, rdm6300Frame("A1B2C3D4"));
    await eventually(() => opens(door) === 1, "an offline grant");
    ports.emit(door.paths.reader, rdm6300Frame("0BADCAFE"));
    await eventually(() => bridge.status().pendingEvents === 2, "two queued events");

    await stopBridge(bridge);
    bridge = await startDoorBridge(door);
    expect(bridge.status().pendingEvents).toBe(2);

    await access.start();
    await eventually(() => bridge.status().pendingEvents === 0, "the queue to drain", 8000);
    await eventually(async () => (await countAccessLogs()) >= logsBefore + 2, "both swipes in the access log", 3000);
    expect(await countAccessLogs()).toBe(logsBefore + 2);
  });

  it("keeps offline events until the app's receipts, even when first sent to a broker the app was not on", async () => {
    const door = await newDoor();
    const logLines: string[] = [];
    const log = (message: string) => logLines.push(message);
    const bridge = await startDoorBridge(door, { eventResendMs: 300 }, { debug: log, info: log, warn: log, error: log });
    await eventually(() => bridge.status().connected, "bridge to connect");

    // The app goes down; the door decides three swipes by itself (unknown cards: denied).
    await access.stop();
    await eventually(() => !bridge.status().connected, "the bridge to notice");
    const outcomes = [await bridge.swipe("B0B0B001"), await bridge.swipe("B0B0B002"), await bridge.swipe("B0B0B003")];
    expect(outcomes.map((outcome) => outcome?.offline)).toEqual([true, true, true]);
    const ids = outcomes.map((outcome) => outcome?.id ?? "");
    expect(bridge.status().pendingEvents).toBe(3);

    // A broker comes back on the same port without the app (as after a restart, before the
    // app's client has subscribed): the broker acknowledges every event, and nobody reads them.
    const bare = await TestBroker.create(access.port);
    try {
      await eventually(() => ids.every((id) => logLines.includes(`offline event ${id} sent`)), "the events sent to a broker without the app");
      expect(bridge.status().pendingEvents).toBe(3);
    } finally {
      await bare.close();
    }
    await eventually(() => !bridge.status().connected, "the bridge to lose the bare broker");

    // The app is back: the bridge sends its queue again, and drops each event on its receipt.
    await access.start();
    await eventually(() => bridge.status().pendingEvents === 0, "the receipts", 8000);
    for (const id of ids) {
      expect(await getAccessLog(id)).toMatchObject({ offline: true, doorCode: door.door.code, accessGranted: false, reason: "unknown_card" });
    }
  });

  it("refuses a revoked card offline once the new list has arrived", async () => {
    const door = await newDoor();
    const card = await activeCard(door, "CAFE0001");
    const bridge = await startDoorBridge(door);
    await eventually(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) > 0, "the offline list");
    const versionWithCard = bridge.status().credentialsVersion ?? 0;

    await removeCardPermission(card.id, door.door.id);
    await eventually(() => (bridge.status().credentialsVersion ?? 0) > versionWithCard, "the updated list");

    await access.stop();
    await eventually(() => !bridge.status().connected, "the bridge to notice");
    ports.emit(door.paths.reader, rdm6300Frame("CAFE0001"));
    await eventually(() => bridge.status().pendingEvents === 1, "the offline decision");
    expect(opens(door)).toBe(0);
  });

  it("keeps its client id: a sensor or another door presenting it is refused, and cannot lock the bridge out", async () => {
    const door = await newDoor();
    const other = await newDoor();
    await activeCard(door, "5C0A7001");
    const sensor = await provisionBuildingSensor(`chain-squatter-${doorCount}`);
    // The id the real bridge connects with; a squatter tries it with a kept session, then leaves.
    const squat = (username: string, password: string) =>
      mqtt.connectAsync(`mqtt://127.0.0.1:${access.port}`, {
        username,
        password,
        clientId: `coliving-bridge-${door.door.code}`,
        clean: false,
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 3000,
      });
    for (const [username, password] of [
      [sensor.username, sensor.password],
      [other.door.code, other.credential.password],
    ] as const) {
      const squatter = await squat(username, password).catch((error: Error) => error);
      if (!(squatter instanceof Error)) await squatter.endAsync();
      expect(squatter).toBeInstanceOf(Error);
      expect((squatter as Error).message).toMatch(/Identifier rejected/i);
    }

    const bridge = await startDoorBridge(door);
    await eventually(() => bridge.status().connected, "bridge to connect");
    ports.emit(door.paths.reader, rdm6300Frame("5C0A7001"));
    await eventually(() => opens(door) === 1, "the relay to open");
    // Decided by the app (an offline decision says OFFLINE MODE).
    await eventually(() => ports.text(door.paths.lcd).includes("Bienvenido/a"), "the app's greeting on the LCD");
    // While it is connected, nobody else can take its id and drop it.
    await expect(squat(other.door.code, other.credential.password)).rejects.toThrow(/Identifier rejected/i);
    expect(bridge.status().connected).toBe(true);
  });
});
