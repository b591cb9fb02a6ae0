// The one rate-limit API for pages and the JSON API. A rule names how many
// hits a window allows; keys say whose hits they are (an address, a
// username). checkRateLimit counts a hit and refuses past the limit (429).
// Where only failures should count and the attempt is costly or must not
// race (sign-in), hitRateLimit counts the attempt up front, in one atomic
// statement, and takeBackRateLimitHit returns it when it succeeded; where an
// attempt is cheap, peekRateLimit refuses without counting and
// countRateLimitHit counts after the fact. Counters live in the database
// (app/models/rate-limit.server.ts), shared by every app process.
import { deleteRateLimitKeys, getRateLimitKey, hitRateLimitKey, hitRateLimitKeys, unhitRateLimitKey } from "~/models/rate-limit.server";
import { refuse, type Refusal } from "~/utils/refusal.server";

export const TOO_MANY_ATTEMPTS = "Demasiados intentos. Por favor espera un momento antes de intentar nuevamente.";

const MINUTE = 60_000;

export const RATE_LIMITS = {
  /** Failed sign-ins from one address (any username). */
  loginAddress: { limit: 10, windowMs: 15 * MINUTE },
  /** Failed sign-ins for one username (and, with the same window, per username and address). */
  loginUsername: { limit: 10, windowMs: 15 * MINUTE },
  /** Each public form has its own limit per address; only accepted submissions count. */
  bookingForm: { limit: 10, windowMs: 10 * MINUTE },
  enquiryForm: { limit: 10, windowMs: 10 * MINUTE },
  visitForm: { limit: 10, windowMs: 10 * MINUTE },
  faultReport: { limit: 10, windowMs: 10 * MINUTE },
  reservationLookup: { limit: 20, windowMs: 15 * MINUTE },
  /** Availability questions (GET /api/availability, /reservar as the guest chooses), per address. */
  availability: { limit: 120, windowMs: 10 * MINUTE },
  /** New anti-spam questions asked for through the JSON API, per address. */
  captchaCreation: { limit: 60, windowMs: 10 * MINUTE },
  /** Wrong current passwords when changing one's own (per user). */
  passwordChange: { limit: 10, windowMs: 15 * MINUTE },
  /** Visitor passes a resident creates (each mails an address they typed), per resident and day. */
  visitorPassCreation: { limit: 20, windowMs: 24 * 60 * MINUTE },
} as const;
export type RateLimitRule = keyof typeof RATE_LIMITS;

const keyOf = (rule: RateLimitRule, key: string) => `${rule}:${key}`;

function tooMany(resetAt: number, now: number) {
  return refuse(429, TOO_MANY_ATTEMPTS, { retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) });
}

/** Counts a hit on every key; null while all are within the rule, else the 429 refusal. */
export async function checkRateLimit(rule: RateLimitRule, keys: string[], now = Date.now()): Promise<Refusal | null> {
  const { limit, windowMs } = RATE_LIMITS[rule];
  for (const key of keys) {
    const { count, resetAt } = await hitRateLimitKey(keyOf(rule, key), windowMs, now);
    if (count > limit) return tooMany(resetAt, now);
  }
  return null;
}

/** A hit counted on one key: the key's count with it, and the 429 refusal once past the rule's limit. */
export type RateLimitHit = { key: string; count: number; resetAt: number; refusal: Refusal | null };

/**
 * Counts a hit on each key (one atomic upsert for them all), so attempts
 * running at once each see the others; the hits in the order of the keys.
 */
export async function hitRateLimit(rule: RateLimitRule, keys: string[], now = Date.now()): Promise<RateLimitHit[]> {
  const counts = await hitRateLimitKeys(
    keys.map((key) => keyOf(rule, key)),
    RATE_LIMITS[rule].windowMs,
    now,
  );
  return keys.map((key) => {
    const { count, resetAt } = counts.get(keyOf(rule, key))!;
    return { key, count, resetAt, refusal: count > RATE_LIMITS[rule].limit ? tooMany(resetAt, now) : null };
  });
}

/** Returns hits counted by hitRateLimit for an attempt that turned out not to count (e.g. a successful sign-in). */
export async function takeBackRateLimitHit(rule: RateLimitRule, hits: Pick<RateLimitHit, "key" | "resetAt">[]) {
  for (const hit of hits) await unhitRateLimitKey(keyOf(rule, hit.key), hit.resetAt);
}

/** The 429 refusal when any key has used up the rule already; counts nothing. */
export async function peekRateLimit(rule: RateLimitRule, keys: string[], now = Date.now()): Promise<Refusal | null> {
  const { limit } = RATE_LIMITS[rule];
  for (const key of keys) {
    const { count, resetAt } = await getRateLimitKey(keyOf(rule, key), now);
    if (count >= limit) return tooMany(resetAt, now);
  }
  return null;
}

/** Counts a hit on every key without refusing (e.g. a failed sign-in, after the fact). */
export async function countRateLimitHit(rule: RateLimitRule, keys: string[], now = Date.now()) {
  const { windowMs } = RATE_LIMITS[rule];
  for (const key of keys) await hitRateLimitKey(keyOf(rule, key), windowMs, now);
}

/** Forgets the keys' hits (e.g. a username's failures after a successful sign-in). */
export async function clearRateLimit(rule: RateLimitRule, keys: string[]) {
  await deleteRateLimitKeys(keys.map((key) => keyOf(rule, key)));
}
