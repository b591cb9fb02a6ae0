// The MQTT wire contract is written twice: app/doors/contract.ts for the app
// and bridge/src/contract.ts for the bridge (its own package, independent of
// the app). This test fails when the two disagree: topics, reason codes,
// limits, and every message one side builds parsed with the other side's
// schema.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import mqtt from "mqtt";
import { describe, expect, it } from "vitest";
import { MAX_CARD_ID_BYTES } from "../../bridge/src/card-id";
import {
  credentialsListSchema,
  decisionSchema,
  displayMessageSchema,
  doorTopics,
  MAX_RECEIPT_IDS as BRIDGE_MAX_RECEIPT_IDS,
  OFFLINE_REASONS,
  PUBLISHED_KINDS,
  receiptSchema,
  SUBSCRIBED_KINDS,
  type ContactMessage,
  type OfflineEvent,
  type StateMessage,
  type SwipeMessage,
} from "../../bridge/src/contract";
import { startBridge } from "../../bridge/src/controller";
import { LCD_COLUMNS } from "../../bridge/src/displays/lcd-text";
import { OfflineStore } from "../../bridge/src/offline-store";
import { doorModeAt as bridgeDoorModeAt } from "../../bridge/src/door-mode";
import {
  isWithinSchedule as bridgeWithinSchedule,
  localDay as bridgeLocalDay,
  localTime as bridgeLocalTime,
  unlockedUntil as bridgeUnlockedUntil,
} from "../../bridge/src/schedule";
import { MAX_PIN_DIGITS } from "../../bridge/src/readers/keypad";
import { OFFLINE_LINES } from "../../bridge/src/swipes";
import * as bridgeKeypad from "../../bridge/src/keypad-lockout";
import * as appRules from "~/doors/rules";
import { buildingLocalDay, buildingLocalTime, doorModeAt, isWithinSchedule, unlockedUntil } from "~/doors/schedule";
import { TIME_ZONE } from "~/utils/dates";
import { TestBroker } from "../../bridge/src/test-support/broker";
import { eventually } from "../../bridge/src/test-support/eventually";
import {
  APP_TOPICS,
  BRIDGE_TOPICS,
  bridgeClientId,
  bridgeStateSchema,
  canonicalCardId,
  contactSchema,
  doorTopic,
  MAX_RECEIPT_IDS as APP_MAX_RECEIPT_IDS,
  doorEventSchema,
  receiptMessages,
  swipeSchema,
  type CredentialsMessage,
  type DecisionMessage,
  type DisplayMessage,
} from "~/doors/contract";
import { decisionDisplay, DISPLAY_LINE_LENGTH, doorDisplayTexts, STATUS_TEXT_LENGTH, UNLOCK_MS, type DoorFacts } from "~/doors/rules";
import { ACCESS_REASONS, DOOR_STATUSES } from "~/db/schema";
import { sha256 } from "~/utils/crypto.server";

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
const sorted = (items: readonly string[]) => [...items].sort();
const characters = (text: string) => Array.from(text).length;
/** The longest card id a bridge sends. */
const LONGEST_CARD = "AB".repeat(MAX_CARD_ID_BYTES);

/** zod's result, with the first problem in the failure message. */
function expectParses(schema: { safeParse(data: unknown): { success: boolean; error?: { issues: unknown[] } } }, message: unknown) {
  const result = schema.safeParse(JSON.parse(JSON.stringify(message)));
  expect(result.success, `${JSON.stringify(message)}: ${JSON.stringify(result.error?.issues[0])}`).toBe(true);
}

const doorFacts = (status: DoorFacts["status"], custom = false): DoorFacts => ({
  status,
  useCustomMessages: custom,
  customStatus: custom ? "Abierto de 8:00 a 22:00" : null,
  customMessage: custom ? "Bienvenidos a La Casona Coliving" : null,
});

describe("topics", () => {
  it("name every kind the same way on both sides", () => {
    const bridgeTopics = doorTopics("coliving", "front-door");
    expect(sorted(Object.keys(bridgeTopics))).toEqual(sorted([...BRIDGE_TOPICS, ...APP_TOPICS]));
    for (const kind of [...BRIDGE_TOPICS, ...APP_TOPICS]) {
      expect(bridgeTopics[kind], kind).toBe(doorTopic("coliving", "front-door", kind));
    }
    expect(doorTopics("site/a", "d1").receipt).toBe(doorTopic("site/a", "d1", "receipt"));
  });

  it("the bridge publishes exactly the app's bridge topics and subscribes to exactly the app's topics (the door ACL)", () => {
    expect(sorted(PUBLISHED_KINDS)).toEqual(sorted(BRIDGE_TOPICS));
    expect(sorted(SUBSCRIBED_KINDS)).toEqual(sorted(APP_TOPICS));
  });
});

describe("reasons and limits", () => {
  it("every reason the bridge puts in an offline event is one of the app's reason codes", () => {
    for (const reason of OFFLINE_REASONS) expect(ACCESS_REASONS).toContain(reason);
  });

  it("display lines fit the bridge's LCD; receipts and ids fit both sides", () => {
    expect(LCD_COLUMNS).toBe(DISPLAY_LINE_LENGTH);
    expect(STATUS_TEXT_LENGTH).toBeLessThanOrEqual(LCD_COLUMNS);
    for (const [reason, lines] of Object.entries(OFFLINE_LINES)) {
      for (const line of lines) expect(characters(line), `${reason}: ${line}`).toBeLessThanOrEqual(LCD_COLUMNS);
    }
    expect(BRIDGE_MAX_RECEIPT_IDS).toBe(APP_MAX_RECEIPT_IDS);
    // The bridge's canonical ids are the app's canonical ids.
    expect(canonicalCardId(LONGEST_CARD)).toBe(LONGEST_CARD);
    expect(canonicalCardId("004E2B4E")).toBe("004E2B4E");
  });
});

describe("messages the app builds parse with the bridge's schemas", () => {
  it("decision, for every reason code, with lines that fit the LCD", () => {
    for (const reason of ACCESS_REASONS) {
      const granted = reason === "granted";
      const message: DecisionMessage = {
        id: randomUUID(),
        granted,
        reason,
        display: decisionDisplay({ granted, reason }, doorFacts("active", true), { status: "active", firstName: "María Inmaculada" }),
        unlockMs: granted ? UNLOCK_MS : 0,
      };
      expectParses(decisionSchema, message);
      for (const line of [message.display.line1, message.display.line2]) {
        expect(characters(line), `${reason}: ${line}`).toBeLessThanOrEqual(LCD_COLUMNS);
      }
    }
  });

  it("display, for every door status, default and custom texts", () => {
    for (const status of DOOR_STATUSES) {
      for (const custom of [false, true]) {
        const message: DisplayMessage = {
          ...doorDisplayTexts(doorFacts(status, custom)),
          doorStatus: status,
          updatedAt: new Date().toISOString(),
          mode: status === "emergency" ? "lockdown" : "locked",
        };
        expectParses(displayMessageSchema, message);
      }
    }
  });

  it("credentials list, with expiry and booking windows, hashed so that the bridge finds the cards", async () => {
    const salt = randomBytes(16).toString("hex");
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const message: CredentialsMessage = {
      version: 7,
      generatedAt: iso(now),
      salt,
      tz: TIME_ZONE,
      cards: [
        { h: sha256(`${salt}004E2B4E`), exp: null },
        { h: sha256(`${salt}5C0E0001`), exp: null, sch: [{ days: [1, 2, 3, 4, 5, 6, 7], from: "00:00", to: "24:00" }] },
        { h: sha256(`${salt}5C0E0002`), exp: null, sch: [{ days: [1], from: "08:00", to: "08:01" }] },
        { h: sha256(`${salt}${LONGEST_CARD}`), exp: iso(now + 86_400_000) },
        { h: sha256(`${salt}0012D687`), exp: null, win: [[iso(now - 60_000), iso(now + 60_000)]] },
      ],
      keys: [{ h: sha256(`${salt}pin:482913`), k: "pin", win: [[iso(now - 60_000), iso(now + 60_000)]], n: "Ana" }],
    };
    expectParses(credentialsListSchema, message);
    const store = await OfflineStore.open(await mkdtemp(path.join(tmpdir(), "contract-")), quietLogger);
    expect(await store.saveCredentials(credentialsListSchema.parse(JSON.parse(JSON.stringify(message))))).toBe(true);
    expect(store.checkCard("004E2B4E", new Date(now))).toBe("granted");
    expect(store.checkCard(LONGEST_CARD, new Date(now))).toBe("granted");
    expect(store.checkCard("0012D687", new Date(now))).toBe("booking_window");
    expect(store.checkCard("5C0E0001", new Date(now))).toBe("granted");
    // Monday 08:00 in Madrid (06:00 or 07:00 UTC) opens, a minute later it does not.
    const monday = Date.parse("2026-11-23T07:00:30Z");
    expect(store.checkCard("5C0E0002", new Date(monday))).toBe("granted");
    expect(store.checkCard("5C0E0002", new Date(monday + 60_000))).toBe("outside_schedule");
    expect(store.checkCard("DEADBEEF", new Date(now))).toBe("unknown_card");
  });

  it("timetables: the bridge's reading of the building's clock agrees with the app's, across a week and both DST changes", () => {
    const ranges = [{ days: [1, 3, 5], from: "06:00", to: "23:00" }, { days: [6], from: "00:00", to: "24:00" }];
    for (const start of [Date.parse("2026-03-27T00:00:00Z"), Date.parse("2026-10-23T00:00:00Z")]) {
      for (let at = start; at < start + 8 * 86_400_000; at += 17 * 60_000) {
        const instant = new Date(at);
        expect(bridgeLocalTime(instant, TIME_ZONE)).toEqual(buildingLocalTime(instant));
        expect(bridgeWithinSchedule(ranges, bridgeLocalTime(instant, TIME_ZONE))).toBe(isWithinSchedule(ranges, buildingLocalTime(instant)));
      }
    }
  });

  it("doors on a timetable: the bridge's mode from the retained display agrees with the app's, holidays and first-person-in included", () => {
    const sch = [
      { days: [1, 2, 3, 4, 5], from: "09:00", to: "14:00" },
      { days: [1, 2, 3, 4, 5], from: "14:00", to: "18:00" },
      { days: [6], from: "10:00", to: "13:00" },
    ];
    const holidays = ["2026-10-29"];
    for (const firstPersonIn of [false, true]) {
      for (const onHolidays of [false, true]) {
        for (const status of DOOR_STATUSES) {
          const door = { status, unlockSchedule: sch, unlockOnHolidays: onHolidays, firstPersonIn };
          for (let at = Date.parse("2026-10-23T00:00:00Z"); at < Date.parse("2026-10-31T00:00:00Z"); at += 23 * 60_000) {
            const instant = new Date(at);
            const firstInDay = at % 2 === 0 ? buildingLocalDay(instant) : null;
            const mode = doorModeAt(door, instant, new Set(holidays), firstInDay);
            const message: DisplayMessage = {
              ...doorDisplayTexts(doorFacts(status, false)),
              doorStatus: status,
              updatedAt: instant.toISOString(),
              ...mode,
              timetable: { tz: TIME_ZONE, sch, holidays, onHolidays, firstPersonIn, firstInDay: null },
            };
            const parsed = displayMessageSchema.parse(JSON.parse(JSON.stringify(message)));
            expect(bridgeDoorModeAt(parsed, instant, firstInDay), instant.toISOString()).toEqual(mode);
            expect(bridgeLocalDay(instant, TIME_ZONE)).toBe(buildingLocalDay(instant));
            expect(bridgeUnlockedUntil(sch, bridgeLocalTime(instant, TIME_ZONE))).toBe(unlockedUntil(sch, buildingLocalTime(instant)));
          }
        }
      }
    }
    expect(doorModeAt({ status: "active", unlockSchedule: sch, unlockOnHolidays: false, firstPersonIn: false }, new Date("2026-10-26T10:00:00Z"), new Set(), null)).toEqual({
      mode: "unlocked",
      until: "18:00",
    });
  });

  it("receipts, however many events and swipes a batch holds", () => {
    const ids = Array.from({ length: APP_MAX_RECEIPT_IDS * 2 + 1 }, () => randomUUID());
    const swipes = Array.from({ length: APP_MAX_RECEIPT_IDS }, () => randomUUID());
    const messages = receiptMessages({ ids: [...ids, ids[0]!], swipes: [...swipes, swipes[1]!] });
    expect(messages.flatMap((message) => message.ids ?? [])).toEqual(ids);
    expect(messages.flatMap((message) => message.swipes ?? [])).toEqual(swipes);
    expect(messages).toHaveLength(4);
    for (const message of messages) expectParses(receiptSchema, message);
    expectParses(receiptSchema, receiptMessages({ swipes: [randomUUID()] })[0]);
  });
});

describe("messages the bridge builds parse with the app's schemas", () => {
  it("swipe, offline event for every offline reason, state and last will", () => {
    for (const source of ["reader", "mobile"] as const) {
      const swipe: SwipeMessage = { id: randomUUID(), card: LONGEST_CARD, at: new Date().toISOString(), source };
      expectParses(swipeSchema, swipe);
    }
    for (const reason of OFFLINE_REASONS) {
      const event: OfflineEvent = {
        id: randomUUID(),
        card: LONGEST_CARD,
        at: new Date().toISOString(),
        granted: reason === "granted" || reason === "booking_window",
        reason,
        offline: true,
      };
      expectParses(doorEventSchema, event);
    }
    const states: StateMessage[] = [
      { online: true, version: "0.1.0", reader: "wiegand", since: new Date().toISOString() },
      { online: false },
    ];
    for (const state of states) expectParses(bridgeStateSchema, state);
    const contacts: ContactMessage[] = [
      { state: "open", released: false, at: new Date().toISOString() },
      { state: "closed", released: true, at: new Date().toISOString() },
    ];
    for (const contact of contacts) expectParses(contactSchema, contact);
  });

  it("a keypad's PIN and a QR scanner's token: swipes, and offline events for every key reason", () => {
    const at = new Date().toISOString();
    const swipes: SwipeMessage[] = [
      { id: randomUUID(), pin: "482913", at, source: "keypad" },
      { id: randomUUID(), pin: "9".repeat(MAX_PIN_DIGITS), at, source: "keypad" },
      { id: randomUUID(), qr: `LC1-${"A".repeat(100)}`, at, source: "qr" },
    ];
    for (const swipe of swipes) expectParses(swipeSchema, swipe);
    for (const reason of ["granted", "invalid_key", "outside_key_window", "keypad_locked"] as const) {
      for (const credential of [{ pin: "482913" }, { qr: "LC1-MFRGGZDFMZTWQ2LKNNWG23TPOA" }]) {
        const event: OfflineEvent = { id: randomUUID(), ...credential, at, granted: reason === "granted", reason, offline: true };
        expectParses(doorEventSchema, event);
      }
    }
  });

  it("the keypad's guessing rule is the same on both sides: free slips, pauses that double, a short lockout (issue 40)", () => {
    expect([bridgeKeypad.FREE_WRONG_PINS, bridgeKeypad.WRONG_PIN_LIMIT, bridgeKeypad.WRONG_PIN_WINDOW_MS, bridgeKeypad.KEYPAD_LOCK_MS]).toEqual([
      appRules.KEYPAD_FREE_FAILURES,
      appRules.KEYPAD_MAX_FAILURES,
      appRules.KEYPAD_FAILURE_WINDOW_MS,
      appRules.KEYPAD_LOCK_MS,
    ]);
    for (let failures = 0; failures <= 12; failures++) expect(bridgeKeypad.keypadPauseMs(failures)).toBe(appRules.keypadPauseMs(failures));
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(appRules.keypadPauseMs)).toEqual([0, 0, 0, 1000, 2000, 4000, 8000, 16_000, 60_000, 60_000]);
  });

  it("what a running bridge publishes: its swipe, the offline event, its online and offline states; and its client id", async () => {
    const broker = await TestBroker.create();
    const clientIds: string[] = [];
    broker.aedes.on("client", (client) => clientIds.push(client.id));
    const observer = await mqtt.connectAsync(broker.url, { clientId: `contract-observer-${randomUUID()}`, reconnectPeriod: 0 });
    const received: Array<{ kind: string; json: unknown }> = [];
    observer.on("message", (topic, payload) => received.push({ kind: topic.split("/").at(-1)!, json: JSON.parse(payload.toString("utf8")) }));
    await observer.subscribeAsync("coliving/doors/contract-door/+", { qos: 1 });
    const bridge = await startBridge(
      {
        doorId: "contract-door",
        mqtt: { url: broker.url, password: "unused-by-aedes" },
        reader: { driver: "keyboard" },
        display: { driver: "console" },
        lock: { driver: "console" },
        dataDir: await mkdtemp(path.join(tmpdir(), "contract-bridge-")),
        // Nobody answers the swipe: it is decided offline at once.
        decisionTimeoutMs: 50,
      },
      { stdin: new PassThrough(), logger: quietLogger, version: "0.0.0-contract" },
    );
    try {
      await eventually(() => bridge.status().connected, "the bridge to connect");
      const outcome = await bridge.swipe("004E2B4E");
      await eventually(() => received.some((m) => m.kind === "events"), "the offline event");
      await bridge.stop();
      await eventually(() => received.some((m) => m.kind === "state" && (m.json as { online: boolean }).online === false), "the offline state");

      const swipe = received.find((m) => m.kind === "swipe");
      expect(swipeSchema.parse(swipe?.json)).toMatchObject({ id: outcome?.id, card: "004E2B4E", source: "reader" });
      const event = received.find((m) => m.kind === "events");
      expect(doorEventSchema.parse(event?.json)).toMatchObject({ id: outcome?.id, reason: "unknown_card", offline: true });
      const states = received.filter((m) => m.kind === "state").map((m) => bridgeStateSchema.parse(m.json));
      expect(states).toEqual([expect.objectContaining({ online: true, version: "0.0.0-contract", reader: "keyboard" }), { online: false }]);
      // The id the app's broker keeps for this door's account alone.
      expect(clientIds).toContain(bridgeClientId("contract-door"));
    } finally {
      await bridge.stop();
      await observer.endAsync(true);
      await broker.close();
    }
  });
});
