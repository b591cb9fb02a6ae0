// The pure parts of door access: decision rules one by one, display texts,
// topic ACLs, card ids and the Mosquitto password format.
import { describe, expect, it } from "vitest";
import { canonicalCardId, mayDoorPublish, mayDoorSubscribe, parseDoorTopic } from "~/access/contract";
import {
  generateBridgeSecret,
  mosquittoPasswordHash,
  verifyMosquittoPassword,
} from "~/access/mosquitto-password.server";
import { ACCESS_REASON_DISPLAY, ACCESS_REASON_LABELS } from "~/access/reasons";
import {
  decideAccess,
  decisionDisplay,
  doorDisplayTexts,
  fitText,
  greeting,
  type AccessFacts,
  type DoorFacts,
} from "~/access/rules";
import { ACCESS_REASONS } from "~/db/schema";

const now = new Date("2026-03-01T10:00:00Z");
const activeDoor: DoorFacts = { status: "active", useCustomMessages: false, customStatus: null, customMessage: null };

function facts(overrides: Partial<AccessFacts> = {}): AccessFacts {
  return {
    validRequest: true,
    door: activeDoor,
    card: { status: "active", expiresAt: null },
    holder: { status: "active", firstName: "Marta" },
    permissionGranted: true,
    now,
    ...overrides,
  };
}

describe("decideAccess, rule by rule", () => {
  it("grants an active card of an active holder with a granted permission on an active door", () => {
    expect(decideAccess(facts())).toEqual({ granted: true, reason: "granted", createPendingCard: false, deactivateCard: false });
  });

  it("denies an unreadable request before anything else", () => {
    expect(decideAccess(facts({ validRequest: false, door: null, card: null })).reason).toBe("invalid_request");
  });

  it("denies an unknown door, without registering the card", () => {
    const outcome = decideAccess(facts({ door: null, card: null }));
    expect(outcome).toMatchObject({ granted: false, reason: "unknown_door", createPendingCard: false });
  });

  it("denies on a door in maintenance or emergency, whatever the card", () => {
    expect(decideAccess(facts({ door: { ...activeDoor, status: "maintenance" } })).reason).toBe("door_maintenance");
    expect(decideAccess(facts({ door: { ...activeDoor, status: "emergency" }, card: null })).reason).toBe("door_emergency");
  });

  it("denies an unknown card and asks for it to be registered as pending", () => {
    expect(decideAccess(facts({ card: null, holder: null }))).toEqual({
      granted: false,
      reason: "unknown_card",
      createPendingCard: true,
      deactivateCard: false,
    });
  });

  it("denies pending, inactive and suspended cards with their own reasons", () => {
    expect(decideAccess(facts({ card: { status: "pending", expiresAt: null } })).reason).toBe("card_pending");
    expect(decideAccess(facts({ card: { status: "inactive", expiresAt: null } })).reason).toBe("card_inactive");
    expect(decideAccess(facts({ card: { status: "suspended", expiresAt: null } })).reason).toBe("card_suspended");
  });

  it("denies an expired card and asks for it to be deactivated; a future expiry is fine", () => {
    const expired = decideAccess(facts({ card: { status: "active", expiresAt: new Date(now.getTime() - 1) } }));
    expect(expired).toMatchObject({ granted: false, reason: "card_expired", deactivateCard: true });
    const atTheSecond = decideAccess(facts({ card: { status: "active", expiresAt: now } }));
    expect(atTheSecond.reason).toBe("card_expired");
    expect(decideAccess(facts({ card: { status: "active", expiresAt: new Date(now.getTime() + 60_000) } })).granted).toBe(true);
  });

  it("denies a card whose holder is inactive or suspended; a card held by nobody is judged on its own", () => {
    expect(decideAccess(facts({ holder: { status: "inactive", firstName: null } })).reason).toBe("user_inactive");
    expect(decideAccess(facts({ holder: { status: "suspended", firstName: null } })).reason).toBe("user_inactive");
    expect(decideAccess(facts({ holder: null })).granted).toBe(true);
  });

  it("denies without a granted permission for this door", () => {
    expect(decideAccess(facts({ permissionGranted: false })).reason).toBe("no_permission");
  });

  it("applies the card's status before its expiry, and the expiry before the holder", () => {
    const past = new Date(now.getTime() - 1000);
    expect(decideAccess(facts({ card: { status: "suspended", expiresAt: past } })).reason).toBe("card_suspended");
    expect(
      decideAccess(facts({ card: { status: "active", expiresAt: past }, holder: { status: "inactive", firstName: null } })).reason,
    ).toBe("card_expired");
  });
});

describe("display texts", () => {
  it("fit lines to 16 characters, counting accented letters once", () => {
    expect(fitText("Puerta principal del edificio", 16)).toBe("Puerta principal");
    expect(fitText("Señalización ñañ", 16)).toBe("Señalización ñañ");
    expect(Array.from(fitText("ñ".repeat(20), 16))).toHaveLength(16);
  });

  it("greet the holder by first name, or everyone when there is none", () => {
    expect(greeting("Marta")).toBe("Hola, Marta");
    expect(greeting("Juan Bautista")).toBe("Hola, Juan");
    expect(greeting("Maximilianoooooo")).toBe("Hola, Maximilian");
    expect(greeting(null)).toBe("Bienvenido/a");
    expect(greeting("  ")).toBe("Bienvenido/a");
  });

  it("use the SPEC defaults per door status, or the custom messages when the door uses them", () => {
    expect(doorDisplayTexts(activeDoor)).toEqual({ status: "READY", welcome: "WELCOME" });
    expect(doorDisplayTexts({ ...activeDoor, status: "maintenance" }).status).toBe("MAINT");
    expect(doorDisplayTexts({ ...activeDoor, status: "emergency" }).status).toBe("CLOSED");
    const custom = { ...activeDoor, useCustomMessages: true, customStatus: "ABIERTO YA MISMO", customMessage: "Bienvenidos a La Casona" };
    expect(doorDisplayTexts(custom)).toEqual({ status: "ABIERTO YA", welcome: "Bienvenidos a La" });
    // Custom messages saved but not in use: defaults.
    expect(doorDisplayTexts({ ...custom, useCustomMessages: false })).toEqual({ status: "READY", welcome: "WELCOME" });
  });

  it("show a greeting and the door's welcome on a grant, the reason on a denial", () => {
    const door = { ...activeDoor, useCustomMessages: true, customStatus: null, customMessage: "Buenos días" };
    expect(decisionDisplay({ granted: true, reason: "granted" }, door, { status: "active", firstName: "Marta" })).toEqual({
      line1: "Hola, Marta",
      line2: "Buenos días",
    });
    expect(decisionDisplay({ granted: false, reason: "no_permission" }, door, null)).toEqual({
      line1: "Acceso denegado",
      line2: "Sin permiso",
    });
  });

  it("have a Spanish label and a display line of at most 16 characters for every reason code", () => {
    for (const reason of ACCESS_REASONS) {
      expect(ACCESS_REASON_LABELS[reason]).toBeTruthy();
      expect(Array.from(ACCESS_REASON_DISPLAY[reason]).length).toBeLessThanOrEqual(16);
    }
  });
});

describe("topics and ACL", () => {
  it("parse door topics under the prefix only", () => {
    expect(parseDoorTopic("coliving", "coliving/doors/front-1/swipe")).toEqual({ doorCode: "front-1", kind: "swipe" });
    expect(parseDoorTopic("site/coliving", "site/coliving/doors/A/state")).toEqual({ doorCode: "A", kind: "state" });
    expect(parseDoorTopic("coliving", "coliving/doors/front-1/swipe/extra")).toBeNull();
    expect(parseDoorTopic("coliving", "coliving/doors/front-1/other")).toBeNull();
    expect(parseDoorTopic("coliving", "other/doors/front-1/swipe")).toBeNull();
  });

  it("let a door publish only its own swipe, state and events", () => {
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/swipe")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/state")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/events")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/B/swipe")).toBe(false);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/decision")).toBe(false);
    expect(mayDoorPublish("coliving", "A", "coliving/app/changes")).toBe(false);
  });

  it("let a door subscribe only to its own decision, display and credentials, without wildcards", () => {
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/decision")).toBe(true);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/credentials")).toBe(true);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/receipt")).toBe(true);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/B/receipt")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/B/decision")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/+/decision")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/#")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/swipe")).toBe(false);
  });
});

describe("canonical card ids", () => {
  it("are upper-case hex, two characters per byte", () => {
    expect(canonicalCardId("004E2B4E")).toBe("004E2B4E");
    expect(canonicalCardId("004e2b4e")).toBe("004E2B4E");
    expect(canonicalCardId("0x4E2B4E")).toBe("4E2B4E");
    expect(canonicalCardId("4:e2:b4:e")).toBe("04E2B40E");
    expect(canonicalCardId("04-E2-B4-0E")).toBe("04E2B40E");
    expect(canonicalCardId("abc")).toBe("0ABC");
  });

  it("refuse what is not a hex card id", () => {
    expect(canonicalCardId("")).toBeNull();
    expect(canonicalCardId("hello")).toBeNull();
    expect(canonicalCardId("00".repeat(17))).toBeNull();
  });
});

describe("Mosquitto password hashes", () => {
  it("verify a line written by mosquitto_passwd 2.0 (door1 / secretpw)", () => {
    const stored =
      "$7$101$cdFC+XFzpb9CGyRM$Vmq/QpuqcpQsF4549njNI6dFObmTtO9hjxZvD9FYNDquKV6QETPX/T49M5u/nqaoDo/WAYevOqDH6vGEKtMG7g==";
    expect(verifyMosquittoPassword("secretpw", stored)).toBe(true);
    expect(verifyMosquittoPassword("secretpx", stored)).toBe(false);
  });

  it("write the same format: $7$101$<12-byte salt>$<64-byte hash>", () => {
    const secret = generateBridgeSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const stored = mosquittoPasswordHash(secret);
    const [, scheme, iterations, salt, hash] = stored.split("$");
    expect([scheme, iterations]).toEqual(["7", "101"]);
    expect(Buffer.from(salt!, "base64")).toHaveLength(12);
    expect(Buffer.from(hash!, "base64")).toHaveLength(64);
    expect(verifyMosquittoPassword(secret, stored)).toBe(true);
    expect(verifyMosquittoPassword(secret, "scrypt$whatever")).toBe(false);
  });
});
