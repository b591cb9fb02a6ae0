// Fixed-window rate limits kept in the database, so every app process shares
// them. One atomic upsert per hit.
import { sql } from "drizzle-orm";
import { getDb } from "./db.server";

export const TOO_MANY_ATTEMPTS =
  "Demasiados intentos. Por favor espera un momento antes de intentar nuevamente.";

export type RateLimitRule = { limit: number; windowMs: number };

export const RATE_LIMITS = {
  login: { limit: 10, windowMs: 15 * 60_000 },
  publicForm: { limit: 10, windowMs: 10 * 60_000 },
  reservationLookup: { limit: 20, windowMs: 15 * 60_000 },
} satisfies Record<string, RateLimitRule>;

export async function hitRateLimit(key: string, rule: RateLimitRule, now = Date.now()) {
  const resetAt = now + rule.windowMs;
  const result = await getDb().run(sql`
    INSERT INTO rate_limits (key, count, reset_at) VALUES (${key}, 1, ${resetAt})
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN reset_at <= ${now} THEN 1 ELSE count + 1 END,
      reset_at = CASE WHEN reset_at <= ${now} THEN ${resetAt} ELSE reset_at END
    RETURNING count, reset_at`);
  const row = result.rows[0] as unknown as { count: number; reset_at: number };
  return {
    allowed: Number(row.count) <= rule.limit,
    retryAfterSeconds: Math.max(1, Math.ceil((Number(row.reset_at) - now) / 1000)),
  };
}

export async function resetRateLimit(key: string) {
  await getDb().run(sql`DELETE FROM rate_limits WHERE key = ${key}`);
}

/** Counts a hit on every key; throws a 429 JSON response when any is over. */
export async function enforceRateLimit(keys: string[], rule: RateLimitRule) {
  for (const key of keys) {
    const { allowed, retryAfterSeconds } = await hitRateLimit(key, rule);
    if (!allowed) {
      throw Response.json(
        { success: false, error: { message: TOO_MANY_ATTEMPTS } },
        { status: 429, headers: { "Retry-After": String(retryAfterSeconds) } },
      );
    }
  }
}

export async function purgeExpiredRateLimits(now = Date.now()) {
  await getDb().run(sql`DELETE FROM rate_limits WHERE reset_at <= ${now}`);
}
