// Doors on a timetable (office mode), through the real chain: the bridge on
// mock serial ports (reader, LCUS-1 relay, LCD) → MQTT (embedded aedes) → the
// access service and libSQL, and back. The bridge applies the door's unlock
// timetable by its own clock, which the test moves: the relay is held
// released inside it and shut outside it, on a holiday it stays shut unless
// the door opens on holidays, lockdown suspends it, and with first-person-in
// it waits for the day's first granted card — online (the access service
// knows of the grant) and offline (the bridge by its own grants).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { LCUS1_CLOSE, LCUS1_OPEN } from "../../bridge/src/locks/lcus1";
import { eventually } from "../../bridge/src/test-support/eventually";
import { MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import type { WeeklySchedule } from "~/doors/schedule";
import { getDoorById } from "~/models/door.server";
import { setCardPermission } from "~/services/cards.server";
import { provisionDoor, updateDoor } from "~/services/doors.server";
import { createHoliday, deleteHoliday } from "~/services/holidays.server";
import { assignCard, createUser } from "~/services/users.server";
import { hexPrefix, unique } from "../setup/fixtures";
import { quietLogger } from "../setup/door-chain";

/** An instant of the week of Monday 23 November 2026 in Madrid (UTC+1): day 1 = Monday. */
const madrid = (day: number, time: string) => new Date(`2026-11-${String(22 + day).padStart(2, "0")}T${time}:00+01:00`);
const OFFICE_HOURS: WeeklySchedule = [{ days: [1, 2, 3, 4, 5], from: "09:00", to: "18:00" }];

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
let access: AccessServiceHandle | null = null;
let port = 0;
/** The app's clock: Monday morning (holidays are sent from its today on) unless a test moves it. */
let appNow = madrid(1, "08:00");

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
async function newDoor(name: string, timetable: { firstPersonIn?: boolean; unlockOnHolidays?: boolean } = {}) {
  doorCount += 1;
  const { door, credential } = await provisionDoor(`office-${doorCount}-${unique()}`, { name, location: "Pruebas" });
  const updated = await updateDoor(door.id, { unlockSchedule: OFFICE_HOURS, unlockOnHolidays: false, firstPersonIn: false, ...timetable });
  if (!updated.ok) throw new Error(updated.message);
  const paths = { reader: `/dev/office-reader-${doorCount}`, relay: `/dev/office-relay-${doorCount}`, lcd: `/dev/office-lcd-${doorCount}` };
  ports.create(paths.reader, paths.relay, paths.lcd);
  return { door, credential, paths, dataDir: await mkdtemp(path.join(tmpdir(), "office-")), clock: { now: madrid(1, "08:30") } };
}
type TestDoor = Awaited<ReturnType<typeof newDoor>>;

async function startDoorBridge(door: TestDoor, { listVersion = 1 } = {}) {
  const bridge = await startBridge(
    {
      doorId: door.door.code,
      mqtt: { url: `mqtt://127.0.0.1:${port}`, password: door.credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
      reader: { driver: "rdm6300", port: door.paths.reader },
      display: { driver: "serlcd", port: door.paths.lcd },
      lock: { driver: "lcus1", port: door.paths.relay },
      dataDir: door.dataDir,
      decisionTimeoutMs: 1000,
      displayHoldMs: 100,
      unlockMs: 100,
      timetableCheckMs: 20,
    },
    { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test", clock: () => door.clock.now },
  );
  bridges.add(bridge);
  await eventually(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) >= listVersion, `door ${door.door.name} online with its list`);
  return bridge;
}

/** The relay's last command was "open" (held released) or "close". */
function relay(door: TestDoor) {
  const written = ports.written(door.paths.relay);
  return written.lastIndexOf(LCUS1_OPEN) > written.lastIndexOf(LCUS1_CLOSE) ? "open" : "closed";
}

/** Moves the door's clock and waits for the bridge to apply its timetable: held released or shut. */
async function at(bridge: BridgeHandle, door: TestDoor, when: Date, expected: "unlocked" | "locked" | "lockdown", what: string) {
  door.clock.now = when;
  await eventually(() => bridge.status().mode.mode === expected && relay(door) === (expected === "unlocked" ? "open" : "closed"), what);
}

async function residentCardFor(door: TestDoor) {
  const username = `office-${unique()}`;
  const created = await createUser({ username, email: `${username}@example.com`, password: "hórreo-de-la-abuela", role: "user", status: "active", firstName: "Pelayo", accessGroups: [] });
  if (!created.ok) throw new Error(created.message);
  const cardNumber = `${hexPrefix()}0B`;
  const assigned = await assignCard(created.user._id, { cardNumber, cardType: "primary" });
  if (!assigned.ok) throw new Error(assigned.message);
  const before = (await getDoorById(door.door.id))!.credentialsVersion;
  const permitted = await setCardPermission(assigned.card._id, door.door.id, true);
  if (!permitted.ok) throw new Error(permitted.message);
  // The door's offline list with the card is published (debounced) before its bridge starts.
  const version = await eventually(async () => {
    const now = (await getDoorById(door.door.id))!.credentialsVersion;
    return now > before ? now : null;
  }, "the door's list with the card");
  return { cardNumber, version };
}

/** A swipe a few seconds after the door's clock's last one (so that it is not a repeat of it). */
function swipeLater(bridge: BridgeHandle, door: TestDoor, card: string) {
  door.clock.now = new Date(door.clock.now.getTime() + 3000);
  return bridge.swipe(card);
}

beforeAll(startAccess);
afterEach(async () => {
  await Promise.all([...bridges].map((bridge) => bridge.stop()));
  bridges.clear();
  appNow = madrid(1, "08:00");
  if (!access) await startAccess();
});
afterAll(stopAccess);

describe("doors on a timetable (online)", () => {
  it("unlocks at 09:00 and locks at 18:00 by the bridge's clock, shows it, and lockdown suspends it", async () => {
    const door = await newDoor("Coworking horario");
    const bridge = await startDoorBridge(door);
    expect(bridge.status().mode).toEqual({ mode: "locked" });
    expect(relay(door)).toBe("closed");

    await at(bridge, door, madrid(1, "09:00"), "unlocked", "the door released at 09:00");
    expect(bridge.status().mode).toEqual({ mode: "unlocked", until: "18:00" });
    await eventually(() => ports.text(door.paths.lcd).includes("PUERTA ABIERTA") && ports.text(door.paths.lcd).includes("hasta las 18:00"), "the LCD saying so");

    await at(bridge, door, madrid(1, "18:00"), "locked", "the door shut at 18:00");

    await at(bridge, door, madrid(2, "10:00"), "unlocked", "released again on Tuesday morning");
    const lockdown = await updateDoor(door.door.id, { status: "emergency" });
    expect(lockdown.ok).toBe(true);
    await at(bridge, door, madrid(2, "10:01"), "lockdown", "lockdown shuts it inside the timetable");
    await updateDoor(door.door.id, { status: "active" });
    await at(bridge, door, madrid(2, "10:02"), "unlocked", "released again when lifted");
  });

  it("stays locked on a holiday, unless the door opens on holidays", async () => {
    const door = await newDoor("Entrada festivos");
    const bridge = await startDoorBridge(door);
    await at(bridge, door, madrid(2, "10:00"), "unlocked", "released on Tuesday morning");

    const holiday = await createHoliday({ day: "2026-11-24", name: `Festivo ${unique()}` });
    if (!holiday.ok) throw new Error(holiday.message);
    try {
      await at(bridge, door, madrid(2, "10:01"), "locked", "shut: Tuesday is now a holiday");
      await updateDoor(door.door.id, { unlockOnHolidays: true });
      await at(bridge, door, madrid(2, "10:02"), "unlocked", "released: this door opens on holidays");
    } finally {
      await deleteHoliday(holiday.holiday._id);
    }
  });

  it("with first-person-in waits for the day's first granted card; the access service knows it", async () => {
    const door = await newDoor("Oficina primera", { firstPersonIn: true });
    const { cardNumber: card } = await residentCardFor(door);
    door.clock.now = madrid(3, "10:00");
    appNow = madrid(3, "10:00");
    const bridge = await startDoorBridge(door);
    // A marker: an unknown card's denial comes after the retained display was applied.
    expect(await swipeLater(bridge, door, `${hexPrefix()}0C`)).toMatchObject({ granted: false, offline: false });
    expect(bridge.status().mode).toEqual({ mode: "locked" });
    expect(relay(door)).toBe("closed");

    expect(await swipeLater(bridge, door, card)).toMatchObject({ granted: true, offline: false });
    await eventually(() => bridge.status().mode.mode === "unlocked" && relay(door) === "open", "released after the first card");

    // A bridge restarted without its own memory of the grant learns it from the app's retained display.
    await bridge.stop();
    bridges.delete(bridge);
    const fresh = await startDoorBridge({ ...door, dataDir: await mkdtemp(path.join(tmpdir(), "office-")) });
    await eventually(() => fresh.status().mode.mode === "unlocked" && relay(door) === "open", "released at once: the app knew of the first card");
  });
});

describe("doors on a timetable (offline)", () => {
  it("keeps the timetable and the holidays by the bridge's own clock while the app is away", async () => {
    const door = await newDoor("Entrada sin red");
    const holiday = await createHoliday({ day: "2026-11-26", name: `Festivo ${unique()}` });
    if (!holiday.ok) throw new Error(holiday.message);
    try {
      door.clock.now = madrid(3, "08:00");
      const bridge = await startDoorBridge(door);
      await stopAccess();
      await eventually(() => !bridge.status().connected, "the bridge to notice");

      await at(bridge, door, madrid(3, "09:00"), "unlocked", "released at 09:00 offline");
      await at(bridge, door, madrid(4, "10:00"), "locked", "shut on Thursday, a holiday");
      await at(bridge, door, madrid(5, "10:00"), "unlocked", "released on Friday");
      await at(bridge, door, madrid(5, "18:00"), "locked", "shut at 18:00");
      await at(bridge, door, madrid(6, "10:00"), "locked", "shut on Saturday");
    } finally {
      await deleteHoliday(holiday.holiday._id);
    }
  });

  it("with first-person-in waits for the first card it grants itself, each day", async () => {
    const door = await newDoor("Oficina sin red", { firstPersonIn: true });
    const { cardNumber: card, version } = await residentCardFor(door);
    door.clock.now = madrid(2, "08:00");
    const bridge = await startDoorBridge(door, { listVersion: version });
    await stopAccess();
    await eventually(() => !bridge.status().connected, "the bridge to notice");

    door.clock.now = madrid(2, "10:00");
    expect(await swipeLater(bridge, door, card)).toMatchObject({ granted: true, offline: true });
    await eventually(() => bridge.status().mode.mode === "unlocked" && relay(door) === "open", "released after the first card offline");

    await at(bridge, door, madrid(3, "10:00"), "locked", "a new day: shut until its first card");
    expect(await swipeLater(bridge, door, card)).toMatchObject({ granted: true, offline: true });
    await eventually(() => bridge.status().mode.mode === "unlocked" && relay(door) === "open", "released after Wednesday's first card");
  });
});
