// The building's calendar of holidays (calendar days in the building's zone).
import { asc, eq, gte } from "drizzle-orm";
import { holidays, settings, type Holiday } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Holiday };

export async function listHolidays() {
  return getDb().select().from(holidays).orderBy(asc(holidays.day));
}

/** The days from this one on ("YYYY-MM-DD"), in order: what the doors need. */
export async function listHolidayDaysFrom(day: string) {
  const rows = await getDb().select({ day: holidays.day }).from(holidays).where(gte(holidays.day, day)).orderBy(asc(holidays.day));
  return rows.map((row) => row.day);
}

/** Inserts a holiday; a day already in the calendar throws a unique violation on holidays.day. */
export async function insertHoliday(input: { day: string; name: string }) {
  const [row] = await getDb()
    .insert(holidays)
    .values({ id: createId(), ...input })
    .returning();
  return row!;
}

export async function deleteHoliday(id: string) {
  const [row] = await getDb().delete(holidays).where(eq(holidays.id, id)).returning();
  return row ?? null;
}

/**
 * The first holidays of a fresh install, once: inserted (days already there
 * kept) with the `holidaysSeeded` setting in one transaction, so a later
 * deletion stays deleted. Answers whether it seeded now.
 */
export async function seedHolidaysOnce(days: { day: string; name: string }[]) {
  return getDb().transaction(async (tx) => {
    const [done] = await tx.select({ key: settings.key }).from(settings).where(eq(settings.key, "holidaysSeeded")).limit(1);
    if (done) return false;
    if (days.length > 0) {
      await tx
        .insert(holidays)
        .values(days.map((day) => ({ id: createId(), ...day })))
        .onConflictDoNothing();
    }
    await tx.insert(settings).values({ key: "holidaysSeeded", value: true });
    return true;
  });
}
