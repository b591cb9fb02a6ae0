// The MQTT wire contract between the app and the door bridges (docs/mqtt.md):
// topic names, who may use which topic, and the shapes of the payloads.
// Correlation and deadlines travel in the JSON payloads, so MQTT 3.1.1 is enough.
import { z } from "zod";
import { ACCESS_REASONS, type DOOR_STATUSES } from "~/db/schema";
import type { AccessReason } from "./reasons";
import type { ScheduleRange } from "./schedule";

export { canonicalCardId } from "~/utils/card-number";

/** A door's hardware id as it appears in topics and as its MQTT username. */
export const DOOR_CODE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** Published by the bridge. */
export const BRIDGE_TOPICS = ["swipe", "state", "events"] as const;
/** Published by the app, read by the bridge. */
export const APP_TOPICS = ["decision", "display", "credentials", "receipt"] as const;

export type DoorTopicKind = (typeof BRIDGE_TOPICS)[number] | (typeof APP_TOPICS)[number];

export function doorTopic(prefix: string, doorCode: string, kind: DoorTopicKind) {
  return `${prefix}/doors/${doorCode}/${kind}`;
}

/** Internal: the admin's change notifications to the access service (app account only). */
export function changesTopic(prefix: string) {
  return `${prefix}/app/changes`;
}

/** `{prefix}/doors/{door}/{kind}` → its parts; null for any other topic. */
export function parseDoorTopic(prefix: string, topic: string): { doorCode: string; kind: DoorTopicKind } | null {
  const start = `${prefix}/doors/`;
  if (!topic.startsWith(start)) return null;
  const parts = topic.slice(start.length).split("/");
  if (parts.length !== 2) return null;
  const [doorCode, kind] = parts as [string, string];
  if (!DOOR_CODE_PATTERN.test(doorCode)) return null;
  if (!(BRIDGE_TOPICS as readonly string[]).includes(kind) && !(APP_TOPICS as readonly string[]).includes(kind)) {
    return null;
  }
  return { doorCode, kind: kind as DoorTopicKind };
}

/** A door's client may publish only to its own swipe, state and events topics. */
export function mayDoorPublish(prefix: string, doorCode: string, topic: string) {
  const parsed = parseDoorTopic(prefix, topic);
  return parsed?.doorCode === doorCode && (BRIDGE_TOPICS as readonly string[]).includes(parsed.kind);
}

/** A door's client may subscribe only to its own decision, display, credentials and receipt topics (no wildcards). */
export function mayDoorSubscribe(prefix: string, doorCode: string, topicFilter: string) {
  const parsed = parseDoorTopic(prefix, topicFilter);
  return parsed?.doorCode === doorCode && (APP_TOPICS as readonly string[]).includes(parsed.kind);
}

const isoDate = z.string().refine((text) => !Number.isNaN(Date.parse(text)), "expected an ISO 8601 date");
const messageId = z.string().min(1).max(64);

/**
 * What a swipe or event presents: exactly one of `card` (a card's id),
 * `pin` (digits typed at a keypad) or `qr` (a token a QR scanner read).
 */
const credentialFields = {
  card: z.string().max(64).optional(),
  pin: z.string().max(32).optional(),
  qr: z.string().max(128).optional(),
};
const exactlyOneCredential = (message: { card?: string; pin?: string; qr?: string }) =>
  [message.card, message.pin, message.qr].filter((value) => value !== undefined).length === 1;
const ONE_CREDENTIAL = "expected exactly one of card, pin, qr";

/** bridge → app, QoS 1. `source`: "reader" with `card`, "keypad" with `pin`, "qr" with `qr` ("mobile": a card id from the app). */
export const swipeSchema = z
  .object({
    id: messageId,
    ...credentialFields,
    at: isoDate,
    source: z.enum(["reader", "mobile", "keypad", "qr"]),
  })
  .refine(exactlyOneCredential, ONE_CREDENTIAL);
export type SwipeMessage = z.infer<typeof swipeSchema>;

/** The credential of a parsed swipe or event. */
export type PresentedCredential = { kind: "card"; card: string } | { kind: "pin"; pin: string } | { kind: "qr"; qr: string };

export function presentedCredential(message: { card?: string; pin?: string; qr?: string }): PresentedCredential {
  if (message.pin !== undefined) return { kind: "pin", pin: message.pin };
  if (message.qr !== undefined) return { kind: "qr", qr: message.qr };
  return { kind: "card", card: message.card ?? "" };
}

/** Just enough of a swipe to answer it: a swipe without a usable id cannot be correlated. */
export const swipeIdSchema = z.object({ id: messageId });

/**
 * bridge → app, QoS 1, on `events`: what the door did. `offline: true`, a
 * decision the bridge took from its offline list; `offline: false`, a swipe
 * the app answered, sent again because no receipt named it (the app answers
 * before its commit, so it may have stopped in between).
 */
export const doorEventSchema = z
  .object({
    id: messageId,
    ...credentialFields,
    at: isoDate,
    granted: z.boolean(),
    reason: z.enum(ACCESS_REASONS),
    offline: z.boolean(),
  })
  .refine(exactlyOneCredential, ONE_CREDENTIAL);
export type DoorEventMessage = z.infer<typeof doorEventSchema>;

/** bridge → app, retained; the bridge's last will is `{"online": false}`. */
export const bridgeStateSchema = z.union([
  z.object({
    online: z.literal(true),
    version: z.string().max(64).optional(),
    reader: z.string().max(64).optional(),
    since: isoDate.optional(),
  }),
  z.object({ online: z.literal(false) }),
]);
export type BridgeStateMessage = z.infer<typeof bridgeStateSchema>;

/** app → bridge, QoS 1. */
export type DecisionMessage = {
  id: string;
  granted: boolean;
  reason: AccessReason;
  display: { line1: string; line2: string };
  unlockMs: number;
};

/** app → bridge, retained. */
export type DisplayMessage = {
  status: string;
  welcome: string;
  doorStatus: (typeof DOOR_STATUSES)[number];
  updatedAt: string;
};

/**
 * app → bridge, retained: the cards that would be granted on the door now.
 * `win`: booking windows [from, to) as ISO instants; `sch`: weekly
 * timetables ({days: ISO weekdays, from, to: "HH:MM"} in `tz`). A card with
 * either is granted offline only inside one of its windows or ranges; with
 * neither, at any time.
 */
export type CredentialsMessage = {
  version: number;
  generatedAt: string;
  salt: string;
  /** The time zone the timetables are in (the building's, IANA). */
  tz: string;
  cards: { h: string; exp: string | null; win?: [string, string][]; sch?: ScheduleRange[] }[];
  /**
   * Door keys (PIN and QR, docs/access-keys.md) valid on this door whose
   * windows end after `generatedAt` and start within the list's horizon:
   * `h` = hex SHA-256 of salt + "pin:" + PIN (or + "qr:" + token), never the
   * PIN or token itself; `k` which of the two; `win` the windows [from, to),
   * granted offline only inside one; `n` the holder's first name for the greeting.
   */
  keys: CredentialKey[];
};

export type CredentialKey = { h: string; k: "pin" | "qr"; win: [string, string][]; n: string };

/** Most ids (events and swipes together) in one receipt. */
export const MAX_RECEIPT_IDS = 500;

/**
 * app → bridge, QoS 1, not retained: what of this door's is stored
 * (committed), duplicates included. `ids`: events it published on `events`;
 * `swipes`: swipes, i.e. the rows of the app's own decisions. The bridge
 * keeps each event and each answered swipe until a receipt names it; a swipe
 * id never clears an offline event of the same id (the door's decision when
 * the app's came too late), which is stored on its own.
 */
export type ReceiptMessage = { ids?: string[]; swipes?: string[] };

/** The receipts for a door's stored events and swipes: each id once, at most MAX_RECEIPT_IDS a message. */
export function receiptMessages({ ids = [], swipes = [] }: { ids?: Iterable<string>; swipes?: Iterable<string> }): ReceiptMessage[] {
  const named = [
    ...[...new Set(ids)].map((id) => ({ field: "ids" as const, id })),
    ...[...new Set(swipes)].map((id) => ({ field: "swipes" as const, id })),
  ];
  const messages: ReceiptMessage[] = [];
  for (let start = 0; start < named.length; start += MAX_RECEIPT_IDS) {
    const message: ReceiptMessage = {};
    for (const { field, id } of named.slice(start, start + MAX_RECEIPT_IDS)) (message[field] ??= []).push(id);
    messages.push(message);
  }
  return messages;
}

/** A building sensor's id, as it appears in its topic. */
export const SENSOR_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const SENSOR_USERNAME_PREFIX = "sensor.";

/** A sensor logs in as `sensor.<sensorId>`: the dot keeps it apart from every doorId. */
export function sensorUsername(sensorId: string) {
  return `${SENSOR_USERNAME_PREFIX}${sensorId}`;
}

/** The sensor id of a sensor's username, or null for any other username. */
export function sensorIdOfUsername(username: string): string | null {
  if (!username.startsWith(SENSOR_USERNAME_PREFIX)) return null;
  const sensorId = username.slice(SENSOR_USERNAME_PREFIX.length);
  return SENSOR_ID_PATTERN.test(sensorId) ? sensorId : null;
}

const BRIDGE_CLIENT_ID_PREFIX = "coliving-bridge-";
const SENSOR_CLIENT_ID_PREFIX = "coliving-sensor-";

/** The client id a door's bridge connects with (bridge/src/controller.ts). */
export function bridgeClientId(doorCode: string) {
  return `${BRIDGE_CLIENT_ID_PREFIX}${doorCode}`;
}

/** The client id a building sensor connects with (scripts/sensor.mjs). */
export function sensorClientId(sensorId: string) {
  return `${SENSOR_CLIENT_ID_PREFIX}${sensorId}`;
}

/**
 * The account a client id belongs to by its form: `coliving-bridge-<doorId>`
 * is that door's, `coliving-sensor-<sensorId>` that sensor's (its username).
 * Null for any other id.
 */
export function clientIdOwner(clientId: string): string | null {
  if (clientId.startsWith(BRIDGE_CLIENT_ID_PREFIX)) {
    const doorCode = clientId.slice(BRIDGE_CLIENT_ID_PREFIX.length);
    return DOOR_CODE_PATTERN.test(doorCode) ? doorCode : null;
  }
  if (clientId.startsWith(SENSOR_CLIENT_ID_PREFIX)) {
    const sensorId = clientId.slice(SENSOR_CLIENT_ID_PREFIX.length);
    return SENSOR_ID_PATTERN.test(sensorId) ? sensorUsername(sensorId) : null;
  }
  return null;
}

/** sensor → app, QoS 1: `{prefix}/building/{sensorId}/conditions`. */
export function sensorTopic(prefix: string, sensorId: string) {
  return `${prefix}/building/${sensorId}/conditions`;
}

/** `{prefix}/building/{sensorId}/conditions` → the sensor id; null for any other topic. */
export function parseSensorTopic(prefix: string, topic: string): string | null {
  const match = topic.startsWith(`${prefix}/building/`) ? /^([^/]+)\/conditions$/.exec(topic.slice(prefix.length + "/building/".length)) : null;
  return match && SENSOR_ID_PATTERN.test(match[1]!) ? match[1]! : null;
}

/** sensor → app: the building's latest conditions. */
export const buildingConditionsSchema = z.object({
  /** °C */
  temperature: z.number().min(-40).max(85),
  /** relative humidity, % */
  humidity: z.number().min(0).max(100),
  /** e.g. "connected", "weak", "disconnected" */
  wifiStatus: z.string().min(1).max(32),
  at: isoDate,
});
export type BuildingConditionsMessage = z.infer<typeof buildingConditionsSchema>;

/** Internal: what changed, so the access service republishes the affected doors. */
export const accessChangeSchema = z.object({
  doorIds: z.array(z.string()).max(10_000).optional(),
  cardIds: z.array(z.string()).max(10_000).optional(),
  userIds: z.array(z.string()).max(10_000).optional(),
  /** Access groups created, changed, deleted, or joined or left by users: their timetables are read again. */
  groupIds: z.array(z.string()).max(10_000).optional(),
  all: z.boolean().optional(),
});
export type AccessChange = z.infer<typeof accessChangeSchema>;
