// A facility booking opens the door linked to its facility, through the
// whole chain with real parts (as bridge-app.test.ts): card bytes on a mock
// serial reader → the bridge → MQTT (embedded aedes) → the access service
// and libSQL → the bridge → relay. Online: granted inside the booking's
// window (15 minutes before the start until the end), denied outside it,
// with the reason in the log. Offline: the door's list carries the windows,
// and the bridge applies them by itself.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { LCUS1_OPEN } from "../../bridge/src/locks/lcus1";
import { eventually } from "../../bridge/src/test-support/eventually";
import { countOccurrences, MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { getAccessLog } from "~/models/access-log.server";
import { assignCardToUser } from "~/models/card.server";
import { getDoorById } from "~/models/door.server";
import { setCardPermission } from "~/services/cards.server";
import { BOOKING_WINDOW_LEAD_MS, OFFLINE_WINDOW_HORIZON_MS } from "~/doors/rules";
import { listBookingWindowCardsForDoor } from "~/models/facility-booking.server";
import { provisionDoor, updateDoor } from "~/services/doors.server";
import { cancelResidentBooking, createResidentBooking } from "~/services/facility-bookings.server";
import { quietLogger, rdm6300Frame, RestartableAccessService } from "../setup/door-chain";
import { bookingRequest, createTestDoor, createTestFacility, createTestResident, hexPrefix, minutesFromNow } from "../setup/fixtures";

const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
let doorCount = 0;

const access = new RestartableAccessService();

/** A door linked to a facility of its own, with its bridge on mock serial ports. */
async function gymDoor() {
  doorCount += 1;
  const facility = await createTestFacility("gym");
  const { door, credential } = await provisionDoor(`gym-${hexPrefix(2).toLowerCase()}-${doorCount}`, { name: `Gimnasio ${doorCount}`, location: "Sótano" });
  const linked = await updateDoor(door.id, { facilityId: facility.id });
  if (!linked.ok) throw new Error(linked.message);
  const paths = { reader: `/dev/gym-reader-${doorCount}`, relay: `/dev/gym-relay-${doorCount}`, lcd: `/dev/gym-lcd-${doorCount}` };
  ports.create(paths.reader, paths.relay, paths.lcd);
  const bridge = await startBridge(
    {
      doorId: door.code,
      mqtt: { url: `mqtt://127.0.0.1:${access.port}`, password: credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
      reader: { driver: "rdm6300", port: paths.reader },
      display: { driver: "serlcd", port: paths.lcd },
      lock: { driver: "lcus1", port: paths.relay },
      dataDir: await mkdtemp(path.join(tmpdir(), "gym-")),
      decisionTimeoutMs: 1000,
      displayHoldMs: 200,
    },
    { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test" },
  );
  bridges.add(bridge);
  await eventually(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) > 0, "the bridge and its offline list");
  return { facility, door, paths, bridge };
}

/** An active card (8 hex digits, as the reader gives them) for the resident. */
async function newCard(residentId: string) {
  return (await assignCardToUser(residentId, { cardNumber: `${hexPrefix(3)}${hexPrefix(1)}` })).card;
}

/**
 * A resident with two active cards: a booking opens the door to each of
 * them (and the bridge ignores the same card again within 2 s).
 */
async function residentWithCard() {
  const resident = await createTestResident();
  return { resident, card: await newCard(resident.id), spare: await newCard(resident.id) };
}

async function book(resident: { id: string }, facilityId: string, startsAt: Date) {
  const booked = await createResidentBooking(resident, bookingRequest(facilityId, "gym", startsAt, 1));
  if (!booked.ok) throw new Error(booked.message);
  return booked.booking;
}

/** Waits for the door's offline list to be republished (after a booking change). */
async function nextList(bridge: BridgeHandle, after: number) {
  await eventually(() => (bridge.status().credentialsVersion ?? 0) > after, "the republished offline list");
}

/** The bridge holds the door's latest list (nothing published is still on its way); answers its version. */
async function settledList(bridge: BridgeHandle, doorId: string) {
  return eventually(async () => {
    const published = (await getDoorById(doorId))?.credentialsVersion;
    return published !== undefined && bridge.status().credentialsVersion === published ? published : null;
  });
}

beforeAll(() => access.start());
afterEach(async () => {
  await Promise.all(
    [...bridges].map(async (bridge) => {
      bridges.delete(bridge);
      await bridge.stop();
    }),
  );
  if (!access.running) await access.start();
});
afterAll(() => access.stop());

describe("a booking's window at the linked door", () => {
  it("opens the door online inside the window and refuses outside it, saying why in the log", async () => {
    const gym = await gymDoor();
    const inside = await residentWithCard();
    const outside = await residentWithCard();
    const none = await residentWithCard();
    // Starts in 10 minutes: the window opened 5 minutes ago.
    await book(inside.resident, gym.facility.id, minutesFromNow(10));
    // Starts in 2 hours: its window opens in 1 h 45 min.
    await book(outside.resident, gym.facility.id, minutesFromNow(120));

    ports.emit(gym.paths.reader, rdm6300Frame(inside.card.cardNumber));
    await eventually(() => countOccurrences(ports.written(gym.paths.relay), LCUS1_OPEN) === 1, "the relay to open for the booking");
    await eventually(() => ports.text(gym.paths.lcd).includes("Hola, Marta"), "the greeting");

    const granted = await gym.bridge.swipe(inside.spare.cardNumber);
    expect(granted).toMatchObject({ granted: true, reason: "booking_window", offline: false });
    // The app answers before its commit: the row follows the decision.
    expect(await eventually(() => getAccessLog(granted!.id))).toMatchObject({ accessGranted: true, reason: "booking_window", doorId: gym.door.id });

    const early = await gym.bridge.swipe(outside.card.cardNumber);
    expect(early).toMatchObject({ granted: false, reason: "outside_booking_window", offline: false });
    expect(await eventually(() => getAccessLog(early!.id))).toMatchObject({ accessGranted: false, reason: "outside_booking_window" });
    await eventually(() => ports.text(gym.paths.lcd).includes("Fuera de reserva"), "the denial's reason on the LCD");

    expect(await gym.bridge.swipe(none.card.cardNumber)).toMatchObject({ granted: false, reason: "no_permission" });
  });

  it("keeps a standing permission and an explicit denial as they are", async () => {
    const gym = await gymDoor();
    const allowed = await residentWithCard();
    const banned = await residentWithCard();
    await setCardPermission(allowed.card.id, gym.door.id, true);
    await setCardPermission(banned.card.id, gym.door.id, false);
    await book(allowed.resident, gym.facility.id, minutesFromNow(180));
    await book(banned.resident, gym.facility.id, minutesFromNow(5));
    expect(await gym.bridge.swipe(allowed.card.cardNumber)).toMatchObject({ granted: true, reason: "granted" });
    expect(await gym.bridge.swipe(banned.card.cardNumber)).toMatchObject({ granted: false, reason: "no_permission" });
  });

  it("reaches the door's offline list, which the bridge applies while the app is away, and leaves it when cancelled", async () => {
    const gym = await gymDoor();
    const inside = await residentWithCard();
    const outside = await residentWithCard();
    let version = await settledList(gym.bridge, gym.door.id);
    const insideBooking = await book(inside.resident, gym.facility.id, minutesFromNow(14));
    await nextList(gym.bridge, version);
    version = await settledList(gym.bridge, gym.door.id);
    await book(outside.resident, gym.facility.id, minutesFromNow(240));
    await nextList(gym.bridge, version);

    await access.stop();
    await eventually(() => !gym.bridge.status().connected, "the bridge to notice the app is gone");
    const offlineGrant = await gym.bridge.swipe(inside.card.cardNumber);
    expect(offlineGrant).toMatchObject({ granted: true, reason: "booking_window", offline: true });
    const offlineDenial = await gym.bridge.swipe(outside.card.cardNumber);
    expect(offlineDenial).toMatchObject({ granted: false, reason: "outside_booking_window", offline: true });
    expect(countOccurrences(ports.written(gym.paths.relay), LCUS1_OPEN)).toBe(1);

    // Back online: the door's events reach the log with their reasons.
    await access.start();
    await eventually(() => gym.bridge.status().pendingEvents === 0, "the offline events to be receipted", 8000);
    expect(await getAccessLog(offlineGrant!.id)).toMatchObject({ offline: true, accessGranted: true, reason: "booking_window" });
    expect(await getAccessLog(offlineDenial!.id)).toMatchObject({ offline: true, accessGranted: false, reason: "outside_booking_window" });

    // Cancelling the booking takes the card out of the list: offline, it no longer opens.
    await eventually(() => gym.bridge.status().connected, "the bridge to reconnect");
    version = await settledList(gym.bridge, gym.door.id);
    const cancelled = await cancelResidentBooking(inside.resident, insideBooking._id);
    expect(cancelled.ok).toBe(true);
    await nextList(gym.bridge, version);
    await access.stop();
    await eventually(() => !gym.bridge.status().connected, "the bridge to notice again");
    const afterCancel = await gym.bridge.swipe(inside.spare.cardNumber);
    expect(afterCancel).toMatchObject({ granted: false, offline: true });
    expect(countOccurrences(ports.written(gym.paths.relay), LCUS1_OPEN)).toBe(1);
    await eventually(() => gym.bridge.status().pendingEvents === 1);
  });
});

describe("the windows an offline list carries", () => {
  it("run from 15 minutes before each booking until its end, for the next 7 days, and only for cards that need them", async () => {
    const facility = await createTestFacility("gym");
    const door = await createTestDoor();
    await updateDoor(door.id, { facilityId: facility.id });
    const ana = await residentWithCard();
    const ben = await residentWithCard();
    const first = await book(ana.resident, facility.id, minutesFromNow(60));
    const second = await book(ana.resident, facility.id, minutesFromNow(6 * 24 * 60));
    await book(ana.resident, facility.id, minutesFromNow(8 * 24 * 60)); // beyond the horizon
    const cancelled = await book(ben.resident, facility.id, minutesFromNow(180));
    await cancelResidentBooking(ben.resident, cancelled._id);
    // A card with its own permission on the door needs no windows.
    await setCardPermission(ana.spare.id, door.id, true);

    const now = Date.now();
    const cards = await listBookingWindowCardsForDoor(door.id, { from: now, to: now + OFFLINE_WINDOW_HORIZON_MS, leadMs: BOOKING_WINDOW_LEAD_MS });
    const lead = 15 * 60_000;
    expect(cards).toEqual([
      {
        cardNumber: ana.card.cardNumber,
        expiresAt: null,
        windows: [
          { from: Date.parse(first.startTime) - lead, to: Date.parse(first.endTime) },
          { from: Date.parse(second.startTime) - lead, to: Date.parse(second.endTime) },
        ],
      },
    ]);
  });
});
