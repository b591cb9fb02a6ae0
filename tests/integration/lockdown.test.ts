// The building's lockdown through the real chain (bridges on mock serial
// ports, embedded broker, access service, libSQL): every connected door shows
// 'CERRADO' within a second, only an emergency card opens (online and from the
// offline list), and lifting it gives each door back its status and messages.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { eventually } from "../../bridge/src/test-support/eventually";
import { MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { getDoorById } from "~/models/door.server";
import * as lockdownRoute from "~/routes/api.building.lockdown";
import { setCardPermission } from "~/services/cards.server";
import { provisionDoor, setDoorMessages, updateDoor } from "~/services/doors.server";
import { assignCard } from "~/services/users.server";
import { createApiCallers, createTestUser, hexPrefix, sessionCookie, toastOf, unique } from "../setup/fixtures";
import * as dashboard from "~/routes/admin._index";
import { callApi, callRoute, formPost, pageRequest } from "../setup/route";
import { quietLogger, RestartableAccessService } from "../setup/door-chain";

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
const access = new RestartableAccessService();
let adminToken: string;
let adminCookie: string;
let count = 0;

async function newDoor() {
  count += 1;
  const { door, credential } = await provisionDoor(`lock-${count}-${unique()}`, { name: `Puerta bloqueo ${count}`, location: "Pruebas" });
  const paths = { reader: `/dev/lock-reader-${count}`, relay: `/dev/lock-relay-${count}`, lcd: `/dev/lock-lcd-${count}` };
  ports.create(paths.reader, paths.relay, paths.lcd);
  const dataDir = await mkdtemp(path.join(tmpdir(), "lock-"));
  const clock = { now: new Date() };
  const bridge = await startBridge(
    {
      doorId: door.code,
      mqtt: { url: `mqtt://127.0.0.1:${access.port}`, password: credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
      reader: { driver: "rdm6300", port: paths.reader },
      display: { driver: "serlcd", port: paths.lcd },
      lock: { driver: "lcus1", port: paths.relay },
      dataDir,
      decisionTimeoutMs: 1000,
      displayHoldMs: 200,
    },
    { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test", clock: () => clock.now },
  );
  bridges.add(bridge);
  await eventually(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) > 0, "the bridge online with its list");
  /** A swipe a few seconds after the last one (not a repeat). */
  const swipe = (card: string) => {
    clock.now = new Date(clock.now.getTime() + 3000);
    return bridge.swipe(card);
  };
  return { door, paths, bridge, swipe };
}

async function cardOf(type: "primary" | "emergency") {
  const user = await createTestUser();
  const assigned = await assignCard(user.id, { cardNumber: `${hexPrefix()}${type === "emergency" ? "EE" : "01"}`, cardType: type });
  if (!assigned.ok) throw new Error(assigned.message);
  return assigned.card;
}

const lockdown = (body: unknown) => callApi(lockdownRoute.action, "/api/building/lockdown", { method: "POST", token: adminToken, body });

beforeAll(async () => {
  const callers = await createApiCallers();
  adminToken = callers.adminToken;
  adminCookie = await sessionCookie(callers.admin.id);
  await access.start();
});
afterEach(async () => {
  await Promise.all([...bridges].map((bridge) => bridge.stop()));
  bridges.clear();
  if (!access.running) await access.start();
});
afterAll(() => access.stop());

describe("lockdown", () => {
  it("reaches every door within a second, lets only emergency cards in (online and offline), and lifting restores each door", async () => {
    const hall = await newDoor();
    const gym = await newDoor();
    await setDoorMessages(hall.door.id, { useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Hola casa" });
    await updateDoor(gym.door.id, { status: "maintenance" });
    const resident = await cardOf("primary");
    const emergency = await cardOf("emergency");
    for (const door of [hall, gym]) await setCardPermission(resident._id, door.door.id, true);
    const hallBefore = await getDoorById(hall.door.id);
    const gymBefore = await getDoorById(gym.door.id);
    expect(await hall.swipe(resident.cardNumber)).toMatchObject({ granted: true });

    expect((await lockdown({ active: true, reason: "" })).status).toBe(400);
    const started = await lockdown({ active: true, reason: "Simulacro de incendio" });
    expect(started.body.data).toMatchObject({ active: true, reason: "Simulacro de incendio" });
    for (const door of [hall, gym]) {
      await eventually(() => ports.text(door.paths.lcd).includes("CERRADO"), `'CERRADO' on ${door.door.name}`, 1000);
    }
    expect(await hall.swipe(resident.cardNumber)).toMatchObject({ granted: false, reason: "door_emergency" });
    expect(await gym.swipe(emergency.cardNumber)).toMatchObject({ granted: true, offline: false });

    // Offline, the lists the doors hold now carry the emergency cards only.
    const version = hall.bridge.status().credentialsVersion ?? 0;
    await eventually(() => (hall.bridge.status().credentialsVersion ?? 0) >= version, "the lockdown list");
    await access.stop();
    await eventually(() => !hall.bridge.status().connected, "the bridge to notice");
    expect(await hall.swipe(emergency.cardNumber)).toMatchObject({ granted: true, offline: true });
    expect(await hall.swipe(resident.cardNumber)).toMatchObject({ granted: false, offline: true });
    await access.start();
    await eventually(() => hall.bridge.status().connected, "the bridge back");

    expect((await lockdown({ active: false })).body.data).toMatchObject({ active: false });
    await eventually(() => ports.text(hall.paths.lcd).lastIndexOf("Hola casa") > ports.text(hall.paths.lcd).lastIndexOf("CERRADO"), "the hall's messages back", 1000);
    for (const [door, before] of [
      [hall, hallBefore],
      [gym, gymBefore],
    ] as const) {
      expect(await getDoorById(door.door.id)).toMatchObject({
        status: before!.status,
        useCustomMessages: before!.useCustomMessages,
        customStatus: before!.customStatus,
        customMessage: before!.customMessage,
      });
    }
    expect(await hall.swipe(resident.cardNumber)).toMatchObject({ granted: true, offline: false });
  });
});

describe("the dashboard's 'Bloqueo general' (a plain form, with or without JavaScript)", () => {
  it("asks for a reason, starts the lockdown, shows it and lifts it", async () => {
    const door = await newDoor();
    const refused = await callRoute(dashboard.action, formPost("/admin?modal=lockdown", adminCookie, { intent: "start-lockdown", reason: " " }));
    expect(refused.status).toBe(400);
    expect((await toastOf(refused))?.description).toBe("Indica el motivo del bloqueo");

    const started = await callRoute(dashboard.action, formPost("/admin?modal=lockdown", adminCookie, { intent: "start-lockdown", reason: "Aviso de bomba" }));
    expect(started.status).toBe(302);
    expect((await toastOf(started))?.title).toBe("Bloqueo general activado");
    const page = await (await callRoute(dashboard.loader, pageRequest("/admin", adminCookie))).json();
    expect(page.lockdown).toMatchObject({ active: true, reason: "Aviso de bomba" });
    await eventually(() => ports.text(door.paths.lcd).includes("CERRADO"), "'CERRADO' on the door", 1000);

    const lifted = await callRoute(dashboard.action, formPost("/admin", adminCookie, { intent: "lift-lockdown" }));
    expect((await toastOf(lifted))?.title).toBe("Bloqueo general levantado");
    expect((await getDoorById(door.door.id))?.status).toBe("active");
  });
});
