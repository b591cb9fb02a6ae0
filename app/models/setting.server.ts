// Building-wide settings: one JSON value per key.
import { eq } from "drizzle-orm";
import { settings } from "~/db/schema";
import { getDb } from "~/utils/db.server";

/** The settings the app knows, with their value types. */
/** A door's status and messages as they were before a lockdown (restored when it is lifted). */
export type DoorStateBeforeLockdown = { status: "active" | "maintenance" | "emergency"; useCustomMessages: boolean; customStatus: string | null; customMessage: string | null };

export type LockdownSetting = { active: boolean; reason: string | null; since: string | null; previous: Record<string, DoorStateBeforeLockdown> };

export type Settings = {
  /** The access group a new resident joins (null: none). */
  defaultAccessGroupId: string | null;
  /** The building's lockdown ('Bloqueo general'). */
  lockdown: LockdownSetting;
  /** The building's calendar got its first holidays (seeded once, app/services/holidays.server.ts). */
  holidaysSeeded: boolean;
};

const DEFAULTS: Settings = { defaultAccessGroupId: null, lockdown: { active: false, reason: null, since: null, previous: {} }, holidaysSeeded: false };

export async function getSetting<K extends keyof Settings>(key: K): Promise<Settings[K]> {
  const [row] = await getDb().select({ value: settings.value }).from(settings).where(eq(settings.key, key)).limit(1);
  return row ? (row.value as Settings[K]) : DEFAULTS[key];
}

export async function setSetting<K extends keyof Settings>(key: K, value: Settings[K]) {
  await getDb()
    .insert(settings)
    .values({ key, value })
    .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: new Date() } });
}
