// Building-wide settings: one JSON value per key.
import { eq } from "drizzle-orm";
import { settings } from "~/db/schema";
import { getDb } from "~/utils/db.server";

/** The settings the app knows, with their value types. */
export type Settings = {
  /** The access group a new resident joins (null: none). */
  defaultAccessGroupId: string | null;
};

const DEFAULTS: Settings = { defaultAccessGroupId: null };

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
