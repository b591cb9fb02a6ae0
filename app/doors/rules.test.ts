// The decision rules one by one and the door's display texts (pure functions).
import { describe, expect, it } from "vitest";
import { ACCESS_REASONS } from "~/db/schema";
import { ACCESS_REASON_DISPLAY, ACCESS_REASON_LABELS } from "./reasons";
import {
  decideAccess,
  decisionDisplay,
  doorDisplayTexts,
  fitText,
  greeting,
  type AccessFacts,
  type DoorFacts,
} from "./rules";

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

describe("decideAccess with timetables (access groups, card permissions)", () => {
  // 2026-03-01 is a Sunday; 10:00 UTC is 11:00 in Madrid.
  const sunday = { days: [7], from: "06:00", to: "23:00" };
  const weekdays = { days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" };

  it("grants inside a timetable, and says outside_schedule when the clock alone refuses", () => {
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[weekdays], [sunday]] })).reason).toBe("granted");
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[weekdays]] }))).toMatchObject({ granted: false, reason: "outside_schedule" });
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[{ days: [7], from: "11:01", to: "12:00" }]] })).reason).toBe("outside_schedule");
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[{ days: [7], from: "10:00", to: "11:00" }]] })).reason).toBe("outside_schedule");
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[{ days: [7], from: "11:00", to: "11:01" }]] })).reason).toBe("granted");
  });

  it("lets a booking window open outside the timetable; the card's and holder's state still come first", () => {
    const window = { from: now.getTime() - 1000, to: now.getTime() + 1000 };
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[weekdays]], bookingWindows: [window] })).reason).toBe("booking_window");
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[sunday]], card: { status: "suspended", expiresAt: null } })).reason).toBe(
      "card_suspended",
    );
    expect(decideAccess(facts({ permissionGranted: false, schedules: [[sunday]], door: { ...activeDoor, status: "emergency" } })).reason).toBe(
      "door_emergency",
    );
  });
});

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

  it("denies a card whose holder is inactive or suspended, each with its reason; a card held by nobody is judged on its own", () => {
    expect(decideAccess(facts({ holder: { status: "inactive", firstName: null } })).reason).toBe("user_inactive");
    expect(decideAccess(facts({ holder: { status: "suspended", firstName: null } })).reason).toBe("user_suspended");
    expect(decideAccess(facts({ holder: null })).granted).toBe(true);
  });

  it("denies without a granted permission for this door", () => {
    expect(decideAccess(facts({ permissionGranted: false })).reason).toBe("no_permission");
    expect(decideAccess(facts({ permissionGranted: false, bookingWindows: [] })).reason).toBe("no_permission");
  });

  it("without a standing permission, grants inside a booking window and denies outside every one", () => {
    const t = now.getTime();
    const inside = decideAccess(facts({ permissionGranted: false, bookingWindows: [{ from: t - 60_000, to: t + 60_000 }] }));
    expect(inside).toEqual({ granted: true, reason: "booking_window", createPendingCard: false, deactivateCard: false });
    // [from, to): the window's start is in, its end is out.
    expect(decideAccess(facts({ permissionGranted: false, bookingWindows: [{ from: t, to: t + 1 }] })).reason).toBe("booking_window");
    const windows = [
      { from: t - 7200_000, to: t },
      { from: t + 1, to: t + 3600_000 },
    ];
    expect(decideAccess(facts({ permissionGranted: false, bookingWindows: windows }))).toMatchObject({
      granted: false,
      reason: "outside_booking_window",
    });
    // A standing permission needs no window; the card's own rules still come first.
    expect(decideAccess(facts({ bookingWindows: windows })).reason).toBe("granted");
    const expired = { status: "active" as const, expiresAt: new Date(t - 1) };
    expect(decideAccess(facts({ card: expired, permissionGranted: false, bookingWindows: [{ from: t - 1, to: t + 1 }] })).reason).toBe("card_expired");
    expect(
      decideAccess(facts({ holder: { status: "inactive", firstName: null }, permissionGranted: false, bookingWindows: [{ from: t - 1, to: t + 1 }] })).reason,
    ).toBe("user_inactive");
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
