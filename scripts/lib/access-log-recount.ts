// The access log's counters (migration 0015: rows per hour, door and result;
// per card, door and result; per card and result, with the newest row's time;
// migration 0025: each card's newest row; migration 0028: per outcome, 0 denied,
// 1 granted, 2 alarm, 3 resolved denial, and the newest grant or denial) as kept, and the same figures
// recounted from access_logs. Shared by the counters' test and
// `bench:access --scenario record`, which checks them after a million swipes.
import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

export type AccessLogCounters = { hours: unknown[]; cardDoors: unknown[]; cards: unknown[]; cardLast: unknown[] };

export async function keptAccessLogCounters(): Promise<AccessLogCounters> {
  const db = getDb();
  return {
    hours: await db.all(sql`SELECT hour, door_key, granted, attempts FROM access_log_hours ORDER BY 1, 2, 3`),
    cardDoors: await db.all(sql`SELECT door_key, card_number, granted, attempts, last_at FROM access_log_card_doors ORDER BY 1, 2, 3`),
    cards: await db.all(sql`SELECT card_number, granted, attempts, last_at FROM access_log_cards ORDER BY 1, 2`),
    cardLast: await db.all(sql`SELECT card_number, last_at FROM access_log_card_last ORDER BY 1`),
  };
}

export async function recountedAccessLogCounters(): Promise<AccessLogCounters> {
  const db = getDb();
  return {
    hours: await db.all(sql`
      SELECT timestamp / 3600000 AS hour, coalesce(door_id, '') AS door_key, access_granted AS granted, count(*) AS attempts
      FROM access_logs GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    cardDoors: await db.all(sql`
      SELECT coalesce(door_id, '') AS door_key, card_number, access_granted AS granted, count(*) AS attempts, max(timestamp) AS last_at
      FROM access_logs GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    cards: await db.all(sql`
      SELECT card_number, access_granted AS granted, count(*) AS attempts, max(timestamp) AS last_at
      FROM access_logs GROUP BY 1, 2 ORDER BY 1, 2`),
    // Each card's newest grant or denial (alarms and resolved denials are not a card's use).
    cardLast: await db.all(sql`SELECT card_number, max(timestamp) AS last_at FROM access_logs WHERE access_granted IN (0, 1) GROUP BY 1 ORDER BY 1`),
  };
}
