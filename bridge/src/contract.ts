/**
 * The MQTT wire contract shared with the app (see docs/bridge.md). This file is
 * the bridge's side of it: topic names, the shapes it publishes and the
 * validation of what it receives. Correlation travels in the JSON payload so
 * that MQTT 3.1.1 is enough.
 */
import { z } from 'zod';

/** Topic kinds under `{prefix}/doors/{door}/` the bridge publishes to. */
export const PUBLISHED_KINDS = ['swipe', 'state', 'events', 'contact'] as const;
/** Topic kinds under `{prefix}/doors/{door}/` the bridge subscribes to, on every connect. */
export const SUBSCRIBED_KINDS = ['decision', 'display', 'credentials', 'receipt'] as const;

export type DoorTopics = Record<(typeof PUBLISHED_KINDS)[number] | (typeof SUBSCRIBED_KINDS)[number], string>;

export function doorTopics(prefix: string, doorId: string): DoorTopics {
  const base = `${prefix}/doors/${doorId}`;
  const topic = (kind: string) => `${base}/${kind}`;
  return Object.fromEntries([...PUBLISHED_KINDS, ...SUBSCRIBED_KINDS].map((kind) => [kind, topic(kind)])) as DoorTopics;
}

const isoDate = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'expected an ISO 8601 date');

/** app → bridge. Unknown reason codes are accepted: the bridge only acts on `granted`. */
export const decisionSchema = z.object({
  id: z.string().min(1),
  granted: z.boolean(),
  reason: z.string(),
  display: z.object({ line1: z.string(), line2: z.string() }),
  unlockMs: z.number().int().nonnegative(),
});
export type Decision = z.infer<typeof decisionSchema>;

/** The building's time zone, for a list without `tz`. */
export const DEFAULT_TIME_ZONE = 'Europe/Madrid';

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'expected HH:MM');
const scheduleRanges = z.array(z.object({ days: z.array(z.number().int().min(1).max(7)), from: hhmm, to: hhmm }));
const calendarDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');

/**
 * app → bridge, retained. `mode`/`until`: what the app computed when it
 * published; `timetable`: the door's unlock timetable, which the bridge
 * applies itself by its own clock (door-mode.ts), online and offline.
 */
export const displayMessageSchema = z.object({
  status: z.string(),
  welcome: z.string(),
  doorStatus: z.enum(['active', 'maintenance', 'emergency']),
  updatedAt: isoDate,
  mode: z.enum(['locked', 'unlocked', 'lockdown']).optional(),
  until: hhmm.optional(),
  timetable: z
    .object({
      tz: z.string().min(1).optional(),
      sch: scheduleRanges,
      holidays: z.array(calendarDay),
      onHolidays: z.boolean(),
      firstPersonIn: z.boolean(),
      firstInDay: calendarDay.nullable(),
    })
    .optional(),
});
export type DisplayMessage = z.infer<typeof displayMessageSchema>;

/** app → bridge, retained: the cards that would be granted on this door now. */
export const credentialsListSchema = z.object({
  version: z.number().int().nonnegative(),
  generatedAt: isoDate,
  salt: z.string().regex(/^[0-9a-fA-F]*$/, 'expected hex'),
  /** The time zone of the timetables (`sch`); lists from before timetables have none (DEFAULT_TIME_ZONE). */
  tz: z.string().min(1).optional(),
  cards: z.array(
    z.object({
      h: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, 'expected a hex SHA-256')
        .transform((hash) => hash.toLowerCase()),
      exp: isoDate.nullable(),
      /**
       * Booking windows [from, to) (ISO): when present, the card is granted
       * only inside one of them (and while not expired).
       */
      win: z.array(z.tuple([isoDate, isoDate])).optional(),
      /**
       * Weekly timetable (days 1 = Monday … 7 = Sunday, [from, to) in `tz`):
       * when present, the card is granted only inside one of its ranges (or
       * of its booking windows), by the bridge's own clock.
       */
      sch: scheduleRanges.optional(),
    }),
  ),
  /**
   * Keys (PINs and QR tokens of guests' stays and visitors' passes) valid on
   * this door: `h` = sha256(salt + "pin:" + PIN) or sha256(salt + "qr:" +
   * token), `k` the kind, `win` the periods [from, to) (ISO) it opens in,
   * `n` the holder's first name for the greeting (may be empty). A key is
   * granted offline only inside one of its windows, by the bridge's clock.
   * Lists from before keys have none.
   */
  keys: z
    .array(
      z.object({
        h: z
          .string()
          .regex(/^[0-9a-fA-F]{64}$/, 'expected a hex SHA-256')
          .transform((hash) => hash.toLowerCase()),
        k: z.enum(['pin', 'qr']),
        win: z.array(z.tuple([isoDate, isoDate])),
        n: z.string().default(''),
      }),
    )
    .optional(),
});
export type CredentialsList = z.infer<typeof credentialsListSchema>;

/** Most ids in one receipt, ids and swipes together. */
export const MAX_RECEIPT_IDS = 500;

const receiptIds = z.array(z.string().min(1).max(64)).min(1).max(MAX_RECEIPT_IDS);

/**
 * app → bridge: what the app has stored (committed) for this door. `ids`: door
 * events it received on `events` (offline or answered); each leaves the
 * bridge's queue, whatever its kind. `swipes`: swipes whose decision's row it
 * stored; each removes only an answered swipe, never an offline event under
 * the same id: when the app's decision came too late, that event is the door's
 * real decision, and it is not stored until the app says so under `ids`.
 * At least one of the two; MAX_RECEIPT_IDS ids in all.
 */
export const receiptSchema = z
  .object({ ids: receiptIds.optional(), swipes: receiptIds.optional() })
  .refine((receipt) => receipt.ids !== undefined || receipt.swipes !== undefined, 'expected ids or swipes')
  .refine(
    (receipt) => (receipt.ids?.length ?? 0) + (receipt.swipes?.length ?? 0) <= MAX_RECEIPT_IDS,
    `expected at most ${MAX_RECEIPT_IDS} ids and swipes in all`,
  );
export type Receipt = z.infer<typeof receiptSchema>;

/**
 * The credential a swipe or an event carries: exactly one of a canonical card
 * id (`card`), a PIN typed on a keypad (`pin`) or a QR token (`qr`).
 */
export type CredentialFields =
  | { card: string; pin?: undefined; qr?: undefined }
  | { pin: string; card?: undefined; qr?: undefined }
  | { qr: string; card?: undefined; pin?: undefined };

/** bridge → app. `source`: `reader` (or `mobile`) with `card`, `keypad` with `pin`, `qr` with `qr`. */
export type SwipeMessage = { id: string; at: string; source: 'reader' | 'mobile' | 'keypad' | 'qr' } & CredentialFields;

/** bridge → app, retained. The last will is `{"online": false}`. */
export type StateMessage = { online: true; version: string; reader: string; since: string } | { online: false };

/**
 * bridge → app, QoS 1, retained: the door-position switch changed (and again
 * on every connect). `released`: the bridge had released the lock when it
 * happened (a grant, within contactGraceMs). `at`: when, by the bridge's clock.
 */
export interface ContactMessage {
  state: 'open' | 'closed';
  released: boolean;
  at: string;
}

/** Reasons the bridge puts in its offline events; each is one of the app's reason codes. */
export const OFFLINE_REASONS = [
  'granted',
  'booking_window',
  'unknown_card',
  'card_expired',
  'outside_booking_window',
  'outside_schedule',
  'offline_deny',
  'invalid_key',
  'outside_key_window',
  'keypad_locked',
] as const;
export type OfflineReason = (typeof OFFLINE_REASONS)[number];

/** bridge → app on `events`: a decision the bridge took from its offline list (with the swipe's card, pin or qr). */
export type OfflineEvent = {
  id: string;
  at: string;
  granted: boolean;
  reason: OfflineReason;
  offline: true;
} & CredentialFields;

/**
 * bridge → app on `events`: a swipe the app answered online, sent again
 * because no receipt named it (the app answers before it commits, so it may
 * have stopped in between). id, at and the credential (card, pin or qr) are
 * the swipe's; granted and reason the app's decision, reason as the app sent it.
 */
export type AnsweredSwipeEvent = {
  id: string;
  at: string;
  granted: boolean;
  reason: string;
  offline: false;
} & CredentialFields;

/** What the bridge keeps until a receipt names it, and publishes on `events`. */
export type DoorEvent = OfflineEvent | AnsweredSwipeEvent;
