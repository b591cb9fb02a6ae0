// The whole data model (SPEC §3). Every timestamp is stored as UTC epoch
// milliseconds; calendar dates a guest picks (booking, visit) are stored as
// the ISO date text they chose ("2026-12-24"), because they are days in the
// building's time zone, not instants.
import { sql } from "drizzle-orm";
import {
  index,
  integer,
  type AnySQLiteColumn,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import {
  USER_ROLES,
  USER_STATUSES,
  RESERVATION_TYPES,
  ROOM_TYPES,
  ROOM_STATUSES,
  CONTACT_PREFERENCES,
  RESERVATION_STATUSES,
  CONSULTATION_KINDS,
  CONSULTATION_STATUSES,
  DOOR_STATUSES,
  CARD_TYPES,
  CARD_STATUSES,
  ACCESS_REASONS,
  DOOR_ALARM_KINDS,
  INCIDENT_SOURCES,
  INCIDENT_TYPES,
  INCIDENT_CATEGORIES,
  INCIDENT_STATUSES,
  INCIDENT_URGENCIES,
  FACILITY_TYPES,
  BOOKING_STATUSES,
  CREDENTIAL_KINDS,
  DOOR_KEY_KINDS,
  DOOR_KEY_STATUSES,
  type WeeklySchedule,
} from "./schema-enums";

export * from "./schema-enums";

const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`);
const updatedAt = () =>
  integer("updated_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`);

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    username: text("username").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    department: text("department"),
    phone: text("phone"),
    role: text("role", { enum: USER_ROLES }).notNull().default("user"),
    status: text("status", { enum: USER_STATUSES }).notNull().default("active"),
    notes: text("notes"),
    unitNumber: text("unit_number"),
    buildingName: text("building_name"),
    avatar: text("avatar"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("users_username_unique").on(sql`lower(${t.username})`),
    uniqueIndex("users_email_unique").on(sql`lower(${t.email})`),
    index("users_role_idx").on(t.role),
    index("users_status_idx").on(t.status),
  ],
);

export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("api_tokens_hash_unique").on(t.tokenHash),
    index("api_tokens_user_idx").on(t.userId),
    index("api_tokens_expires_idx").on(t.expiresAt),
  ],
);

// Browser sessions: the signed session cookie holds only the session's id,
// and `id` here is that id's SHA-256 (a copy of the database signs nobody
// in); signing out, a password change or an inactivation ends a session for good.
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

// Fixed-window counters shared by every app process (see services/rate-limits.server.ts).
export const rateLimits = sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  resetAt: integer("reset_at", { mode: "timestamp_ms" }).notNull(),
});

export const anonymousReservations = sqliteTable(
  "anonymous_reservations",
  {
    id: text("id").primaryKey(),
    reservationCode: text("reservation_code").notNull(),
    guestName: text("guest_name").notNull(),
    guestEmail: text("guest_email").notNull(),
    guestPhone: text("guest_phone").notNull(),
    contactPreference: text("contact_preference", { enum: CONTACT_PREFERENCES })
      .notNull()
      .default("email"),
    reservationType: text("reservation_type", { enum: RESERVATION_TYPES }).notNull(),
    roomType: text("room_type", { enum: ROOM_TYPES }),
    startDate: text("start_date").notNull(),
    endDate: text("end_date").notNull(),
    status: text("status", { enum: RESERVATION_STATUSES }).notNull().default("pending"),
    specialRequests: text("special_requests"),
    adminNotes: text("admin_notes"),
    ipAddress: text("ip_address"),
    confirmedAt: integer("confirmed_at", { mode: "timestamp_ms" }),
    cancelledAt: integer("cancelled_at", { mode: "timestamp_ms" }),
    // A room stay's room, assigned when it is confirmed (pending stays hold
    // capacity of their type, not a room).
    roomId: text("room_id").references((): AnySQLiteColumn => rooms.id, { onDelete: "set null" }),
    // A meeting-room stay's sala (a facility of type meeting-room), held from
    // the booking on, for whole days: [heldFrom, heldTo) are the Madrid
    // midnights of startDate and endDate, so the database can compare them
    // with residents' facility bookings (drizzle/0013_rooms_inventory.sql).
    salaId: text("sala_id").references((): AnySQLiteColumn => facilities.id),
    heldFrom: integer("held_from", { mode: "timestamp_ms" }),
    heldTo: integer("held_to", { mode: "timestamp_ms" }),
    // Issue 40: a pending stay holds its place (counts against the inventory)
    // from heldSince, when its guest confirmed their email (or at once, with
    // BOOKING_EMAIL_CONFIRMATION off; null while it awaits the email), until
    // expiresAt, when it lapses unless the house confirms it; emailTokenHash is
    // the SHA-256 of the first mail's link token; lapsedAt, when a lapsed stay
    // was released (cancelled). The triggers compare them with the clock
    // (drizzle/0029_pending_holds.sql).
    heldSince: integer("held_since", { mode: "timestamp_ms" }),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    emailTokenHash: text("email_token_hash"),
    lapsedAt: integer("lapsed_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("anonymous_reservations_code_unique").on(t.reservationCode),
    // Capacity checks and the calendar: the open stays of a type overlapping some nights.
    index("anonymous_reservations_stay_idx").on(t.reservationType, t.roomType, t.status, t.endDate, t.startDate),
    index("anonymous_reservations_room_idx").on(t.roomId, t.endDate),
    index("anonymous_reservations_sala_idx").on(t.salaId, t.heldTo),
    index("anonymous_reservations_status_idx").on(t.status, t.createdAt),
    // The admin's list (app/models/reservation.server.ts): pages in booking
    // order whatever the status filter, read from this index alone.
    index("anonymous_reservations_list_idx").on(t.createdAt, t.status, t.endDate),
    // The admin's stats: every status, split by "stay over", from this index alone.
    index("anonymous_reservations_status_end_idx").on(t.status, t.endDate),
    // Issue 40: the release job's lapsed pending stays, and the caps on open
    // pending stays per email and per client address.
    index("anonymous_reservations_expiry_idx").on(t.status, t.expiresAt),
    index("anonymous_reservations_email_idx").on(sql`lower(${t.guestEmail})`, t.status),
    index("anonymous_reservations_ip_idx").on(t.ipAddress, t.createdAt),
  ],
);

export const consultations = sqliteTable(
  "consultations",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: CONSULTATION_KINDS }).notNull().default("consulta"),
    nombre: text("nombre").notNull(),
    email: text("email").notNull(),
    telefono: text("telefono").notNull(),
    mensaje: text("mensaje").notNull(),
    // sha256 of the normalised message: finds "the same message again within 24 h".
    messageHash: text("message_hash").notNull(),
    // Visit requests: the day and hour the visitor asked for (null for enquiries).
    visitDate: text("visit_date"),
    visitTime: text("visit_time"),
    status: text("status", { enum: CONSULTATION_STATUSES }).notNull().default("pending"),
    adminNotes: text("admin_notes"),
    ipAddress: text("ip_address"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("consultations_status_idx").on(t.status, t.createdAt),
    index("consultations_created_idx").on(t.createdAt),
    index("consultations_duplicate_idx").on(t.email, t.messageHash, t.createdAt),
  ],
);

export const captchaChallenges = sqliteTable(
  "captcha_challenges",
  {
    id: text("id").primaryKey(),
    answerHash: text("answer_hash").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("captcha_challenges_expires_idx").on(t.expiresAt)],
);

export type DoorHardware = {
  online: boolean;
  lastSeen: string | null;
  version: string | null;
  reader: string | null;
};

export const doors = sqliteTable(
  "doors",
  {
    id: text("id").primaryKey(),
    // The door's hardware code: the bridge's MQTT username and topic level
    // ([A-Za-z0-9_-]{1,32}); "doorId" on the API's wire. Everywhere else in
    // the code, doorId means a door row's id.
    code: text("door_id").notNull(),
    name: text("name").notNull(),
    location: text("location").notNull(),
    description: text("description"),
    status: text("status", { enum: DOOR_STATUSES }).notNull().default("active"),
    useCustomMessages: integer("use_custom_messages", { mode: "boolean" })
      .notNull()
      .default(false),
    customStatus: text("custom_status"),
    customMessage: text("custom_message"),
    lastAccessAt: integer("last_access_at", { mode: "timestamp_ms" }),
    hardware: text("hardware", { mode: "json" }).$type<DoorHardware>(),
    // Hash of the bridge's MQTT password in Mosquitto's $7$ (PBKDF2-SHA512) format; null until issued.
    bridgeSecretHash: text("bridge_secret_hash"),
    bridgeSecretIssuedAt: integer("bridge_secret_issued_at", { mode: "timestamp_ms" }),
    // Version of the offline credentials list last published for this door.
    credentialsVersion: integer("credentials_version").notNull().default(0),
    // The facility this door leads to: residents' confirmed bookings of it
    // open the door during the booking (docs/mqtt.md, "booking windows").
    facilityId: text("facility_id").references((): AnySQLiteColumn => facilities.id, { onDelete: "set null" }),
    // Office mode (docs/mqtt.md, "Doors on a timetable"): the lock stays released inside
    // these weekly ranges (empty: no timetable); on a holiday only with unlockOnHolidays;
    // with firstPersonIn only after the day's first granted card.
    unlockSchedule: text("unlock_schedule", { mode: "json" }).$type<WeeklySchedule>().notNull().default(sql`'[]'`),
    unlockOnHolidays: integer("unlock_on_holidays", { mode: "boolean" }).notNull().default(false),
    firstPersonIn: integer("first_person_in", { mode: "boolean" }).notNull().default(false),
    // Open longer than this after a grant: the held-open alarm (app/access/door-alarms.server.ts).
    heldOpenSeconds: integer("held_open_seconds").notNull().default(30),
    // A building entrance ('Acceso principal'): guests' stay keys open it.
    isEntrance: integer("is_entrance", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("doors_door_id_unique").on(t.code),
    index("doors_status_idx").on(t.status),
    index("doors_facility_idx").on(t.facilityId),
  ],
);

export const cards = sqliteTable(
  "cards",
  {
    id: text("id").primaryKey(),
    // Canonical id: upper-case hex, two characters per byte.
    cardNumber: text("card_number").notNull(),
    alias: text("alias"),
    description: text("description"),
    cardType: text("card_type", { enum: CARD_TYPES }).notNull().default("primary"),
    status: text("status", { enum: CARD_STATUSES }).notNull().default("pending"),
    isAnonymous: integer("is_anonymous", { mode: "boolean" }).notNull().default(false),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    totalAccessAttempts: integer("total_access_attempts").notNull().default(0),
    successfulAccesses: integer("successful_accesses").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("cards_card_number_unique").on(t.cardNumber),
    index("cards_user_idx").on(t.userId),
    index("cards_status_idx").on(t.status),
    index("cards_last_used_idx").on(t.lastUsedAt),
    // The card list's default order (lastUsed desc, never-used cards last, then id):
    // its first page is read from this index instead of sorting every card (migration 0023).
    index("cards_last_used_order_idx").on(sql`(${t.lastUsedAt} IS NULL)`, sql`${t.lastUsedAt} DESC`, t.id),
    index("cards_created_idx").on(t.createdAt),
    index("cards_anonymous_idx").on(t.isAnonymous),
    index("cards_expires_idx").on(t.expiresAt),
  ],
);

export const cardPermissions = sqliteTable(
  "card_permissions",
  {
    cardId: text("card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    doorId: text("door_id")
      .notNull()
      .references(() => doors.id, { onDelete: "cascade" }),
    granted: integer("granted", { mode: "boolean" }).notNull().default(true),
    // A granted permission's weekly timetable (app/doors/schedule.ts); null or empty: always.
    schedule: text("schedule", { mode: "json" }).$type<WeeklySchedule>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.cardId, t.doorId] }),
    index("card_permissions_door_idx").on(t.doorId),
  ],
);

// One row per card swipe. Card, door and user are kept both as references and
// as the values seen at the time, so the log survives deletions and renames.
export const accessLogs = sqliteTable(
  "access_logs",
  {
    // The row's key (GET /api/logs `_id`): the swipe's or offline event's id,
    // unless another door's row already has that id (then a fresh one).
    id: text("id").primaryKey(),
    // The swipe's or offline event's id as the door sent it: unique per door
    // (door_code, event_id), so a door's redelivery finds its own row only.
    eventId: text("event_id"),
    timestamp: integer("timestamp", { mode: "timestamp_ms" }).notNull(),
    cardId: text("card_id").references(() => cards.id, { onDelete: "set null" }),
    cardNumber: text("card_number").notNull(),
    doorId: text("door_id").references(() => doors.id, { onDelete: "set null" }),
    doorCode: text("door_code").notNull(),
    doorName: text("door_name"),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    username: text("username"),
    // The row's outcome (issue 40, points 15 and 17; migration 0028), ACCESS_OUTCOMES:
    // 0 denied, 1 granted, 2 a door alarm (never a grant or a denial), 3 a
    // denial resolved by its card's approval. Read through drizzle only 1 is
    // true; the log's queries read the value (app/models/access-log-query.server.ts).
    // Kept in this column (not a generated one) so the indexes stay covering.
    accessGranted: integer("access_granted", { mode: "boolean" }).notNull(),
    reason: text("reason", { enum: ACCESS_REASONS }).notNull(),
    isAnonymous: integer("is_anonymous", { mode: "boolean" }).notNull().default(false),
    offline: integer("offline", { mode: "boolean" }).notNull().default(false),
    source: text("source"),
    ipAddress: text("ip_address"),
    // What was presented: a card, or a door key's PIN or QR token (issue 29).
    // A key's row names the key and its holder ('Huésped Ana López · LC7Q2M4A');
    // its card_number is the key's reference (the reservation code), never the PIN or token.
    credentialKind: text("credential_kind", { enum: CREDENTIAL_KINDS }).notNull().default("card"),
    keyId: text("key_id").references((): AnySQLiteColumn => doorKeys.id, { onDelete: "set null" }),
    holder: text("holder"),
    // A denied row resolved by approving its card (issue 40, point 15: DELETE
    // /api/logs/cleanup and approving from the log mark them; nothing deletes them).
    resolvedAt: integer("resolved_at", { mode: "timestamp_ms" }),
  },
  // The admin's log screen, API and export read through these
  // (app/models/access-log-query.server.ts explains which query uses which).
  (t) => [
    uniqueIndex("access_logs_door_event_idx").on(t.doorCode, t.eventId),
    index("access_logs_timestamp_idx").on(t.timestamp),
    index("access_logs_granted_idx").on(t.accessGranted, t.timestamp),
    index("access_logs_door_idx").on(t.doorId, t.timestamp),
    index("access_logs_door_granted_idx").on(t.doorId, t.accessGranted, t.timestamp),
    // The username last: a search at a door checks it from the index, not the table (migration 0022).
    index("access_logs_door_card_idx").on(t.doorId, t.cardNumber, t.accessGranted, t.timestamp, t.username),
    index("access_logs_card_idx").on(t.cardNumber, t.accessGranted, t.timestamp, t.doorId),
    index("access_logs_card_id_idx").on(t.cardId, t.accessGranted),
    // The log's credential kind filter (PIN and QR rows among many card rows):
    // in time order, alone or at a door, with the result, the card number
    // (a key's reference) and the username in the index for the stats' counts
    // and the search.
    index("access_logs_kind_idx").on(t.credentialKind, t.timestamp, t.accessGranted, t.cardNumber, t.username),
    index("access_logs_kind_door_idx").on(t.credentialKind, t.doorId, t.timestamp, t.accessGranted, t.cardNumber, t.username),
    index("access_logs_user_idx").on(sql`${t.username} COLLATE NOCASE`, t.cardNumber, t.accessGranted, t.timestamp, t.doorId),
  ],
);

/**
 * The access log is append-only (issue 40, point 15): a trigger refuses every
 * DELETE of access_logs but the retention purge's, which raises
 * `purge_before` (epoch ms, never in the future: another trigger) inside its
 * own transaction, deletes the older rows and sets it back to 0 (migration 0028).
 */
export const accessLogControl = sqliteTable("access_log_control", {
  id: integer("id").primaryKey(),
  purgeBefore: integer("purge_before").notNull().default(0),
});

// The access log's figures, kept by triggers on access_logs (migration 0015:
// every insert, delete and update of a row, in the writer's own transaction,
// whoever writes: the recorder, the cleanup, the purge, a door's deletion),
// so the dashboard and the log screen read counters instead of counting rows
// (app/models/access-log-query.server.ts). `doorKey` is the row's door_id, or
// '' for a row without a door row. `granted` is the row's access_granted, its
// outcome (migration 0028): 0 denied, 1 granted, 2 alarm, 3 resolved denial.

/** Rows per hour (epoch ms / 3,600,000), door and result. */
export const accessLogHours = sqliteTable(
  "access_log_hours",
  {
    hour: integer("hour").notNull(),
    doorKey: text("door_key").notNull(),
    granted: integer("granted").notNull(),
    attempts: integer("attempts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.doorKey, t.granted] }), index("access_log_hours_door_idx").on(t.doorKey, t.hour)],
);

/** Rows per card number, door and result, with the newest row's timestamp: unique cards since any instant. */
export const accessLogCardDoors = sqliteTable(
  "access_log_card_doors",
  {
    doorKey: text("door_key").notNull(),
    cardNumber: text("card_number").notNull(),
    granted: integer("granted").notNull(),
    attempts: integer("attempts").notNull(),
    lastAt: integer("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.doorKey, t.cardNumber, t.granted] })],
);

/** Rows per card number and result, whatever the door, with the newest row's timestamp. */
export const accessLogCards = sqliteTable(
  "access_log_cards",
  {
    cardNumber: text("card_number").notNull(),
    granted: integer("granted").notNull(),
    attempts: integer("attempts").notNull(),
    lastAt: integer("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.cardNumber, t.granted] }), index("access_log_cards_granted_last_idx").on(t.granted, t.lastAt)],
);

/**
 * Each card number's newest row, whatever its door and result (migration
 * 0025): the unique cards since an instant are one range of the time index,
 * not a scan of every card.
 */
export const accessLogCardLast = sqliteTable(
  "access_log_card_last",
  {
    cardNumber: text("card_number").primaryKey(),
    lastAt: integer("last_at").notNull(),
  },
  (t) => [index("access_log_card_last_at_idx").on(t.lastAt)],
);

// One store for door incidents, residents' incidents and public fault reports
// (docs/decisions/0002-one-incident-store.md).
// Door alarms (docs/mqtt.md, "Door alarms"): raised by the access service
// (forced open, held open, offline), one open row per door and kind at most
// (the partial unique index), cleared when the door closes or comes back.
// The web process sends each one's staff notice (and, for a forced door, opens
// its incident) once, claiming it with notifiedAt.
export const doorAlarms = sqliteTable(
  "door_alarms",
  {
    id: text("id").primaryKey(),
    doorId: text("door_id")
      .notNull()
      .references(() => doors.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: DOOR_ALARM_KINDS }).notNull(),
    raisedAt: integer("raised_at", { mode: "timestamp_ms" }).notNull(),
    clearedAt: integer("cleared_at", { mode: "timestamp_ms" }),
    notifiedAt: integer("notified_at", { mode: "timestamp_ms" }),
    incidentId: text("incident_id").references((): AnySQLiteColumn => incidents.id, { onDelete: "set null" }),
    // Storms (issue 40, point 4): an alarm of a door and kind raised within the
    // repeat window (DOOR_ALARM_REPEAT_MINUTES) of the one that was notified is
    // a repeat of it: no notice and no incident of its own; the notified one
    // counts its repeats.
    repeatOf: text("repeat_of").references((): AnySQLiteColumn => doorAlarms.id, { onDelete: "set null" }),
    repeats: integer("repeats").notNull().default(0),
  },
  (t) => [
    index("door_alarms_door_kind_raised_idx").on(t.doorId, t.kind, t.raisedAt),
    uniqueIndex("door_alarms_open_unique").on(t.doorId, t.kind).where(sql`${t.clearedAt} IS NULL`),
    index("door_alarms_raised_idx").on(t.raisedAt),
    index("door_alarms_cleared_idx").on(t.clearedAt),
    index("door_alarms_unnotified_idx").on(t.notifiedAt),
  ],
);

export const incidents = sqliteTable(
  "incidents",
  {
    id: text("id").primaryKey(),
    source: text("source", { enum: INCIDENT_SOURCES }).notNull(),
    title: text("title").notNull(),
    type: text("type", { enum: INCIDENT_TYPES }).notNull().default("other"),
    category: text("category", { enum: INCIDENT_CATEGORIES }),
    status: text("status", { enum: INCIDENT_STATUSES }).notNull().default("open"),
    urgency: text("urgency", { enum: INCIDENT_URGENCIES }).notNull().default("medium"),
    description: text("description"),
    location: text("location"),
    doorId: text("door_id").references(() => doors.id, { onDelete: "set null" }),
    doorName: text("door_name"),
    reportedById: text("reported_by_id").references(() => users.id, { onDelete: "set null" }),
    reportedBy: text("reported_by"),
    // Public reports: the reporter's name and floor ("departamento").
    reporterName: text("reporter_name"),
    floor: text("floor"),
    photos: text("photos", { mode: "json" }).$type<string[]>(),
    reportedAt: integer("reported_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("incidents_status_idx").on(t.status, t.reportedAt),
    index("incidents_type_idx").on(t.type, t.reportedAt),
    index("incidents_urgency_idx").on(t.urgency, t.reportedAt),
    index("incidents_door_idx").on(t.doorId, t.reportedAt),
    index("incidents_reporter_idx").on(t.reportedById, t.reportedAt),
    index("incidents_reported_idx").on(t.reportedAt),
  ],
);

export const facilities = sqliteTable("facilities", {
  id: text("id").primaryKey(),
  type: text("type", { enum: FACILITY_TYPES }).notNull(),
  name: text("name").notNull(),
  capacity: integer("capacity"),
  sortOrder: integer("sort_order").notNull().default(0),
});

// The house's rooms: the inventory guests' room stays are counted against
// and assigned to (drizzle/0013_rooms_inventory.sql seeds a first one).
export const rooms = sqliteTable(
  "rooms",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    floor: integer("floor").notNull(),
    roomType: text("room_type", { enum: ROOM_TYPES }).notNull(),
    // The room's own lock, if it has one: a door row's id.
    doorId: text("door_id").references(() => doors.id, { onDelete: "set null" }),
    status: text("status", { enum: ROOM_STATUSES }).notNull().default("available"),
    notes: text("notes"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("rooms_name_unique").on(sql`lower(${t.name})`), index("rooms_type_idx").on(t.roomType, t.status)],
);

export const facilityBookings = sqliteTable(
  "facility_bookings",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    facilityId: text("facility_id")
      .notNull()
      .references(() => facilities.id),
    startsAt: integer("starts_at", { mode: "timestamp_ms" }).notNull(),
    endsAt: integer("ends_at", { mode: "timestamp_ms" }).notNull(),
    durationHours: integer("duration_hours").notNull(),
    notes: text("notes"),
    status: text("status", { enum: BOOKING_STATUSES }).notNull().default("confirmed"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("facility_bookings_user_idx").on(t.userId, t.startsAt),
    index("facility_bookings_facility_idx").on(t.facilityId, t.startsAt),
  ],
);

export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull().default("info"),
    title: text("title").notNull(),
    message: text("message").notNull(),
    read: integer("read", { mode: "boolean" }).notNull().default(false),
    // Set for notifications that must be sent once (e.g. a card's expiry
    // warning: "card-expiry:<cardId>:<expiresAt>"); null for the others.
    dedupeKey: text("dedupe_key"),
    createdAt: createdAt(),
  },
  (t) => [
    index("notifications_user_idx").on(t.userId, t.read, t.createdAt),
    uniqueIndex("notifications_dedupe_key_unique").on(t.dedupeKey).where(sql`${t.dedupeKey} IS NOT NULL`),
  ],
);

// Access groups (docs/architecture.md, "Access groups"): a name and doors,
// each with a weekly timetable; users belong to groups, and a user's active
// card opens a group's door within its timetable.
export const accessGroups = sqliteTable(
  "access_groups",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("access_groups_name_unique").on(sql`lower(${t.name})`)],
);

export const accessGroupDoors = sqliteTable(
  "access_group_doors",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => accessGroups.id, { onDelete: "cascade" }),
    doorId: text("door_id")
      .notNull()
      .references(() => doors.id, { onDelete: "cascade" }),
    // Empty: always.
    schedule: text("schedule", { mode: "json" }).$type<WeeklySchedule>().notNull().default(sql`'[]'`),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.doorId] }), index("access_group_doors_door_idx").on(t.doorId)],
);

export const userAccessGroups = sqliteTable(
  "user_access_groups",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    groupId: text("group_id")
      .notNull()
      .references(() => accessGroups.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.groupId] }), index("user_access_groups_group_idx").on(t.groupId)],
);

// The building's calendar of holidays (docs/mqtt.md, "Doors on a timetable"):
// door timetables do not unlock on these days unless the door says otherwise.
export const holidays = sqliteTable(
  "holidays",
  {
    id: text("id").primaryKey(),
    // ISO calendar day in the building's zone, "2026-12-25".
    day: text("day").notNull(),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("holidays_day_unique").on(t.day)],
);

// Building-wide settings, one JSON value per key (app/models/setting.server.ts).
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: updatedAt(),
});

export const buildingReadings = sqliteTable(
  "building_readings",
  {
    id: text("id").primaryKey(),
    temperature: real("temperature").notNull(),
    humidity: real("humidity").notNull(),
    wifiStatus: text("wifi_status").notNull(),
    recordedAt: integer("recorded_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("building_readings_recorded_idx").on(t.recordedAt)],
);

// Building sensors publish the building's conditions over MQTT
// (docs/mqtt.md, "Building sensors"). Each logs in as `sensor.<sensorId>`
// with its own secret; only the hash is kept, in Mosquitto's format.
export const buildingSensors = sqliteTable("building_sensors", {
  id: text("id").primaryKey(),
  sensorId: text("sensor_id").notNull().unique(),
  secretHash: text("secret_hash").notNull(),
  secretIssuedAt: integer("secret_issued_at", { mode: "timestamp_ms" }).notNull(),
  createdAt: createdAt(),
});

// The audit trail (docs/audit.md): one row per change made through the app,
// append-only and hash-chained. `id` is the chain's order; `hash` is the
// SHA-256 of the row's content and `prev_hash` (the previous row's hash). The
// migration adds triggers that refuse UPDATE and any DELETE but the retention
// purge's (rows below `audit_control.purge_below`).
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey(),
    at: integer("at").notNull(),
    actorId: text("actor_id"),
    actorUsername: text("actor_username").notNull(),
    // A user's role (admin, user), or sistema, huesped, anonimo (app/schemas/audit.ts).
    actorRole: text("actor_role").notNull(),
    ip: text("ip"),
    action: text("action").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id"),
    summary: text("summary").notNull(),
    // JSON text, secrets already shown as [oculto]; hashed as stored.
    before: text("before"),
    after: text("after"),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    index("audit_events_at_idx").on(t.at),
    index("audit_events_actor_idx").on(sql`${t.actorUsername} COLLATE NOCASE`),
    index("audit_events_entity_idx").on(t.entityType, t.entityId),
    index("audit_events_action_idx").on(t.action),
  ],
);

// One row (id 1): the bound below which the retention purge may delete audit
// events, set and cleared by the purge inside its own transaction.
export const auditControl = sqliteTable("audit_control", {
  id: integer("id").primaryKey(),
  purgeBelow: integer("purge_below").notNull().default(0),
});

export type User = typeof users.$inferSelect;
export type Door = typeof doors.$inferSelect;
export type Card = typeof cards.$inferSelect;
export type AccessLog = typeof accessLogs.$inferSelect;
export type Incident = typeof incidents.$inferSelect;
export type AnonymousReservation = typeof anonymousReservations.$inferSelect;
export type Consultation = typeof consultations.$inferSelect;
export type Facility = typeof facilities.$inferSelect;
// Door keys (issue 29; docs/access-keys.md): a PIN and a QR token that open
// some doors only inside their windows. A guest's confirmed stay has one
// (kind "stay"), kept in step with the stay by app/services/door-keys.server.ts;
// a resident's visitor pass is one (kind "visitor", app/services/visitor-passes.server.ts).
// The PIN and token are kept as issued (the guest's lookup page shows them
// again, as the cards' numbers are kept); the doors look the token up by its
// SHA-256 (`qr_hash`) and compare it in constant time; offline lists carry
// only salted hashes.
export const doorKeys = sqliteTable(
  "door_keys",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: DOOR_KEY_KINDS }).notNull(),
    reservationId: text("reservation_id").references(() => anonymousReservations.id, { onDelete: "cascade" }),
    status: text("status", { enum: DOOR_KEY_STATUSES }).notNull().default("active"),
    /** Six digits: unique among active keys whose windows overlap (checked in the issuing write transaction). */
    pin: text("pin").notNull(),
    /** `LC1-` + base32 of 20 random bytes (160 bits), what a QR scanner sends as one line. */
    qrToken: text("qr_token").notNull(),
    /** Hex SHA-256 of the token: the door's lookup. */
    qrHash: text("qr_hash").notNull(),
    /** The log's and the admin's name for the holder: 'Huésped Ana López · LC7Q2M4A'. */
    holderLabel: text("holder_label").notNull(),
    /** The display's greeting ('Hola, Ana'); may be empty. */
    holderFirstName: text("holder_first_name").notNull().default(""),
    /** The windows [from, to) in epoch ms, in order; validFrom/validUntil span them. */
    windows: text("windows", { mode: "json" }).notNull().$type<[number, number][]>(),
    validFrom: integer("valid_from", { mode: "timestamp_ms" }).notNull(),
    validUntil: integer("valid_until", { mode: "timestamp_ms" }).notNull(),
    /** Every building entrance (doors.is_entrance) too, whichever they are at the swipe. */
    entrances: integer("entrances", { mode: "boolean" }).notNull().default(false),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    /** A visitor pass: the resident who gave it (deleting them deletes their passes). */
    createdBy: text("created_by").references((): AnySQLiteColumn => users.id, { onDelete: "cascade" }),
    visitorName: text("visitor_name"),
    visitorEmail: text("visitor_email"),
    /** A visitor pass's first granted use (set by the access log's recording, once). */
    firstUsedAt: integer("first_used_at", { mode: "timestamp_ms" }),
    /** When the resident was told 'Tu visita … ha llegado' (claimed once, by one web process). */
    arrivalNotifiedAt: integer("arrival_notified_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("door_keys_pin_idx").on(t.pin, t.status, t.validUntil),
    index("door_keys_created_by_idx").on(t.createdBy, t.validUntil),
    index("door_keys_arrival_idx").on(t.kind, t.arrivalNotifiedAt, t.firstUsedAt),
    uniqueIndex("door_keys_qr_hash_unique").on(t.qrHash),
    index("door_keys_reservation_idx").on(t.reservationId),
    index("door_keys_status_idx").on(t.status, t.validUntil),
  ],
);

/** The doors a key opens besides the entrances (a stay's room door, a sala's door). */
export const doorKeyDoors = sqliteTable(
  "door_key_doors",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => doorKeys.id, { onDelete: "cascade" }),
    doorId: text("door_id")
      .notNull()
      .references(() => doors.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.doorId] }), index("door_key_doors_door_idx").on(t.doorId)],
);

export type DoorKey = typeof doorKeys.$inferSelect;
export type Room = typeof rooms.$inferSelect;
export type FacilityBooking = typeof facilityBookings.$inferSelect;
export type BuildingReading = typeof buildingReadings.$inferSelect;
export type AccessGroup = typeof accessGroups.$inferSelect;
export type Holiday = typeof holidays.$inferSelect;
export type AuditEvent = typeof auditEvents.$inferSelect;
