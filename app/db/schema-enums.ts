// Enumerations of the data model, free of drizzle so browser code can import them.
export const USER_ROLES = ["user", "admin"] as const;
export const USER_STATUSES = ["active", "inactive", "suspended"] as const;
export const RESERVATION_TYPES = ["habitacion", "sala"] as const;
export const ROOM_TYPES = ["individual", "doble", "suite"] as const;
export const ROOM_STATUSES = ["available", "out-of-service"] as const;
export const CONTACT_PREFERENCES = ["email", "phone", "both"] as const;
export const RESERVATION_STATUSES = ["pending", "confirmed", "cancelled", "completed"] as const;
export const CONSULTATION_KINDS = ["consulta", "visita"] as const;
export const CONSULTATION_STATUSES = ["pending", "read", "replied", "closed"] as const;
export const DOOR_STATUSES = ["active", "maintenance", "emergency"] as const;
export const CARD_TYPES = ["primary", "secondary", "temporary", "emergency"] as const;
export const CARD_STATUSES = ["pending", "active", "inactive", "suspended"] as const;
export const ACCESS_REASONS = [
  "granted",
  "unknown_card",
  "card_pending",
  "card_inactive",
  "card_suspended",
  "card_expired",
  "no_permission",
  "user_inactive",
  "door_maintenance",
  "door_emergency",
  "unknown_door",
  "invalid_request",
  "offline_deny",
  "booking_window",
  "outside_booking_window",
  "user_suspended",
  "outside_schedule",
  // Door alarms (app/access/door-alarms.server.ts): rows of their own in the log, no card.
  "forced_open",
  "held_open",
  "door_offline",
  // Keys (PIN/QR, issue 29)
  "invalid_key",
  "outside_key_window",
  "keypad_locked",
] as const;
/** Door alarms: each open one is a row of door_alarms until it clears (docs/mqtt.md, "Door alarms"). */
export const DOOR_ALARM_KINDS = ["forced_open", "held_open", "door_offline"] as const;
/** What was presented at the door: a card, a key's PIN or a key's QR token. */
export const CREDENTIAL_KINDS = ["card", "pin", "qr"] as const;
/** A door key's kind: a guest's stay, or a resident's visitor pass. */
export const DOOR_KEY_KINDS = ["stay", "visitor"] as const;
export const DOOR_KEY_STATUSES = ["active", "revoked"] as const;
export const INCIDENT_SOURCES = ["door", "resident", "public"] as const;
export const INCIDENT_TYPES = ["hardware", "access", "network", "maintenance", "other"] as const;
export const INCIDENT_CATEGORIES = [
  "plumbing",
  "electrical",
  "hvac",
  "structural",
  "cleaning",
  "security",
  "other",
] as const;
export const INCIDENT_STATUSES = ["open", "in-progress", "resolved", "closed", "cancelled"] as const;
export const INCIDENT_URGENCIES = ["low", "medium", "high", "critical"] as const;
export const FACILITY_TYPES = ["meeting-room", "gym", "pool", "parking", "event-room"] as const;
export const BOOKING_STATUSES = ["confirmed", "pending", "cancelled", "completed"] as const;

/** One range of a weekly timetable: ISO weekdays (1 = Monday … 7 = Sunday), [from, to) as "HH:MM" in the building's time. */
export type ScheduleRange = { days: number[]; from: string; to: string };
/** A weekly timetable; empty: always. */
export type WeeklySchedule = ScheduleRange[];
