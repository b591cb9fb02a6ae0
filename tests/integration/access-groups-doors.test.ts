// Access groups at the doors, through the real chain: card bytes on a mock
// serial reader → the bridge → MQTT (embedded aedes) → the access service and
// libSQL → the bridge → relay and LCD. A new resident's card opens the
// entrance at once through the default group and the gym only in its hours,
// online (the access service's clock) and offline (the bridge's own clock,
// moved by the test); the offline lists follow the groups' changes.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { LCUS1_OPEN } from "../../bridge/src/locks/lcus1";
import { eventually } from "../../bridge/src/test-support/eventually";
import { countOccurrences, MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { getAccessLog } from "~/models/access-log.server";
import { createAccessGroup, updateAccessGroup, updateAccessSettings } from "~/services/access-groups.server";
import { setCardPermission } from "~/services/cards.server";
import { provisionDoor } from "~/services/doors.server";
import { assignCard, createUser } from "~/services/users.server";
import { hexPrefix, unique } from "../setup/fixtures";
import { quietLogger, rdm6300Frame } from "../setup/door-chain";

// Monday 23 November 2026, 13:00 in Madrid; and the same Monday at 23:30 (the gym closed at 23:00).
const MONDAY_MIDDAY = new Date("2026-11-23T12:00:00Z");
const MONDAY_LATE = new Date("2026-11-23T22:30:00Z");
const GYM_HOURS = [{ days: [1, 2, 3, 4, 5, 6, 7], from: "06:00", to: "23:00" }];

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
let appNow = MONDAY_MIDDAY;
let access: AccessServiceHandle | null = null;
let port = 0;

async function startAccess() {
  access = await startAccessService({ host: "127.0.0.1", port, refreshIntervalMs: 60_000, credentialsDebounceMs: 20, clock: () => appNow });
  useAccessNotifier(access.notifier);
  port = access.mqttPort!;
}

async function stopAccess() {
  await access?.stop();
  access = null;
}

let doorCount = 0;
async function newDoor(name: string) {
  doorCount += 1;
  const { door, credential } = await provisionDoor(`groups-${doorCount}-${unique()}`, { name, location: "Pruebas" });
  const paths = { reader: `/dev/groups-reader-${doorCount}`, relay: `/dev/groups-relay-${doorCount}`, lcd: `/dev/groups-lcd-${doorCount}` };
  ports.create(paths.reader, paths.relay, paths.lcd);
  return { door, credential, paths, dataDir: await mkdtemp(path.join(tmpdir(), "groups-")), clock: { now: MONDAY_MIDDAY } };
}
type TestDoor = Awaited<ReturnType<typeof newDoor>>;

async function startDoorBridge(door: TestDoor) {
  const bridge = await startBridge(
    {
      doorId: door.door.code,
      mqtt: { url: `mqtt://127.0.0.1:${port}`, password: door.credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
      reader: { driver: "rdm6300", port: door.paths.reader },
      display: { driver: "serlcd", port: door.paths.lcd },
      lock: { driver: "lcus1", port: door.paths.relay },
      dataDir: door.dataDir,
      decisionTimeoutMs: 1000,
      displayHoldMs: 200,
    },
    { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test", clock: () => door.clock.now },
  );
  bridges.add(bridge);
  await eventually(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) > 0, `door ${door.door.name} online with its list`);
  return bridge;
}

/** A swipe a few seconds after the door's clock's last one (so that it is not a repeat of it). */
function swipeLater(bridge: BridgeHandle, door: TestDoor, card: string) {
  door.clock.now = new Date(door.clock.now.getTime() + 3000);
  return bridge.swipe(card);
}

const opens = (door: TestDoor) => countOccurrences(ports.written(door.paths.relay), LCUS1_OPEN);

/** A resident created as the admin's form does without choosing groups (the API: the default group), with a card assigned. */
async function newResidentWithCard() {
  const username = `res-${unique()}`;
  const created = await createUser({ username, email: `${username}@example.com`, password: "hórreo-de-la-abuela", role: "user", status: "active", firstName: "Xana" });
  if (!created.ok) throw new Error(created.message);
  const cardNumber = `${hexPrefix()}0A`;
  const assigned = await assignCard(created.user._id, { cardNumber, cardType: "primary" });
  if (!assigned.ok) throw new Error(assigned.message);
  return { user: created.user, card: assigned.card, cardNumber };
}

beforeAll(startAccess);
afterEach(async () => {
  await Promise.all([...bridges].map((bridge) => bridge.stop()));
  bridges.clear();
  if (!access) await startAccess();
});
afterAll(stopAccess);

describe("access groups at the doors", () => {
  it("a new resident's card opens the entrance at once through the default group, and the gym only in its hours (online)", async () => {
    const entrance = await newDoor("Entrada grupos");
    const gym = await newDoor("Gimnasio grupos");
    const group = await createAccessGroup({
      name: `Residentes ${unique()}`,
      doors: [
        { doorId: entrance.door.code, schedule: [] },
        { doorId: gym.door.code, schedule: GYM_HOURS },
      ],
    });
    if (!group.ok) throw new Error(group.message);
    await updateAccessSettings({ defaultAccessGroupId: group.group._id });
    try {
      const entranceBridge = await startDoorBridge(entrance);
      const gymBridge = await startDoorBridge(gym);
      const { cardNumber } = await newResidentWithCard();

      appNow = MONDAY_LATE;
      ports.emit(entrance.paths.reader, rdm6300Frame(cardNumber));
      await eventually(() => opens(entrance) === 1, "the entrance to open");
      await eventually(() => ports.text(entrance.paths.lcd).includes("Hola, Xana"), "the greeting");

      const late = await gymBridge.swipe(cardNumber);
      expect(late).toMatchObject({ granted: false, reason: "outside_schedule", offline: false });
      await eventually(() => ports.text(gym.paths.lcd).includes("Fuera de horario"), "'Fuera de horario' on the gym's LCD");
      expect(opens(gym)).toBe(0);
      await eventually(async () => (await getAccessLog(late!.id))?.reason === "outside_schedule", "the refusal in the log");

      appNow = MONDAY_MIDDAY;
      const midday = await swipeLater(gymBridge, gym, cardNumber);
      expect(midday).toMatchObject({ granted: true, reason: "granted", offline: false });
      expect(opens(gym)).toBe(1);
      expect(entranceBridge.status().connected).toBe(true);
    } finally {
      appNow = MONDAY_MIDDAY;
      await updateAccessSettings({ defaultAccessGroupId: "residentes" });
    }
  });

  it("offline, the bridge keeps the gym's hours by its own clock; the lists follow the group's changes", async () => {
    const gym = await newDoor("Gimnasio sin red");
    const group = await createAccessGroup({ name: `Gimnasio ${unique()}`, doors: [{ doorId: gym.door.code, schedule: GYM_HOURS }] });
    if (!group.ok) throw new Error(group.message);
    await updateAccessSettings({ defaultAccessGroupId: group.group._id });
    let cardNumber: string;
    try {
      ({ cardNumber } = await newResidentWithCard());
    } finally {
      await updateAccessSettings({ defaultAccessGroupId: "residentes" });
    }
    const bridge = await startDoorBridge(gym);

    await stopAccess();
    await eventually(() => !bridge.status().connected, "the bridge to notice");
    gym.clock.now = MONDAY_LATE;
    expect(await bridge.swipe(cardNumber)).toMatchObject({ granted: false, reason: "outside_schedule", offline: true });
    await eventually(() => ports.text(gym.paths.lcd).includes("Fuera de horario"), "'Fuera de horario' offline");
    expect(opens(gym)).toBe(0);
    gym.clock.now = new Date(MONDAY_LATE.getTime() + 8 * 3600_000); // Tuesday 07:30
    expect(await bridge.swipe(cardNumber)).toMatchObject({ granted: true, reason: "granted", offline: true });
    expect(opens(gym)).toBe(1);

    // Back online: the door's events are logged with their reasons; the gym leaves the group, and the new list refuses the card.
    await startAccess();
    await eventually(() => bridge.status().connected && bridge.status().pendingEvents === 0, "the events delivered", 8000);
    const version = bridge.status().credentialsVersion ?? 0;
    await updateAccessGroup(group.group._id, { doors: [] });
    await eventually(() => (bridge.status().credentialsVersion ?? 0) > version, "the new list without the card");
    await stopAccess();
    await eventually(() => !bridge.status().connected, "the bridge to notice");
    expect(await swipeLater(bridge, gym, cardNumber)).toMatchObject({ granted: false, reason: "unknown_card", offline: true });
  });

  it("a card permission with its own timetable, and an explicit denial that shuts the group's way", async () => {
    const door = await newDoor("Sala grupos");
    const group = await createAccessGroup({ name: `Sala ${unique()}`, doors: [{ doorId: door.door.code, schedule: [] }] });
    if (!group.ok) throw new Error(group.message);
    await updateAccessSettings({ defaultAccessGroupId: group.group._id });
    let resident;
    try {
      resident = await newResidentWithCard();
    } finally {
      await updateAccessSettings({ defaultAccessGroupId: "residentes" });
    }
    const bridge = await startDoorBridge(door);
    expect(await swipeLater(bridge, door, resident.cardNumber)).toMatchObject({ granted: true, offline: false });
    await setCardPermission(resident.card._id, door.door.id, false);
    expect(await swipeLater(bridge, door, resident.cardNumber)).toMatchObject({ granted: false, reason: "no_permission", offline: false });
  });
});
