// The access service on its embedded broker (aedes, in this process) with a
// real libSQL file: every decision, its database effects and the retained
// topics, driven by real MQTT.js clients playing the bridges.
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsMessage, DisplayMessage } from "~/doors/contract";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { accessLogs, cards, doors } from "~/db/schema";
import { recordAccessBatch } from "~/access/record-batch.server";
import { countAccessLogs, doorEventKey, getAccessLog } from "~/models/access-log.server";
import { getCardByNumber, registerCard } from "~/models/card.server";
import { getDoorByCode } from "~/models/door.server";
import { editCard, removeCardPermission } from "~/services/cards.server";
import { setDoorMessages, updateDoor } from "~/services/doors.server";
import { changeUserStatus } from "~/services/users.server";
import { sha256 } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";
import { FakeBridge } from "../setup/access";
import { eventually } from "../../bridge/src/test-support/eventually";
import { turnsDuring } from "../setup/event-loop";
import { createTestCard, createTestDoor, createTestDoorWithBridge, createTestUser } from "../setup/fixtures";

let service: AccessServiceHandle;
let url: string;
let front: Awaited<ReturnType<typeof createTestDoorWithBridge>>;
let bridge: FakeBridge;

beforeAll(async () => {
  front = await createTestDoorWithBridge("front", "Portal principal");
  service = await startAccessService({ host: "127.0.0.1", port: 0, refreshIntervalMs: 60_000, credentialsDebounceMs: 50 });
  // The services of this process (the test plays the web side) tell this service of their changes.
  useAccessNotifier(service.notifier);
  url = `mqtt://127.0.0.1:${service.mqttPort}`;
  bridge = await FakeBridge.connect(url, "front", front.password);
});

afterAll(async () => {
  await bridge?.end();
  await service?.stop();
});

describe("a granted swipe", () => {
  it("opens, greets the holder, and records one log row, the card's stats and the door's last access", async () => {
    const { card, user } = await createTestCard("0A1B2C3D", [front.door.id], { firstName: "Marta" });
    const decision = await bridge.swipe("0a:1b:2c:3d");
    expect(decision).toMatchObject({
      granted: true,
      reason: "granted",
      display: { line1: "Hola, Marta", line2: "WELCOME" },
      unlockMs: 3000,
    });
    const log = await getAccessLog(decision.id);
    expect(log).toMatchObject({
      cardId: card.id,
      cardNumber: "0A1B2C3D",
      doorId: front.door.id,
      doorCode: "front",
      doorName: "Portal principal",
      userId: user!.id,
      username: user!.username,
      accessGranted: true,
      reason: "granted",
      isAnonymous: false,
      offline: false,
      source: "reader",
      ipAddress: "127.0.0.1",
    });
    const stored = await getCardByNumber("0A1B2C3D");
    expect(stored).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 1 });
    expect(stored!.lastUsedAt!.getTime()).toBe(log!.timestamp.getTime());
    const door = await getDoorByCode("front");
    expect(door!.lastAccessAt!.getTime()).toBe(log!.timestamp.getTime());
  });

  it("uses the door's custom welcome and 'Bienvenido/a' for a holder without first name", async () => {
    await createTestCard("0A1B2C3E", [front.door.id], { firstName: null });
    const saved = await setDoorMessages(front.door.id, { useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Buenos días!" });
    expect(saved.ok).toBe(true);
    const decision = await bridge.swipe("0A1B2C3E");
    expect(decision.display).toEqual({ line1: "Bienvenido/a", line2: "Buenos días!" });
    await setDoorMessages(front.door.id, { useCustomMessages: false, customStatus: undefined, customMessage: undefined });
  });
});

describe("every deny reason", () => {
  it("unknown card: registered as a pending card, anonymous when it came from a mobile", async () => {
    const fromReader = await bridge.swipe("DEAD0001");
    expect(fromReader).toMatchObject({ granted: false, reason: "unknown_card", unlockMs: 0 });
    expect(fromReader.display).toEqual({ line1: "Acceso denegado", line2: "No registrada" });
    expect(await getCardByNumber("DEAD0001")).toMatchObject({ status: "pending", isAnonymous: false, totalAccessAttempts: 1 });

    const fromMobile = await bridge.swipe("DEAD0002", { source: "mobile" });
    expect(fromMobile.reason).toBe("unknown_card");
    const pending = await getCardByNumber("DEAD0002");
    expect(pending).toMatchObject({ status: "pending", isAnonymous: true });
    expect(await getAccessLog(fromMobile.id)).toMatchObject({ cardId: pending!.id, isAnonymous: true, source: "mobile" });

    // Seen again: now a pending card.
    expect((await bridge.swipe("DEAD0001")).reason).toBe("card_pending");
  });

  it("pending, inactive and suspended cards", async () => {
    await registerCard({ cardNumber: "C0000001", status: "pending" });
    await registerCard({ cardNumber: "C0000002", status: "inactive" });
    await registerCard({ cardNumber: "C0000003", status: "suspended" });
    expect((await bridge.swipe("C0000001")).reason).toBe("card_pending");
    expect((await bridge.swipe("C0000002")).reason).toBe("card_inactive");
    const suspended = await bridge.swipe("C0000003");
    expect(suspended).toMatchObject({ granted: false, reason: "card_suspended" });
    expect(await getCardByNumber("C0000003")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 0 });
  });

  it("expired card: denied and set inactive", async () => {
    const { card } = await createTestCard("E0000001", [front.door.id], { expiresAt: new Date(Date.now() - 60_000) });
    expect(card.status).toBe("active");
    expect((await bridge.swipe("E0000001")).reason).toBe("card_expired");
    expect(await getCardByNumber("E0000001")).toMatchObject({ status: "inactive" });
    expect((await bridge.swipe("E0000001")).reason).toBe("card_inactive");
  });

  it("holder inactive or suspended", async () => {
    const admin = await createTestUser({ role: "admin" });
    const { user } = await createTestCard("AB000001", [front.door.id], { userStatus: "active" });
    expect((await bridge.swipe("AB000001")).granted).toBe(true);
    await changeUserStatus(user!.id, "suspended", admin);
    expect((await bridge.swipe("AB000001")).reason).toBe("user_suspended");
    await changeUserStatus(user!.id, "inactive", admin);
    expect((await bridge.swipe("AB000001")).reason).toBe("user_inactive");
  });

  it("no granted permission for this door", async () => {
    const { card } = await createTestCard("B0000001", []);
    expect((await bridge.swipe("B0000001")).reason).toBe("no_permission");
    // An explicit "not granted" permission is no permission either.
    await getDb().insert((await import("~/db/schema")).cardPermissions).values({ cardId: card.id, doorId: front.door.id, granted: false });
    expect((await bridge.swipe("B0000001")).reason).toBe("no_permission");
  });

  it("door in maintenance or emergency", async () => {
    await createTestCard("D0000001", [front.door.id]);
    await updateDoor(front.door.id, { status: "maintenance" });
    expect((await bridge.swipe("D0000001")).display).toEqual({ line1: "Acceso denegado", line2: "En mantenimiento" });
    await updateDoor(front.door.id, { status: "emergency" });
    expect((await bridge.swipe("D0000001")).reason).toBe("door_emergency");
    await updateDoor(front.door.id, { status: "active" });
    expect((await bridge.swipe("D0000001")).granted).toBe(true);
  });

  it("invalid request: unreadable card or payload, still logged and answered", async () => {
    const id = randomUUID();
    await bridge.publishJson("swipe", { id, card: "not-a-card", at: new Date().toISOString(), source: "reader" });
    const decision = await bridge.waitFor((m) => m.topic === bridge.topic("decision") && (m.json as { id: string }).id === id);
    expect(decision.json).toMatchObject({ granted: false, reason: "invalid_request" });
    await bridge.waitForReceipt(id);
    expect(await getAccessLog(id)).toMatchObject({ reason: "invalid_request", cardNumber: "not-a-card", cardId: null });

    const missingSource = randomUUID();
    await bridge.publishJson("swipe", { id: missingSource, card: "0A1B2C3D", at: "yesterday" });
    await bridge.waitFor((m) => (m.json as { id?: string } | null)?.id === missingSource);
    await bridge.waitForReceipt(missingSource);
    expect((await getAccessLog(missingSource))!.reason).toBe("invalid_request");
  });

  it("unknown door: a door deleted behind the service's back", async () => {
    const ghost = await createTestDoorWithBridge("ghost");
    const ghostBridge = await FakeBridge.connect(url, "ghost", ghost.password);
    await createTestCard("A0000009", [ghost.door.id]);
    expect((await ghostBridge.swipe("A0000009")).granted).toBe(true);
    // Another process deletes the row without telling the service.
    await getDb().delete(doors).where(eq(doors.id, ghost.door.id));
    const decision = await ghostBridge.swipe("A0000009");
    expect(decision).toMatchObject({ granted: false, reason: "unknown_door" });
    expect(await getAccessLog(decision.id)).toMatchObject({ doorId: null, doorCode: "ghost", reason: "unknown_door" });
    await ghostBridge.end();
  });
});

describe("idempotency", () => {
  it("a redelivered swipe gets the same decision and no second row", async () => {
    await createTestCard("1D000001", [front.door.id]);
    const id = randomUUID();
    const first = await bridge.swipe("1D000001", { id });
    const again = await bridge.swipe("1D000001", { id });
    expect(again).toMatchObject({ id, granted: first.granted, reason: first.reason });
    const rows = await getDb().select().from(accessLogs).where(eq(accessLogs.id, id));
    expect(rows).toHaveLength(1);
    expect(await getCardByNumber("1D000001")).toMatchObject({ totalAccessAttempts: 1 });
  });

  it("an offline event delivered twice gives one row, offline_deny included", async () => {
    await createTestCard("1E000001", [front.door.id]);
    const before = await countAccessLogs();
    const at = new Date(Date.now() - 3_600_000);
    const granted = { id: randomUUID(), card: "1E000001", at: at.toISOString(), granted: true, reason: "granted", offline: true };
    const denied = { id: randomUUID(), card: "1E000002", at: at.toISOString(), granted: false, reason: "offline_deny", offline: true };
    for (const event of [granted, granted, denied, denied]) await bridge.publishJson("events", event);
    // A swipe sent after them is decided after them (one queue, in arrival
    // order): its decision proves the redeliveries were handled too.
    const marker = await bridge.swipe("1E0000FF");
    expect(await countAccessLogs()).toBe(before + 3);
    expect(await getAccessLog(marker.id)).not.toBeUndefined();
    expect(await getAccessLog(granted.id)).toMatchObject({ offline: true, accessGranted: true, timestamp: at, doorCode: "front" });
    expect(await getAccessLog(denied.id)).toMatchObject({ offline: true, accessGranted: false, reason: "offline_deny" });
    expect(await getCardByNumber("1E000001")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 1 });
    // The unknown card of the denied event appears as pending, like a swiped one.
    expect(await getCardByNumber("1E000002")).toMatchObject({ status: "pending" });
  });

  it("receipts stored offline events to their own door, after they are in the log, and a redelivered one again", async () => {
    const side = await createTestDoorWithBridge("side-receipts");
    const sideBridge = await FakeBridge.connect(url, "side-receipts", side.password);
    try {
      // Each door may read its own receipt topic.
      for (const door of [bridge, sideBridge]) await door.client.subscribeAsync(door.topic("receipt"), { qos: 1 });
      const at = new Date(Date.now() - 60_000).toISOString();
      const event = (card: string) => ({ id: randomUUID(), card, at, granted: false, reason: "unknown_card", offline: true });
      const receiptFor = (door: FakeBridge, id: string, since: number) =>
        door.waitForReceipt(id, { since, as: "event" });
      const mine = event("1C000001");
      const theirs = event("1C000002");
      const since = bridge.received.length;
      await bridge.publishJson("events", mine);
      await sideBridge.publishJson("events", theirs);

      await receiptFor(bridge, mine.id, since);
      expect(await getAccessLog(mine.id)).toMatchObject({ offline: true, doorCode: "front" });
      await receiptFor(sideBridge, theirs.id, 0);
      expect(await getAccessLog(theirs.id)).toMatchObject({ offline: true, doorCode: "side-receipts" });

      // A duplicate is receipted again (the first receipt may have been lost).
      const beforeRedelivery = bridge.received.length;
      await bridge.publishJson("events", mine);
      await receiptFor(bridge, mine.id, beforeRedelivery);
      const frontReceipts = bridge.received.slice(since).filter((m) => m.topic === bridge.topic("receipt"));
      expect(frontReceipts.flatMap((m) => (m.json as { ids?: string[] }).ids ?? [])).not.toContain(theirs.id);
      expect(frontReceipts.every((m) => m.packet.qos === 1 && !m.packet.retain)).toBe(true);
    } finally {
      await sideBridge.end();
    }
  });

  it("an offline event for a swipe the app did decide records what the door really did", async () => {
    await createTestCard("1F000001", [front.door.id]);
    const decision = await bridge.swipe("1F000001");
    expect(decision.granted).toBe(true);
    // The decision came too late: the door denied offline and says so.
    await bridge.publishJson("events", {
      id: decision.id,
      card: "1F000001",
      at: new Date().toISOString(),
      granted: false,
      reason: "offline_deny",
      offline: true,
    });
    await eventually(async () => (await getAccessLog(decision.id))?.offline);
    expect(await getAccessLog(decision.id)).toMatchObject({ accessGranted: false, reason: "offline_deny" });
    expect(await getCardByNumber("1F000001")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 0 });
  });
});

describe("answered swipes the bridge sends again", () => {
  // The app answers before its commit; a bridge keeps each answered swipe
  // until a receipt names it and sends it again on `events`, offline: false.
  const answered = (id: string, card: string, granted: boolean, reason: string, at = new Date()) => ({
    id,
    card,
    at: at.toISOString(),
    granted,
    reason,
    offline: false,
  });

  it("logs one whose row is missing (the app stopped before its commit) as answered online, and receipts it", async () => {
    await createTestCard("5A000001", [front.door.id]);
    const at = new Date(Date.now() - 5_000);
    const event = answered(randomUUID(), "5A000001", true, "granted", at);
    const since = bridge.received.length;
    await bridge.publishJson("events", event);
    await bridge.waitForReceipt(event.id, { since, as: "event" });
    expect(await getAccessLog(event.id)).toMatchObject({ offline: false, accessGranted: true, reason: "granted", timestamp: at, doorCode: "front" });
    expect(await getCardByNumber("5A000001")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 1 });
  });

  it("changes nothing when the swipe's row is there (only the receipt was lost), and receipts it again", async () => {
    await createTestCard("5A000002", [front.door.id]);
    const decision = await bridge.swipe("5A000002");
    const row = await getAccessLog(decision.id);
    const since = bridge.received.length;
    // Even one that disagrees with the row: the row is what the app decided.
    await bridge.publishJson("events", answered(decision.id, "5A000002", false, "no_permission"));
    await bridge.waitForReceipt(decision.id, { since, as: "event" });
    expect(await getAccessLog(decision.id)).toEqual(row);
    expect(await getCardByNumber("5A000002")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 1 });
  });
});

describe("a swipe answered before its commit", () => {
  const swipeOf = (card: string) => ({
    kind: "swipe" as const,
    id: randomUUID(),
    doorCode: "front",
    cardNumber: card,
    rawCard: card,
    source: "reader" as const,
    ipAddress: null,
  });

  it("is logged as it was answered, though its card changed before the commit", async () => {
    const { card } = await createTestCard("5B000001", [front.door.id]);
    const swipe = swipeOf("5B000001");
    // Answered "no permission" on what was committed then; granted since.
    const answeredAt = Date.now() - 2_000;
    const answers = new Map([[doorEventKey("front", swipe.id), { granted: false, reason: "no_permission" as const, at: answeredAt }]]);
    const result = await recordAccessBatch([swipe], new Date(), answers);
    expect(result.decisions).toEqual([]);
    expect(await getAccessLog(swipe.id)).toMatchObject({ cardId: card.id, accessGranted: false, reason: "no_permission", timestamp: new Date(answeredAt) });
    expect(await getCardByNumber("5B000001")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 0 });
  });

  it("without an answer is decided in its batch, and that decision is returned to be published", async () => {
    await createTestCard("5B000002", [front.door.id]);
    const swipe = swipeOf("5B000002");
    const result = await recordAccessBatch([swipe]);
    expect(result.decisions).toMatchObject([{ id: swipe.id, granted: true, reason: "granted", duplicate: false }]);
    expect(await getAccessLog(swipe.id)).toMatchObject({ accessGranted: true, reason: "granted" });
  });
});

describe("swipe and event ids are per door", () => {
  it("another door's swipe with the same id is decided on its own and gets its own row; each door's replay answers from its own row", async () => {
    const side = await createTestDoorWithBridge("side-ids");
    const sideBridge = await FakeBridge.connect(url, "side-ids", side.password);
    try {
      await createTestCard("1D0A0001", [front.door.id]);
      const id = randomUUID();
      const onFront = await bridge.swipe("1D0A0001", { id });
      expect(onFront.granted).toBe(true);
      // Door B reuses the id for a card nobody registered.
      const onSide = await sideBridge.swipe("1D0B0001", { id });
      expect(onSide).toMatchObject({ id, granted: false, reason: "unknown_card" });
      const rows = await getDb().select().from(accessLogs).where(eq(accessLogs.eventId, id));
      expect(rows.map((row) => [row.doorCode, row.cardNumber, row.accessGranted]).sort()).toEqual([
        ["front", "1D0A0001", true],
        ["side-ids", "1D0B0001", false],
      ]);
      // Row keys stay unique; the first door's row keeps the id it was sent.
      expect(new Set(rows.map((row) => row.id)).size).toBe(2);
      expect(await getAccessLog(id)).toMatchObject({ doorCode: "front", accessGranted: true });
      // Replays are answered from each door's own row, and add nothing.
      expect(await bridge.swipe("1D0A0001", { id })).toMatchObject({ granted: true, reason: "granted" });
      expect(await sideBridge.swipe("1D0B0001", { id })).toMatchObject({ granted: false, reason: "unknown_card" });
      expect(await getDb().select().from(accessLogs).where(eq(accessLogs.eventId, id))).toHaveLength(2);
      expect(await getCardByNumber("1D0A0001")).toMatchObject({ totalAccessAttempts: 1, successfulAccesses: 1 });
    } finally {
      await sideBridge.end();
    }
  });

  it("another door's offline event with the same id is its own row and never changes the first door's row or counters", async () => {
    const side = await createTestDoorWithBridge("side-events");
    const sideBridge = await FakeBridge.connect(url, "side-events", side.password);
    try {
      await createTestCard("1E0A0001", [front.door.id, side.door.id]);
      const decided = await bridge.swipe("1E0A0001");
      expect(decided.granted).toBe(true);
      const at = new Date(Date.now() - 60_000).toISOString();
      await sideBridge.publishJson("events", { id: decided.id, card: "1E0A0001", at, granted: false, reason: "offline_deny", offline: true });
      // Decided after the event (one queue, arrival order).
      await sideBridge.swipe("1E0A00FF");
      expect(await getAccessLog(decided.id)).toMatchObject({ doorCode: "front", offline: false, accessGranted: true, reason: "granted" });
      const [sideRow] = await getDb()
        .select()
        .from(accessLogs)
        .where(sql`${accessLogs.eventId} = ${decided.id} AND ${accessLogs.doorCode} = 'side-events'`);
      expect(sideRow).toMatchObject({ offline: true, accessGranted: false, reason: "offline_deny" });
      expect(sideRow!.id).not.toBe(decided.id);
      expect(await getCardByNumber("1E0A0001")).toMatchObject({ totalAccessAttempts: 2, successfulAccesses: 1 });
    } finally {
      await sideBridge.end();
    }
  });
});

describe("retained topics", () => {
  it("display: published at start and republished after a change", async () => {
    const late = await FakeBridge.connect(url, "front", front.password);
    const initial = await late.waitFor((m) => m.topic === late.topic("display"));
    expect(initial.packet.retain).toBe(true);
    expect(initial.json).toMatchObject({ status: "READY", welcome: "WELCOME", doorStatus: "active" });

    await setDoorMessages(front.door.id, { useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Hola vecinos" });
    const changed = await late.waitFor(
      (m) => m.topic === late.topic("display") && (m.json as DisplayMessage).welcome === "Hola vecinos",
    );
    expect(changed.json).toMatchObject({ status: "ABIERTO", doorStatus: "active" });
    await late.end();

    // A bridge connecting now gets the new one, retained.
    const fresh = await FakeBridge.connect(url, "front", front.password);
    const retained = await fresh.waitFor((m) => m.topic === fresh.topic("display"));
    expect(retained.json).toMatchObject({ status: "ABIERTO", welcome: "Hola vecinos" });
    await fresh.end();
    await setDoorMessages(front.door.id, { useCustomMessages: false, customStatus: undefined, customMessage: undefined });
  });

  it("credentials: a revoked permission or a deactivated card leaves the offline list", async () => {
    const { card } = await createTestCard("CC000001", [front.door.id]);
    const { card: other } = await createTestCard("CC000002", [front.door.id], { expiresAt: new Date("2099-01-01T00:00:00Z") });
    const contains = (list: CredentialsMessage, cardNumber: string) =>
      list.cards.some((entry) => entry.h === sha256(`${list.salt}${cardNumber}`));
    const listWith = (predicate: (list: CredentialsMessage) => boolean, since: number) =>
      bridge.waitFor((m) => m.topic === bridge.topic("credentials") && predicate(m.json as CredentialsMessage), { since });

    const withBoth = await listWith((list) => contains(list, "CC000001") && contains(list, "CC000002"), 0);
    const list = withBoth.json as CredentialsMessage;
    expect(list.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(list.cards.find((entry) => entry.h === sha256(`${list.salt}CC000002`))?.exp).toBe("2099-01-01T00:00:00.000Z");
    // Unknown, pending and inactive cards are never in it.
    expect(contains(list, "DEAD0001")).toBe(false);

    let since = bridge.received.length;
    await removeCardPermission(card.id, front.door.id);
    const afterRevoke = (await listWith((l) => !contains(l, "CC000001"), since)).json as CredentialsMessage;
    expect(contains(afterRevoke, "CC000002")).toBe(true);
    expect(afterRevoke.version).toBeGreaterThan(list.version);

    since = bridge.received.length;
    await editCard(other.id, { status: "inactive" });
    const afterDeactivation = (await listWith((l) => !contains(l, "CC000002"), since)).json as CredentialsMessage;
    expect(afterDeactivation.version).toBeGreaterThan(afterRevoke.version);
    const stored = await getDoorByCode("front");
    expect(stored!.credentialsVersion).toBeGreaterThanOrEqual(afterDeactivation.version);
  });

  it("credentials: a door in maintenance grants nobody offline", async () => {
    await createTestCard("CD000001", [front.door.id]);
    const since = bridge.received.length;
    await updateDoor(front.door.id, { status: "maintenance" });
    const list = await bridge.waitFor(
      (m) => m.topic === bridge.topic("credentials") && (m.json as CredentialsMessage).cards.length === 0,
      { since },
    );
    expect((list.json as CredentialsMessage).cards).toEqual([]);
    await updateDoor(front.door.id, { status: "active" });
  });
});

describe("renaming a door's doorId", () => {
  it("drops the bridge logged in under the old name and publishes under the new one", async () => {
    const renamed = await createTestDoorWithBridge("old-name");
    const oldBridge = await FakeBridge.connect(url, "old-name", renamed.password);
    await oldBridge.waitFor((m) => m.topic === oldBridge.topic("display"));
    const dropped = new Promise<void>((resolve) => oldBridge.client.once("close", () => resolve()));
    await updateDoor(renamed.door.id, { doorId: "new-name" });
    await dropped;
    const newBridge = await FakeBridge.connect(url, "new-name", renamed.password);
    const display = await newBridge.waitFor((m) => m.topic === newBridge.topic("display"));
    expect(display.packet.retain).toBe(true);
    // The old name no longer logs in.
    await expect(FakeBridge.connect(url, "old-name", renamed.password)).rejects.toThrow(/Bad username or password/i);
    await Promise.all([oldBridge.end(), newBridge.end()]);
  });

  it("drops the old name's bridge even when the periodic refresh sees the rename before any change notice", async () => {
    const refresher = await startAccessService({ host: "127.0.0.1", port: 0, refreshIntervalMs: 200, credentialsDebounceMs: 50 });
    useAccessNotifier(refresher.notifier);
    try {
      const renamed = await createTestDoorWithBridge("quiet-old");
      const oldBridge = await FakeBridge.connect(`mqtt://127.0.0.1:${refresher.mqttPort}`, "quiet-old", renamed.password);
      await oldBridge.waitFor((m) => m.topic === oldBridge.topic("display"));
      const dropped = new Promise<void>((resolve) => oldBridge.client.once("close", () => resolve()));
      // Renamed behind the services' back: no change notice, only the refresh can notice.
      await getDb().update(doors).set({ code: "quiet-new" }).where(eq(doors.id, renamed.door.id));
      await dropped;
      const newBridge = await FakeBridge.connect(`mqtt://127.0.0.1:${refresher.mqttPort}`, "quiet-new", renamed.password);
      await newBridge.waitFor((m) => m.topic === newBridge.topic("display"));
      await newBridge.end();
    } finally {
      useAccessNotifier(service.notifier);
      await refresher.stop();
    }
  });
});

describe("the periodic sweep", () => {
  it("gives the event loop a turn between doors, so swipes are answered while it goes over every door", async () => {
    for (let i = 0; i < 12; i++) await createTestDoor({ code: `sweep-${randomUUID().slice(0, 8)}` });
    await service.sweep();
    // A sweep that never yields runs in one turn of the event loop, however many doors there are.
    const { turns } = await turnsDuring(() => service.sweep());
    expect(turns).toBeGreaterThanOrEqual(12);
  });
});

describe("bridge state", () => {
  it("keeps online, last seen, version and reader in the door's hardware field, and the last will", async () => {
    const pi = await createTestDoorWithBridge("pi-state");
    const stateBridge = await FakeBridge.connect(url, "pi-state", pi.password, {
      will: { topic: "coliving/doors/pi-state/state", payload: Buffer.from('{"online":false}'), qos: 1, retain: true },
    });
    await stateBridge.publishJson(
      "state",
      { online: true, version: "1.2.0", reader: "rdm6300", since: new Date().toISOString() },
      { retain: true },
    );
    const online = await eventually(async () => (await getDoorByCode("pi-state"))?.hardware);
    expect(online).toMatchObject({ online: true, version: "1.2.0", reader: "rdm6300" });
    expect(Date.parse(online.lastSeen!)).toBeGreaterThan(Date.now() - 10_000);
    // The connection drops without a clean disconnect: the broker publishes the will.
    (stateBridge.client.stream as { destroy(): void }).destroy();
    const offline = await eventually(async () => {
      const hardware = (await getDoorByCode("pi-state"))?.hardware;
      return hardware?.online === false ? hardware : null;
    });
    expect(offline).toMatchObject({ online: false, version: "1.2.0", reader: "rdm6300" });
  });
});

describe("expiry sweep", () => {
  it("deactivates expired cards periodically and republishes the offline list", async () => {
    const sweeper = await startAccessService({ host: "127.0.0.1", port: 0, refreshIntervalMs: 200, credentialsDebounceMs: 50 });
    useAccessNotifier(sweeper.notifier);
    try {
      const sweepDoor = await createTestDoorWithBridge("sweep");
      const { card } = await createTestCard("5E000001", [sweepDoor.door.id]);
      const sweepBridge = await FakeBridge.connect(`mqtt://127.0.0.1:${sweeper.mqttPort}`, "sweep", sweepDoor.password);
      const contains = (m: { json: unknown }) => {
        const list = m.json as CredentialsMessage;
        return list.cards.some((entry) => entry.h === sha256(`${list.salt}5E000001`));
      };
      await sweepBridge.waitFor((m) => m.topic === sweepBridge.topic("credentials") && contains(m));
      // The card's expiry passes without anyone telling the access service: only its sweep can notice.
      await getDb().update(cards).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(cards.id, card.id));
      await eventually(async () => (await getDb().select().from(cards).where(eq(cards.id, card.id)))[0]?.status === "inactive", "the sweep to deactivate the expired card", 3000);
      await sweepBridge.waitFor((m) => m.topic === sweepBridge.topic("credentials") && !contains(m));
      await sweepBridge.end();
    } finally {
      useAccessNotifier(service.notifier);
      await sweeper.stop();
    }
  });
});

describe("stats", () => {
  it("count the decisions and events this test sends, redeliveries answered once more but logged once", async () => {
    await createTestCard("57A70001", [front.door.id]);
    const before = service.stats();
    const swipeId = randomUUID();
    await bridge.swipe("57A70001", { id: swipeId });
    await bridge.swipe("57A70001", { id: swipeId });
    const event = { id: randomUUID(), card: "57A70001", at: new Date().toISOString(), granted: true, reason: "granted", offline: true };
    await bridge.publishJson("events", event);
    // Decided after the event (one queue, arrival order): the event is counted once this resolves.
    await bridge.swipe("57A70001");
    const after = service.stats();
    expect(after.decisions - before.decisions).toBe(3);
    expect(after.events - before.events).toBe(1);
    const rows = await getDb()
      .select({ id: accessLogs.id })
      .from(accessLogs)
      .where(sql`${accessLogs.id} IN (${swipeId}, ${event.id})`);
    expect(rows.map((row) => row.id).sort()).toEqual([swipeId, event.id].sort());
  });
});
