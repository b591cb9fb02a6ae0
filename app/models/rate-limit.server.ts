// Fixed-window counters kept in the database, so every app process shares
// them. One atomic upsert per hit.
import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

/** Counts one hit on the key; answers the count in the current window and when it ends. */
export async function hitRateLimitKey(key: string, windowMs: number, now = Date.now()) {
  const resetAt = now + windowMs;
  const result = await getDb().run(sql`
    INSERT INTO rate_limits (key, count, reset_at) VALUES (${key}, 1, ${resetAt})
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN reset_at <= ${now} THEN 1 ELSE count + 1 END,
      reset_at = CASE WHEN reset_at <= ${now} THEN ${resetAt} ELSE reset_at END
    RETURNING count, reset_at`);
  const row = result.rows[0] as unknown as { count: number; reset_at: number };
  return { count: Number(row.count), resetAt: Number(row.reset_at) };
}

/** Counts one hit on each key in one statement (one commit); each key's count in its current window and when that ends. */
export async function hitRateLimitKeys(keys: string[], windowMs: number, now = Date.now()) {
  const resetAt = now + windowMs;
  const rows = sql.join(
    keys.map((key) => sql`(${key}, 1, ${resetAt})`),
    sql`, `,
  );
  const result = await getDb().run(sql`
    INSERT INTO rate_limits (key, count, reset_at) VALUES ${rows}
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN reset_at <= ${now} THEN 1 ELSE count + 1 END,
      reset_at = CASE WHEN reset_at <= ${now} THEN ${resetAt} ELSE reset_at END
    RETURNING key, count, reset_at`);
  const counts = new Map<string, { count: number; resetAt: number }>();
  for (const row of result.rows as unknown as { key: string; count: number; reset_at: number }[]) {
    counts.set(String(row.key), { count: Number(row.count), resetAt: Number(row.reset_at) });
  }
  return counts;
}

/**
 * Takes back one hit counted in the window that ends at `resetAt` (a hit
 * counted up front for an attempt that turned out not to count); nothing when
 * that window has ended since.
 */
export async function unhitRateLimitKey(key: string, resetAt: number) {
  await getDb().run(sql`UPDATE rate_limits SET count = count - 1 WHERE key = ${key} AND reset_at = ${resetAt} AND count > 0`);
}

/** The key's count in its current window (0 when none is open), without counting a hit. */
export async function getRateLimitKey(key: string, now = Date.now()) {
  const result = await getDb().run(sql`SELECT count, reset_at FROM rate_limits WHERE key = ${key} AND reset_at > ${now}`);
  const row = result.rows[0] as unknown as { count: number; reset_at: number } | undefined;
  return row ? { count: Number(row.count), resetAt: Number(row.reset_at) } : { count: 0, resetAt: now };
}

export async function deleteRateLimitKeys(keys: string[]) {
  if (keys.length === 0) return;
  await getDb().run(sql`DELETE FROM rate_limits WHERE key IN (${sql.join(keys.map((key) => sql`${key}`), sql`, `)})`);
}

export async function purgeExpiredRateLimits(now = Date.now()) {
  await getDb().run(sql`DELETE FROM rate_limits WHERE reset_at <= ${now}`);
}
