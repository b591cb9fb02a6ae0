// The access decision and the texts the door shows, as pure functions of the
// facts read from the database (docs/mqtt.md, "Decisions"). No I/O here: the
// database effects are in app/models/access-log.server.ts.
import type { CARD_STATUSES, CARD_TYPES, DOOR_STATUSES, USER_STATUSES } from "~/db/schema";
import { ACCESS_REASON_DISPLAY, type AccessReason } from "./reasons";
import { buildingLocalTime, isWithinSchedule, type LocalTime, type WeeklySchedule } from "./schedule";

export type DoorStatus = (typeof DOOR_STATUSES)[number];

export type DoorFacts = {
  status: DoorStatus;
  useCustomMessages: boolean;
  customStatus: string | null;
  customMessage: string | null;
};

export type CardFacts = {
  status: (typeof CARD_STATUSES)[number];
  expiresAt: Date | null;
  /** An `emergency` card opens a door in emergency (a lockdown) when nothing else about it refuses. */
  cardType?: (typeof CARD_TYPES)[number];
};

/** The card's holder; null for a card assigned to nobody. */
export type HolderFacts = {
  status: (typeof USER_STATUSES)[number];
  firstName: string | null;
};

export type AccessFacts = {
  /** false when the swipe's payload or card id could not be read. */
  validRequest: boolean;
  door: DoorFacts | null;
  card: CardFacts | null;
  holder: HolderFacts | null;
  /** A granted permission of this card for this door exists, at any hour. */
  permissionGranted: boolean;
  /**
   * Timetables under which the card may use this door otherwise (its holder's
   * access groups, a card permission with a timetable); each non-empty.
   */
  schedules?: WeeklySchedule[];
  /** The building's weekday and time of `now` (computed from it when absent). */
  localTime?: LocalTime;
  /**
   * The windows [from, to) (epoch ms) in which the holder's facility
   * bookings open this door; empty or absent when they have none.
   */
  bookingWindows?: { from: number; to: number }[];
  now: Date;
};

export type AccessOutcome = {
  granted: boolean;
  reason: AccessReason;
  /** Unknown card: register it as pending so the admin sees it. */
  createPendingCard: boolean;
  /** Expired card: set it inactive. */
  deactivateCard: boolean;
};

/** How long a granted swipe keeps the lock open. */
export const UNLOCK_MS = 3000;

/** A facility booking opens its doors this long before it starts (and until it ends). */
export const BOOKING_WINDOW_LEAD_MS = 15 * 60_000;
/** Booking windows a door's offline list carries: those that start within this long. */
export const OFFLINE_WINDOW_HORIZON_MS = 7 * 24 * 3600_000;
/**
 * A swipe outside every window is `outside_booking_window` (not
 * `no_permission`) when the holder has a booking of the door's facility that
 * ended less than this long ago or starts within OFFLINE_WINDOW_HORIZON_MS.
 */
export const RECENT_WINDOW_MS = 24 * 3600_000;

export const DISPLAY_LINE_LENGTH = 16;
export const STATUS_TEXT_LENGTH = 10;

const DEFAULT_STATUS_TEXT: Record<DoorStatus, string> = {
  active: "READY",
  maintenance: "MAINT",
  emergency: "CLOSED",
};
const DEFAULT_WELCOME = "WELCOME";

function grant(reason: "granted" | "booking_window"): AccessOutcome {
  return { granted: true, reason, createPendingCard: false, deactivateCard: false };
}

function deny(reason: AccessReason, effects: Partial<AccessOutcome> = {}): AccessOutcome {
  return { granted: false, reason, createPendingCard: false, deactivateCard: false, ...effects };
}

/** The rules, in order; the first that applies decides. */
export function decideAccess(facts: AccessFacts): AccessOutcome {
  const { door, card, holder } = facts;
  if (!facts.validRequest) return deny("invalid_request");
  if (!door) return deny("unknown_door");
  if (door.status === "maintenance") return deny("door_maintenance");
  // A door in emergency (a lockdown) lets only emergency cards in, past every permission and timetable.
  const emergencyOnly = door.status === "emergency";
  if (emergencyOnly && card?.cardType !== "emergency") return deny("door_emergency");
  if (!card) return deny("unknown_card", { createPendingCard: true });
  if (card.status === "pending") return deny("card_pending");
  if (card.status === "inactive") return deny("card_inactive");
  if (card.status === "suspended") return deny("card_suspended");
  if (card.expiresAt && card.expiresAt.getTime() <= facts.now.getTime()) {
    return deny("card_expired", { deactivateCard: true });
  }
  if (holder?.status === "suspended") return deny("user_suspended");
  if (holder && holder.status !== "active") return deny("user_inactive");
  if (emergencyOnly || facts.permissionGranted) return grant("granted");
  const schedules = facts.schedules ?? [];
  if (schedules.length > 0) {
    const local = facts.localTime ?? buildingLocalTime(facts.now);
    if (schedules.some((schedule) => isWithinSchedule(schedule, local))) return grant("granted");
  }
  // Nothing opens it now: the holder's facility bookings may.
  const windows = facts.bookingWindows ?? [];
  const now = facts.now.getTime();
  if (windows.some((window) => window.from <= now && now < window.to)) return grant("booking_window");
  if (schedules.length > 0) return deny("outside_schedule");
  return deny(windows.length === 0 ? "no_permission" : "outside_booking_window");
}

/** A door key (PIN or QR) found for what was presented: its windows [from, to) and whether it opens this door. */
export type KeyCandidate = { windows: [number, number][]; opensDoor: boolean };

/**
 * Guessing PINs at a door (issue 40; docs/access-keys.md): the wrong PINs at
 * a door within KEYPAD_FAILURE_WINDOW_MS count. The first
 * KEYPAD_FREE_FAILURES cost nothing (a guest's slip); after each later one
 * the keypad takes no PIN for a pause that doubles (1, 2, 4, 8, 16 s); the
 * KEYPAD_MAX_FAILURES-th, and each one after it within the window, locks the
 * keypad for KEYPAD_LOCK_MS. So each guess costs the guesser more and more
 * time, while a guest behind them waits seconds, at most a minute. The
 * bridge applies the same rule offline (bridge/src/keypad-lockout.ts).
 */
export const KEYPAD_FAILURE_WINDOW_MS = 10 * 60_000;
export const KEYPAD_FREE_FAILURES = 3;
export const KEYPAD_MAX_FAILURES = 8;
export const KEYPAD_LOCK_MS = 60_000;

/** How long the keypad takes no PIN after this many wrong PINs within the window. */
export function keypadPauseMs(failures: number): number {
  if (failures < KEYPAD_FREE_FAILURES) return 0;
  if (failures >= KEYPAD_MAX_FAILURES) return KEYPAD_LOCK_MS;
  return 1000 * 2 ** (failures - KEYPAD_FREE_FAILURES);
}

/**
 * A key's swipe (docs/access-keys.md): the door's state first, as for cards;
 * then no key at all is `invalid_key`, keys of other doors only
 * `no_permission` for a QR token but `invalid_key` for a PIN (a keypad must
 * not tell a PIN of another door from one that does not exist: issue 40), a
 * key of this door outside every window `outside_key_window`. Answers the
 * outcome and the index of the key that decided it (the one that opens, else
 * the first of this door, else the first).
 */
export function decideKeyAccess({ door, keys, now, kind = "qr" }: { door: DoorFacts | null; keys: KeyCandidate[]; now: Date; kind?: "pin" | "qr" }): {
  outcome: AccessOutcome;
  keyIndex: number | null;
} {
  if (!door) return { outcome: deny("unknown_door"), keyIndex: null };
  if (door.status === "maintenance") return { outcome: deny("door_maintenance"), keyIndex: null };
  if (door.status === "emergency") return { outcome: deny("door_emergency"), keyIndex: null };
  if (keys.length === 0) return { outcome: deny("invalid_key"), keyIndex: null };
  const at = now.getTime();
  const open = keys.findIndex((key) => key.opensDoor && key.windows.some(([from, to]) => from <= at && at < to));
  if (open >= 0) return { outcome: grant("granted"), keyIndex: open };
  const ofDoor = keys.findIndex((key) => key.opensDoor);
  if (ofDoor >= 0) return { outcome: deny("outside_key_window"), keyIndex: ofDoor };
  return { outcome: deny(kind === "pin" ? "invalid_key" : "no_permission"), keyIndex: 0 };
}

/** Cuts text to `length` characters (code points, so "ñ" counts as one). */
export function fitText(text: string, length: number): string {
  const characters = Array.from(text.trim());
  return characters.length <= length ? characters.join("") : characters.slice(0, length).join("").trimEnd();
}

/** The door's idle texts: SPEC defaults, or its custom messages when it uses them. */
export function doorDisplayTexts(door: DoorFacts): { status: string; welcome: string } {
  const custom = door.useCustomMessages;
  const status = (custom && door.customStatus?.trim()) || DEFAULT_STATUS_TEXT[door.status];
  const welcome = (custom && door.customMessage?.trim()) || DEFAULT_WELCOME;
  return { status: fitText(status, STATUS_TEXT_LENGTH), welcome: fitText(welcome, DISPLAY_LINE_LENGTH) };
}

/** "Hola, Marta" (the first word only when the whole first name does not fit), else "Bienvenido/a". */
export function greeting(firstName: string | null | undefined): string {
  const name = firstName?.trim();
  if (!name) return "Bienvenido/a";
  const full = `Hola, ${name}`;
  if (Array.from(full).length <= DISPLAY_LINE_LENGTH) return full;
  return fitText(`Hola, ${name.split(/\s+/)[0]}`, DISPLAY_LINE_LENGTH);
}

/** The two 16-character lines shown with a decision. */
export function decisionDisplay(
  outcome: Pick<AccessOutcome, "granted" | "reason">,
  door: DoorFacts | null,
  holder: HolderFacts | null,
): { line1: string; line2: string } {
  if (outcome.granted) {
    const welcome = door ? doorDisplayTexts(door).welcome : DEFAULT_WELCOME;
    return { line1: greeting(holder?.firstName), line2: welcome };
  }
  return {
    line1: "Acceso denegado",
    line2: fitText(ACCESS_REASON_DISPLAY[outcome.reason], DISPLAY_LINE_LENGTH),
  };
}
