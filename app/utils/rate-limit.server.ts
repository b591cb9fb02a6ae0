// The one rate-limit API for pages and the JSON API: a rule names how many
// hits a window allows; checkRateLimit counts a hit on each key (e.g. the
// client address and the username) and answers a 429 refusal when any key is
// over. Counters live in the database (app/models/rate-limit.server.ts).
import { deleteRateLimitKeys, hitRateLimitKey } from "~/models/rate-limit.server";
import { refuse, type Refusal } from "./refusal.server";

export const TOO_MANY_ATTEMPTS = "Demasiados intentos. Por favor espera un momento antes de intentar nuevamente.";

export const RATE_LIMITS = {
  login: { limit: 10, windowMs: 15 * 60_000 },
  publicForm: { limit: 10, windowMs: 10 * 60_000 },
  reservationLookup: { limit: 20, windowMs: 15 * 60_000 },
  // Wrong current passwords when changing one's own (per user).
  passwordChange: { limit: 10, windowMs: 15 * 60_000 },
} as const;
export type RateLimitRule = keyof typeof RATE_LIMITS;

const keyOf = (rule: RateLimitRule, key: string) => `${rule}:${key}`;

/** Counts a hit on every key; null while all are within the rule, else the 429 refusal. */
export async function checkRateLimit(rule: RateLimitRule, keys: string[], now = Date.now()): Promise<Refusal | null> {
  const { limit, windowMs } = RATE_LIMITS[rule];
  for (const key of keys) {
    const { count, resetAt } = await hitRateLimitKey(keyOf(rule, key), windowMs, now);
    if (count > limit) {
      return refuse(429, TOO_MANY_ATTEMPTS, { retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) });
    }
  }
  return null;
}

/** Forgets the keys' hits (e.g. a username's after a successful sign-in). */
export async function clearRateLimit(rule: RateLimitRule, keys: string[]) {
  await deleteRateLimitKeys(keys.map((key) => keyOf(rule, key)));
}
